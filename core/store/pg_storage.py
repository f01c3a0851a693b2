"""A store in a PostgreSQL database: the same contract as a folder, behind the same `Storage`.

What a folder keeps in files, the database keeps in tables (all named `memtui_*`, created on the
first write):

- `memtui_stores`: one row per store: its memory document (the bytes memory.json would hold), a
  `version` that grows by one with every write, and a `uid` made when the row is made (a store
  dropped and made again never passes for its old self);
- `memtui_audit`: the audit log, one line per row, the same lines with the same hash chain
  (`file_sha` of the document after each batch), rotated as audit.jsonl is (PgAudit.rotate);
- `memtui_backups`: the document as it was before each write, under the same names and the same
  retention as backups/ (backup_files.kept);
- `memtui_keys`: the approvals key, in a table of its own so a role can read the store without it;
- `memtui_files`: the store's other files that every machine shares: the probes (probes.json);
- `memtui_injections`: the injection log, one row per injection (pg_injections.py).

A write is one transaction: the store's row is locked (`SELECT ... FOR UPDATE`), the document
changed, the old one kept as a backup, the audit lines added, the row updated and a NOTIFY sent;
a writer that dies or loses its connection in the middle leaves nothing of its change. Writers
wait for the row lock at most `lock_timeout` seconds (LockTimeout, as with a folder).

A read is one small query (the row's uid and version): the document of that version is kept in
a local cache folder (location.PgLocation.cache_dir) beside its derived index, so a turn reads
the database's bytes only when another process wrote. A turn's one write is its injection log's
row, on the connection it read through. docs/storage.md#sharing-a-store-postgresql.
"""

from __future__ import annotations

import os

from .audit_log import AuditLog, Event
from .backup_files import BackupName, Backups, kept
from ..errors import BackupNotFound, LockTimeout, StoreUnavailable, StoreUnwritable
from .fileio import atomic_write, digest, read_file, utc_stamp
from . import derived
from ..limits import Limits
from .location import PgLocation
from .pg_connect import CHANNEL, Connections, driver as _driver
from .records import Corrupt, Document
from .storage import (Change, Committed, Mutation, Storage, _import_events, _redact_foreign, _redacted_bytes,
                      _removes)

