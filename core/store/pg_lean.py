"""The reads of a turn, straight through libpq: what `memtui inject` asks a database store.

A turn asks the database one small question (the store's version) and, only when another process
wrote, for the document of the new version. The driver (psycopg) costs a fresh process about
90 ms to import, more than the whole turn of a folder store (docs/storage.md#sharing-a-store-postgresql);
the same C library it wraps, libpq, is loaded here with ctypes in about 3 ms, for reads only:
every write, and every read outside a turn's, goes through psycopg. When libpq cannot be loaded
(`connect` returns None) the store uses psycopg for everything.

Only what the turn needs: connect with a URL, run a statement with text parameters, read its rows
in binary (bigint, integer, double precision, boolean, text and bytea columns), finish. Errors come back as
`LeanError` with the SQLSTATE, which pg_storage.py maps as it maps the driver's.
"""

from __future__ import annotations

import os
import sys

__all__ = ["LeanConnection", "LeanError", "connect"]

_LIB = None  # the loaded libpq (False: tried, not found)
_CONNECTION_OK = 0
_PGRES_COMMAND_OK, _PGRES_TUPLES_OK = 1, 2
_PG_DIAG_SQLSTATE = ord("C")
_INT8, _BOOL, _INT4, _TEXT, _BYTEA, _VARCHAR, _FLOAT8 = 20, 16, 23, 25, 17, 1043, 701


class LeanError(Exception):
    """A failed statement or connection: `sqlstate` (None: the connection failed or was lost)."""

    def __init__(self, message: str, sqlstate: str | None = None) -> None:
        super().__init__(message)
        self.sqlstate = sqlstate


def _candidates() -> list[str]:
    found = ["libpq.so.5", "libpq.5.dylib"]
    for folder in sys.path:  # the copy psycopg[binary] ships, where the system has none
        libs = os.path.join(folder, "psycopg_binary.libs")
        try:
            found += [os.path.join(libs, name) for name in sorted(os.listdir(libs)) if name.startswith("libpq")]
        except OSError:
            continue
    return found


def _library():
    global _LIB
    if _LIB is None:
        import ctypes

        _LIB = False
        for name in _candidates():
            try:
                lib = ctypes.CDLL(name)
            except OSError:
                continue
            p, i, s = ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p
            for fn, restype, argtypes in (
                ("PQconnectdb", p, [s]), ("PQstatus", i, [p]), ("PQerrorMessage", s, [p]), ("PQfinish", None, [p]),
                ("PQexecParams", p, [p, s, i, p, ctypes.POINTER(s), p, p, i]), ("PQresultStatus", i, [p]),
                ("PQresultErrorField", s, [p, i]), ("PQresultErrorMessage", s, [p]), ("PQntuples", i, [p]),
                ("PQnfields", i, [p]), ("PQftype", ctypes.c_uint, [p, i]), ("PQgetisnull", i, [p, i, i]),
                ("PQgetlength", i, [p, i, i]), ("PQgetvalue", p, [p, i, i]), ("PQclear", None, [p]),
            ):
                f = getattr(lib, fn)
                f.restype, f.argtypes = restype, argtypes
            _LIB = lib
            break
    return _LIB or None


class LeanConnection:
    def __init__(self, lib, handle) -> None:
        self.lib, self.handle = lib, handle

    @property
    def broken(self) -> bool:
        return self.handle is None or self.lib.PQstatus(self.handle) != _CONNECTION_OK

    def close(self) -> None:
        if self.handle is not None:
            self.lib.PQfinish(self.handle)
            self.handle = None

    def query(self, sql: str, params: tuple = ()) -> list[tuple]:
        """The rows of one statement (`%s` placeholders, text parameters)."""
        import ctypes

        lib = self.lib
        for n in range(len(params)):
            sql = sql.replace("%s", f"${n + 1}", 1)
        values = (ctypes.c_char_p * max(1, len(params)))(*[str(v).encode("utf-8") for v in params])
        res = lib.PQexecParams(self.handle, sql.encode("utf-8"), len(params), None, values, None, None, 1)
        if not res:
            raise LeanError(_text(lib.PQerrorMessage(self.handle)) or "the connection was lost")
        try:
            status = lib.PQresultStatus(res)
            if status not in (_PGRES_TUPLES_OK, _PGRES_COMMAND_OK):
                code = lib.PQresultErrorField(res, _PG_DIAG_SQLSTATE)
                message = _text(lib.PQresultErrorMessage(res)) or _text(lib.PQerrorMessage(self.handle))
                raise LeanError(message, code.decode("ascii") if code else None)
            types = [lib.PQftype(res, c) for c in range(lib.PQnfields(res))]
            rows = []
            for r in range(lib.PQntuples(res)):
                row = []
                for c, oid in enumerate(types):
                    if lib.PQgetisnull(res, r, c):
                        row.append(None)
                        continue
                    raw = ctypes.string_at(lib.PQgetvalue(res, r, c), lib.PQgetlength(res, r, c))
                    if oid in (_INT8, _INT4):
                        row.append(int.from_bytes(raw, "big", signed=True))
                    elif oid == _FLOAT8:
                        from struct import unpack

                        row.append(unpack(">d", raw)[0])
                    elif oid == _BOOL:
                        row.append(raw != b"\x00")
                    elif oid in (_TEXT, _VARCHAR):
                        row.append(raw.decode("utf-8"))
                    else:
                        row.append(raw)
                rows.append(tuple(row))
            return rows
        finally:
            lib.PQclear(res)


def _text(value: bytes | None) -> str:
    return value.decode("utf-8", "replace").strip() if value else ""


def connect(conninfo: str) -> LeanConnection | None:
    """A connection through libpq (LeanError when the database cannot be reached), or None when
    libpq cannot be loaded here."""
    lib = _library()
    if lib is None:
        return None
    handle = lib.PQconnectdb(conninfo.encode("utf-8"))
    if not handle:
        raise LeanError("out of memory")
    if lib.PQstatus(handle) != _CONNECTION_OK:
        message = _text(lib.PQerrorMessage(handle))
        lib.PQfinish(handle)
        raise LeanError(message or "cannot connect")
    return LeanConnection(lib, handle)
