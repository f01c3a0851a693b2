"""Where a store lives: a folder (memory.json and its files) or a PostgreSQL database.

`parse_location` decides, and it never takes a URL for a folder name: `postgresql://...` (or
`postgres://...`) is a database; anything else that begins like a URL (`scheme:/...`, including a
`postgresql:/x` typo) is refused in one line instead of becoming a folder called `postgresql:`.
A path without a scheme (`~/notes`, `C:/x`, `notes:2024`) is a folder, as it always was.

One database holds several stores, each named by `?store=NAME` (or `#NAME`) at the end of the URL;
without one the store is `default`. The URL's password never leaves this module except to the
driver: `display` is the URL without it (and without any other connection parameter), and is what
messages, logs and the audit log show. docs/storage.md#sharing-a-store-postgresql describes it.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import InvalidInput
from ..lazy_re import lazy_pattern

__all__ = ["DEFAULT_STORE", "PgLocation", "is_database", "parse_location"]

DEFAULT_STORE = "default"
PG_SCHEMES = ("postgresql", "postgres")
CONNECT_TIMEOUT = 3  # seconds: a turn never hangs on a database that does not answer

_SCHEME = lazy_pattern(r"([A-Za-z][A-Za-z0-9+.\-]+):(/*)")
_SHOWN = ("host", "hostaddr", "port", "dbname", "user")  # connection parameters a display keeps
_STORE_NAME = lazy_pattern(r"[A-Za-z0-9_.\-]{1,63}\Z")


class PgLocation:
    """A store in a PostgreSQL database: `conninfo` for the driver (holds the password, if any),
    `store` (its name in the database), `display` (the URL without the password: safe to show)."""

    __slots__ = ("conninfo", "store", "display", "password")

    def __init__(self, conninfo: str, store: str, display: str, password: str | None) -> None:
        self.conninfo, self.store, self.display, self.password = conninfo, store, display, password

    def __repr__(self) -> str:
        return f"PgLocation({self.display!r})"

    def __str__(self) -> str:
        return self.display

    def redact(self, text: str) -> str:
        """`text` (a driver's error, say) with the password taken out, should it appear there."""
        if self.password:
            text = text.replace(self.password, "***")
            from urllib.parse import quote

            text = text.replace(quote(self.password, safe=""), "***")
        return text

    def cache_dir(self) -> Path:
        """The local folder that keeps this store's read copy per version and its derived index
        (the injection log and the probes live in the database): one per database URL (without
        the password) and store name, under the user's cache directory (or $MEMTUI_CACHE_DIR)."""
        import hashlib

        root = os.environ.get("MEMTUI_CACHE_DIR")
        if root:
            base = Path(root).expanduser()
        else:
            import platformdirs

            base = Path(platformdirs.user_cache_dir("memtui"))
        digest = hashlib.sha256(self.display.encode("utf-8")).hexdigest()[:24]
        return base / "pg" / digest


def is_database(value: object) -> bool:
    """Whether `value` names a database rather than a folder (it may still be a malformed URL)."""
    return isinstance(value, PgLocation) or (isinstance(value, str) and _SCHEME.match(value) is not None
                                             and _SCHEME.match(value).group(1).lower() in PG_SCHEMES)


def parse_location(value: str | os.PathLike[str] | PgLocation) -> PgLocation | None:
    """The database `value` names, or None when it is a folder path. InvalidInput (one line, no
    password in it) for a URL that is not a usable PostgreSQL URL. A PgLocation is itself (a store
    opened again from `MemoryStore.location`, password and all)."""
    if isinstance(value, PgLocation):
        return value
    text = os.fspath(value)
    if isinstance(text, bytes):
        return None
    m = _SCHEME.match(text)
    if m is None:
        return None
    scheme, slashes = m.group(1).lower(), m.group(2)
    if scheme not in PG_SCHEMES:
        if not slashes:
            return None  # `notes:2024`: a folder name with a colon in it
        raise InvalidInput(f"unsupported store location {m.group(1)}:{slashes}...: a store is a folder path "
                           f"or a postgresql:// URL")
    if not slashes.startswith("//"):
        raise InvalidInput(f"not a PostgreSQL URL: {m.group(1)}:{slashes}... (write postgresql://user@host:port/"
                           f"database, or ./{m.group(1)}:... for a folder of that name)")
    return _parse_pg(text)


def _parse_pg(text: str) -> PgLocation:
    from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit

    try:
        parts = urlsplit(text)
        port = parts.port  # raises ValueError for a port that is not a number
    except ValueError:
        raise InvalidInput("not a valid PostgreSQL URL (check the host and port): postgresql://...") from None
    store = DEFAULT_STORE
    params = []
    for name, val in parse_qsl(parts.query, keep_blank_values=True):
        if name == "store":
            store = val
        else:
            params.append((name, val))
    if parts.fragment:
        store = unquote(parts.fragment)
    if not _STORE_NAME.match(store):
        raise InvalidInput(f"store name {store[:70]!r} in the URL must be 1-63 letters, digits, '.', '_' or '-'")
    password = unquote(parts.password) if parts.password is not None else None
    if any(name == "password" for name, _ in params):
        password = next(val for name, val in params if name == "password")
    if not any(name == "connect_timeout" for name, _ in params):
        params.append(("connect_timeout", str(CONNECT_TIMEOUT)))
    conninfo = urlunsplit(("postgresql", parts.netloc, parts.path, urlencode(params), ""))
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    user = quote(unquote(parts.username), safe="") + "@" if parts.username else ""
    netloc = user + host + (f":{port}" if port is not None else "")
    shown = [(name, val) for name, val in params if name in _SHOWN]  # where, never how to log in
    if store != DEFAULT_STORE:
        shown.append(("store", store))
    display = f"postgresql://{netloc}{parts.path}" + (f"?{urlencode(shown)}" if shown else "")
    return PgLocation(conninfo, store, display, password)