__all__ = ["CHANNEL", "PgStorage", "SCHEMA"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS memtui_stores (
    name text PRIMARY KEY,
    uid text NOT NULL,
    version bigint NOT NULL DEFAULT 0,
    doc bytea,
    updated double precision
);
CREATE TABLE IF NOT EXISTS memtui_audit (
    store text NOT NULL,
    seq bigserial,
    line bytea NOT NULL,
    PRIMARY KEY (store, seq)
);
CREATE TABLE IF NOT EXISTS memtui_backups (
    store text NOT NULL,
    name text NOT NULL,
    seq bigint NOT NULL,
    data bytea NOT NULL,
    PRIMARY KEY (store, name)
);
CREATE TABLE IF NOT EXISTS memtui_files (
    store text NOT NULL,
    name text NOT NULL,
    data bytea,
    PRIMARY KEY (store, name)
);
CREATE TABLE IF NOT EXISTS memtui_keys (
    store text PRIMARY KEY,
    key bytea NOT NULL
);
CREATE TABLE IF NOT EXISTS memtui_injections (
    store text NOT NULL,
    seq bigserial,
    at double precision NOT NULL,
    line text NOT NULL,
    PRIMARY KEY (store, seq)
);
"""

ROTATE_EVERY = 8  # writes between two checks of the audit log's size (PgAudit.rotate)
ROTATED = b'{"rotated":true}'  # the row that starts a part of the audit log (never an event: no "op")
LISTEN_AFTER = 20  # version queries after which a process listens and stops asking (state())
ADDED_TABLES = ("memtui_injections",)  # tables a store works without (made by a role that may create them)
TABLES = ("memtui_stores", "memtui_audit", "memtui_backups", "memtui_files", "memtui_keys", "memtui_injections")
_SCHEMA_LOCK = 0x6D656D74  # the advisory lock that makes the tables once, whoever comes first


class PgStorage(Storage):
    """`Storage` over a database (see the module's docstring). `dir` is the local cache folder."""

    def __init__(self, location: PgLocation, limits: Limits, actor: str = "api") -> None:
        super().__init__(location.cache_dir(), limits, actor)
        self.location = location
        self.backups = PgBackups(self, limits)
        self.audit = PgAudit(self, limits)
        self.files = PgFiles(self)
        self.db = Connections(location)
        self._schema_ready = False
        self._key_read = False
        self._key: bytes | None = None
        self._known: tuple[int, tuple | None] | None = None  # (listener's token, the version asked under it)
        self._asked = 0  # version queries asked without a listener

    def __repr__(self) -> str:
        return f"PgStorage({self.location.display!r})"

    @property
    def where(self) -> str:
        return self.location.display

    # ------------------------------------------------------------------ the connection

    def connection(self):
        return self.db.connection()

    def query(self, sql: str, params: tuple = (), writing: bool = False) -> list[tuple]:
        return self.db.query(sql, params, writing)

    def close(self) -> None:
        self.db.close()

    def injection_log(self, limits: Limits, actor: str = "api"):
        """The injection log in `memtui_injections`, the same for every machine (pg_injections.py)."""
        from .pg_injections import PgInjectionLog

        return PgInjectionLog(self, limits, actor)

    def change_token(self) -> object:
        """Changes soon after any process writes the store (NOTIFY), without asking the database:
        the app looks at it every second on its main thread (pg_connect.ChangeWatcher)."""
        return self.db.watch().token

    # ------------------------------------------------------------------ reading

    def state(self) -> tuple | None:
        """(uid, version) of the store's row: changes with every write by any process (None: no store yet).

        Asked of the database, except in a process that listens (pg_connect.ChangeWatcher): while
        its listener is connected and no notification or reconnection came since the version was
        last asked, that version is still the store's, and is answered without a round trip. A
        process starts listening once it has asked LISTEN_AFTER times (a long-running one: the app,
        the MCP server, an agent's loop; a turn asks once or twice and never pays for it)."""
        watcher = self.db.watcher
        token = None
        if watcher is not None and watcher.connected:
            token = watcher.token
            known = self._known
            if known is not None and known[0] == token:
                return known[1]
        else:
            self._asked += 1
            if self._asked == LISTEN_AFTER:
                self.db.watch()
        rows = self.query("SELECT uid, version FROM memtui_stores WHERE name = %s", (self.location.store,))
        found = (rows[0][0], rows[0][1]) if rows and rows[0][1] else None
        if token is not None:
            self._known = (token, found)
        return found

    def can_write(self) -> bool:
        """Whether this role may change the store (health, doctor); True before the tables exist."""
        rows = self.query("SELECT has_table_privilege(current_user, 'memtui_stores', 'UPDATE') "
                          "AND has_table_privilege(current_user, 'memtui_audit', 'INSERT')")
        return bool(rows[0][0]) if rows else True

    def loaded_state(self) -> tuple | None:
        last = self._cache or self._lean
        return last[0] if last is not None else self.state()

    def approval_key(self, create: bool = False) -> bytes | None:
        """The store's approval key, from its own table (a role may lack the right to read it:
        approvals are then not verified and approved entries stay blocked). With `create`, inside
        a write's transaction, made on first use."""
        if self._key_read and (self._key is not None or not create):
            return self._key
        try:
            rows = self.query("SELECT key FROM memtui_keys WHERE store = %s", (self.location.store,))
        except StoreUnavailable:
            if create:
                raise
            rows = []
        self._key = bytes(rows[0][0]) if rows else None
        self._key_read = True
        if self._key is None and create:
            import secrets

            self.connection().execute("INSERT INTO memtui_keys (store, key) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                                      (self.location.store, secrets.token_bytes(32)))
            self._key_read = False
            return self.approval_key()
        return self._key

    def _local_copy(self, state: tuple) -> bytes:
        """The document of `state`, from the cache folder when this machine has it, else from the
        database (and kept there for the next process)."""
        path = self._copy_path(state)
        try:
            return read_file(path)
        except OSError:
            pass
        rows = self.query("SELECT uid, version, doc FROM memtui_stores WHERE name = %s", (self.location.store,))
        if not rows or rows[0][2] is None:
            return b""
        uid, version, data = rows[0][0], rows[0][1], bytes(rows[0][2])
        self._keep_copy((uid, version), data)
        return data

    def _copy_path(self, state: tuple):
        return self.dir / f"memory-{state[0]}-v{state[1]}.json"

    def _keep_copy(self, state: tuple, data: bytes) -> None:
        """Keep the document of `state` in the cache folder (an optimisation: never fails a call),
        and remove the copies of older versions."""
        try:
            self.folder.ensure_dir()
            path = self._copy_path(state)
            atomic_write(path, data)
            for name in os.listdir(self.dir):
                if name.startswith("memory-") and name not in (path.name, path.name + derived.INDEX_SUFFIX):
                    try:
                        os.unlink(self.dir / name)
                    except OSError:
                        pass
        except Exception:
            pass

    def _load(self, lean: bool = False) -> Document:
        """The store's document as of the version the database holds now (see Storage._load);
        StoreUnavailable when the database cannot be reached."""
        key = self.state()
        cached = self._cache
        if cached is not None and cached[0] == key:
            return cached[1]
        if lean and key is not None and self._lean is not None and self._lean[0] == key:
            return self._lean[1]
        if key is None:
            doc = Document()
            self.read_error = None
            self._cache = (None, doc)
            return doc
        data = self._local_copy(key)
        self.path = self._copy_path(key)  # the derived index is kept beside the copy it was made of
        known = None if self.index_trusted else (derived.content_key(data), None)
        if lean and self.index_trusted:
            found, known = derived.lean(self, data, self.approval_key())
            if found is not None:
                self.read_error = None
                self._lean = (key, found)
                return found
        try:
            doc = derived.parse(self, data, known)
        except Corrupt as error:  # only a hand-made row can be: shown as empty, never written over unasked
            self.read_error = f"the store's document in {self.location.display} is not a memory file ({error})"
            return Document()
        doc.use_key(self.approval_key())
        self.read_error = None
        self._cache = (key, doc)
        self._lean = None
        return doc

    # ------------------------------------------------------------------ writing

    def _ensure_schema(self, conn) -> None:
        """Make the tables that are missing (the first writer needs CREATE on the schema; a writer
        role with rights on the tables only never runs a CREATE once they are there)."""
        if self._schema_ready:
            return
        missing = [name for (name,) in conn.execute(
            "SELECT name FROM unnest(%s::text[]) AS t(name) WHERE to_regclass(name) IS NULL", (list(TABLES),))]
        if not missing:
            self._schema_ready = True
            return
        try:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
                conn.execute(SCHEMA)
        except _driver().errors.InsufficientPrivilege:
            # a database made by an earlier version, written by a role that may not create tables:
            # the store works without the tables added since (the injection log is then not kept)
            if not set(missing) <= set(ADDED_TABLES):
                raise
        self._schema_ready = True

    def transact(self, mutate: Mutation, actor: str = "api", *, timeout: float | None = None) -> Committed:
        """Run `mutate` on the newest document in one transaction holding the store's row lock.
        If its change has events: the old document is kept as a backup, the audit lines added,
        the row updated, and the other processes told (NOTIFY), all or nothing."""
        psycopg = _driver()
        wait = self.limits.lock_timeout if timeout is None else timeout
        conn = self.connection()
        try:
            self._ensure_schema(conn)
            with conn.transaction():
                conn.execute(f"SET LOCAL lock_timeout = {max(1, int(wait * 1000))}")
                committed = self._transact_in(conn, mutate, actor)
        except psycopg.errors.LockNotAvailable:
            raise _locked(self.location, wait) from None
        except psycopg.errors.InsufficientPrivilege as exc:
            raise _refused(self.location, exc) from None
        except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
            self.db.forget()
            raise StoreUnavailable(f"lost the store's database {self.location.display} during a write "
                                   f"({self.location.redact((str(exc).strip().splitlines() or ['closed'])[0])}); "
                                   f"the change was saved whole or not at all: check with `memtui audit`") from None
        except psycopg.Error as exc:
            raise StoreUnwritable(f"the database refused the write to {self.location.display} "
                                  f"({self.location.redact((str(exc).strip().splitlines() or ['error'])[0])}); "
                                  f"nothing was written") from None
        state, data, doc = committed[4], committed[5], committed[0]
        self._known = None  # this write's own notification may not be here yet: ask once more
        if data is not None:
            self._keep_copy(state, data)
            self.path = self._copy_path(state)
            doc.key, doc.derived = derived.content_key(data), None
            from .records import written_canonical

            doc.canonical = written_canonical(doc, data)
            doc.data = data if doc.canonical else None
            try:
                derived.ensure(self, doc, written=True)
            except Exception:  # an optimisation only
                doc.derived = None
        self._adopted = None
        self._adopt_limits(doc)
        self._cache = (state, doc.use_key(self.approval_key()))
        self._lean = None
        return Committed(*committed[:4])

    def _transact_in(self, conn, mutate: Mutation, actor: str) -> tuple:
        store = self.location.store
        import secrets

        conn.execute("INSERT INTO memtui_stores (name, uid) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                     (store, secrets.token_hex(8)))
        uid, version, current = conn.execute(
            "SELECT uid, version, doc FROM memtui_stores WHERE name = %s FOR UPDATE", (store,)).fetchone()
        current = bytes(current) if current is not None else None
        self._key_read = False  # read again inside the transaction: another writer may have made it
        try:
            doc = derived.parse(self, current).use_key(self.approval_key()) if current else Document()
        except Corrupt as exc:
            raise StoreUnwritable(f"the store's document in {self.location.display} is not a memory file "
                                  f"({exc}); nothing was written (restore a backup: `memtui backups`)") from None
        self._adopt_limits(doc)
        before = set(doc.ids())
        # a document another program put in the row (not the one memtui's last logged write left)
        # has its secrets redacted by this write and kept out of its backup, as a folder's file has
        foreign = current is not None and digest(current) != self._last_logged(conn)
        redacted = _redact_foreign(doc) if foreign else {}
        imports = _import_events(doc, redacted)
        change: Change = mutate(doc)
        events = list(change.events)
        if not events:
            return doc, [], change.result, None, (uid, version) if version else None, None
        events = imports + events
        data = doc.to_bytes()
        kept = _redacted_bytes(current) if current is not None and redacted else current
        backup = self.backups.add(conn, kept, _removes(before, doc)) if kept is not None else None
        self.audit.add(conn, events, actor, data, version + 1)
        conn.execute("UPDATE memtui_stores SET version = version + 1, doc = %s, updated = extract(epoch from now()) "
                     "WHERE name = %s", (data, store))
        conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{store}:{version + 1}"))
        return doc, events, change.result, backup, (uid, version + 1), data


    def _last_logged(self, conn) -> str | None:
        """`file_sha` of the newest audit line: the document memtui's last write left."""
        import orjson

        row = conn.execute("SELECT line FROM memtui_audit WHERE store = %s ORDER BY seq DESC LIMIT 1",
                           (self.location.store,)).fetchone()
        try:
            found = orjson.loads(bytes(row[0])).get("file_sha") if row else None
        except (orjson.JSONDecodeError, AttributeError):
            return None
        return found if isinstance(found, str) else None


class PgAudit(AuditLog):
    """The audit log in `memtui_audit`: the same lines and chain as audit.jsonl, one per row."""

    def __init__(self, storage: PgStorage, limits: Limits) -> None:
        super().__init__(storage.dir / "audit.jsonl", limits)
        self.storage = storage

    def add(self, conn, events: list[Event], actor: str, file_after: bytes | None, version: int = 0) -> None:
        """Add one batch inside the write's transaction (the write that makes `version`); every
        ROTATE_EVERY versions, rotate first if the log is due."""
        if version % ROTATE_EVERY == 0:
            self.rotate(conn)
        lines = self.batch(events, actor, file_after).splitlines()
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO memtui_audit (store, line) VALUES (%s, %s)",
                            [(self.storage.location.store, line) for line in lines])

    def append(self, events: list[Event], actor: str, file_after: bytes | None) -> None:
        raise StoreUnwritable("a database store's audit log is written only inside a write")

    def rotate(self, conn) -> bool:
        """As audit.jsonl becomes audit.jsonl.1 past `audit_max_bytes`: the rows after the last
        ROTATED mark are the current part; once they pass the limit, the previous part (the rows
        before that mark) is deleted and a new mark starts the next part. Readers read both parts.
        Whether it rotated."""
        store = self.storage.location.store
        (mark,) = conn.execute("SELECT coalesce(max(seq), 0) FROM memtui_audit WHERE store = %s AND line = %s",
                               (store, ROTATED)).fetchone()
        (size,) = conn.execute("SELECT coalesce(sum(octet_length(line) + 1), 0) FROM memtui_audit "
                               "WHERE store = %s AND seq > %s", (store, mark)).fetchone()
        if size <= self.limits.audit_max_bytes:
            return False
        conn.execute("DELETE FROM memtui_audit WHERE store = %s AND seq <= %s", (store, mark))
        conn.execute("INSERT INTO memtui_audit (store, line) VALUES (%s, %s)", (store, ROTATED))
        return True

    def lines(self) -> list[dict]:
        import orjson

        rows = self.storage.query("SELECT line FROM memtui_audit WHERE store = %s ORDER BY seq",
                                  (self.storage.location.store,))
        out = []
        for (line,) in rows:
            try:
                event = orjson.loads(bytes(line))
            except orjson.JSONDecodeError:
                continue
            if isinstance(event, dict) and "op" in event:
                out.append(event)
        return out

    def last_logged_state(self) -> tuple[str, float] | None:
        for event in reversed(self.lines()):
            sha, at = event.get("file_sha"), event.get("at")
            if isinstance(sha, str) and isinstance(at, (int, float)):
                return sha, float(at)
        return None


class PgBackups(Backups):
    """Backups in `memtui_backups`, named and pruned as backups/ is."""

    def __init__(self, storage: PgStorage, limits: Limits) -> None:
        super().__init__(storage.dir / "backups", limits)
        self.storage = storage

    def parsed(self) -> list[tuple[str, BackupName]]:
        rows = self.storage.query("SELECT name FROM memtui_backups WHERE store = %s", (self.storage.location.store,))
        found = [(name, BackupName.parse(name)) for (name,) in rows]
        return sorted(((n, k) for n, k in found if k is not None), key=lambda item: item[1], reverse=True)

    def junk(self) -> list[str]:
        return []

    def where(self, name: str) -> str:
        return f"{self.storage.location.display} backup {name}"

    def path(self, name: str):
        raise BackupNotFound(name, "a database store's backups are not files")

    def read(self, name: str) -> bytes:
        rows = self.storage.query("SELECT data FROM memtui_backups WHERE store = %s AND name = %s",
                                  (self.storage.location.store, name))
        if not rows:
            raise BackupNotFound(name)
        return bytes(rows[0][0])

    def read_named(self, name: str) -> bytes:
        if not isinstance(name, str) or BackupName.parse(name) is None:
            raise BackupNotFound(name, "not a backup name")
        return self.read(name)

    def write(self, data: bytes, removal: bool = False) -> str:
        raise StoreUnwritable("a database store's backups are written only inside a write")

    def add(self, conn, data: bytes, removal: bool) -> str:
        """Keep `data` as the newest backup, inside the write's transaction, and prune."""
        store = self.storage.location.store
        (top,) = conn.execute("SELECT coalesce(max(seq), 0) FROM memtui_backups WHERE store = %s", (store,)).fetchone()
        name = f"memory-{utc_stamp()}-s{top + 1}{'-removal' if removal else ''}.json"
        conn.execute("INSERT INTO memtui_backups (store, name, seq, data) VALUES (%s, %s, %s, %s)",
                     (store, name, top + 1, data))
        rows = conn.execute("SELECT name FROM memtui_backups WHERE store = %s", (store,)).fetchall()
        parsed = sorted(((n, BackupName.parse(n)) for (n,) in rows if BackupName.parse(n) is not None),
                        key=lambda item: item[1], reverse=True)
        keep = kept(parsed, self.limits)
        gone = [n for n, _key in parsed if n not in keep]
        if gone:
            conn.execute("DELETE FROM memtui_backups WHERE store = %s AND name = ANY(%s)", (store, gone))
        return name

    def prune(self) -> None:
        pass



class PgFiles:
    """The store's shared files (`memtui_files`): read, and changed in a transaction holding the
    file's row lock, as a folder's are under its lock. What probes.py keeps in probes.json."""

    def __init__(self, storage: PgStorage) -> None:
        self.storage = storage

    def read(self, name: str) -> bytes | None:
        rows = self.storage.query("SELECT data FROM memtui_files WHERE store = %s AND name = %s",
                                  (self.storage.location.store, name))
        return bytes(rows[0][0]) if rows and rows[0][0] is not None else None

    def names(self, prefix: str) -> list[str]:
        rows = self.storage.query("SELECT name FROM memtui_files WHERE store = %s AND data IS NOT NULL",
                                  (self.storage.location.store,))
        return sorted(name for (name,) in rows if name.startswith(prefix))

    def locked(self, name: str, work):
        """`work()` inside one transaction that holds `name`'s row lock; its `write`s commit with it."""
        psycopg = _driver()
        storage = self.storage
        wait = storage.limits.lock_timeout
        conn = storage.connection()
        try:
            storage._ensure_schema(conn)
            with conn.transaction():
                conn.execute(f"SET LOCAL lock_timeout = {max(1, int(wait * 1000))}")
                conn.execute("INSERT INTO memtui_files (store, name) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                             (storage.location.store, name))
                conn.execute("SELECT 1 FROM memtui_files WHERE store = %s AND name = %s FOR UPDATE",
                             (storage.location.store, name))
                return work()
        except psycopg.errors.LockNotAvailable:
            raise _locked(storage.location, wait) from None
        except psycopg.errors.InsufficientPrivilege as exc:
            raise _refused(storage.location, exc) from None
        except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
            storage.db.forget()
            raise storage.db.unavailable(exc) from None

    def write(self, name: str, data: bytes | None) -> None:
        """Inside `locked`: `name` holds `data` (None: it is gone); the processes that listen are
        told when the transaction commits (`<store>:files:<name>`: the app's probes screen)."""
        conn = self.storage.connection()
        store = self.storage.location.store
        conn.execute("UPDATE memtui_files SET data = %s WHERE store = %s AND name = %s", (data, store, name))
        conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{store}:files:{name}"))

    def change_token(self) -> object:
        """Changes soon after any process changes one of the store's shared files, without asking
        the database (as PgStorage.change_token, for the files)."""
        return self.storage.db.watch().files_token

    def rename(self, name: str, new: str) -> None:
        """Inside `locked`: `name`'s content moves to `new` (a corrupt file set aside)."""
        self.storage.connection().execute(
            "INSERT INTO memtui_files (store, name, data) SELECT store, %s, data FROM memtui_files "
            "WHERE store = %s AND name = %s", (new, self.storage.location.store, name))
        self.write(name, None)


def _locked(location, wait: float) -> LockTimeout:
    """A write that waited `wait` seconds for the store's row lock, in one line."""
    return LockTimeout(f"store is locked by another writer (waited {wait:g}s); nothing was written: "
                       f"{location.display}")


def _refused(location, exc: Exception) -> StoreUnwritable:
    """A write the database's permissions refused, in one line (the URL without its password)."""
    return StoreUnwritable(f"the database refused the write to {location.display} "
                           f"({location.redact(str(exc).splitlines()[0])}); nothing was written")
