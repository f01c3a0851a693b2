"""A database store's connections: the driver's (psycopg, for writes and most reads), a turn's
(libpq straight, pg_lean.py), and the one that listens for other processes' writes (NOTIFY).

Every failure to reach the database becomes StoreUnavailable, one line naming the database
without its password; a lost connection is dropped and made again by the next call, so work
resumes when the database is back.
"""

from __future__ import annotations

import threading

from ..errors import StoreUnavailable
from .location import PgLocation

__all__ = ["CHANNEL", "ChangeWatcher", "Connections", "driver"]

CHANNEL = "memtui"  # NOTIFY's channel; the payload is `<store>:<version>`, or `<store>:files:<name>`
RETRY_SECONDS = 2.0  # how often a watcher that lost the database tries again


def driver():
    try:
        import psycopg
    except ImportError:
        raise StoreUnavailable("a PostgreSQL store needs the psycopg driver: pip install 'memtui[postgres]'") from None
    return psycopg


class Connections:
    def __init__(self, location: PgLocation) -> None:
        self.location = location
        self.conn = None  # the driver's connection (psycopg), made by the first write
        self.lean = None  # a turn's reads (pg_lean.py)
        self.side = None  # the driver's connection for a log's rows, where libpq is missing (query)
        self.no_libpq = False  # True once libpq proved missing here: the driver reads too
        self.watcher: ChangeWatcher | None = None
        self.lean_lock = threading.Lock()  # libpq's connection is one thread's at a time (the driver's locks itself)

    def connection(self):
        """The driver's connection (autocommit: each read its own statement), made on first use
        and again after one is lost. StoreUnavailable when the database cannot be reached."""
        conn = self.conn
        if conn is not None and not conn.closed and not conn.broken:
            return conn
        psycopg = driver()
        try:
            conn = psycopg.connect(self.location.conninfo, autocommit=True)
        except psycopg.Error as exc:
            raise self.unavailable(exc) from None
        self.conn = conn
        return conn

    def _side(self):
        """A driver connection of its own for `query(writing=True)` where libpq cannot be loaded."""
        conn = self.side
        if conn is not None and not conn.closed and not conn.broken:
            return conn
        psycopg = driver()
        try:
            self.side = psycopg.connect(self.location.conninfo, autocommit=True)
        except psycopg.Error as exc:
            raise self.unavailable(exc) from None
        return self.side

    def unavailable(self, exc: BaseException) -> StoreUnavailable:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        return StoreUnavailable(f"cannot reach the store's database {self.location.display}: "
                                f"{self.location.redact(first)}")

    def refused(self, message: str, writing: bool = False) -> StoreUnavailable:
        first = self.location.redact((message.splitlines() or ['permission denied'])[0])
        if writing:
            return StoreUnavailable(f"the database refused the write to {self.location.display}: {first}")
        return StoreUnavailable(f"the database refuses to show this store ({self.location.display}): {first}")

    def forget(self) -> None:
        conn, self.conn = self.conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception:
                pass

    def close(self) -> None:
        self.forget()
        if self.side is not None:
            self.side.close()
            self.side = None
        if self.lean is not None:
            self.lean.close()
            self.lean = None
        if self.watcher is not None:
            self.watcher.stop()
            self.watcher = None

    def query(self, sql: str, params: tuple = (), writing: bool = False) -> list[tuple]:
        """The rows of one statement (a read, or with `writing` one that writes outside a store's
        write, as a turn's injection log does); [] when the tables are not made yet (a store
        nobody wrote). A process that has not written goes through libpq directly (pg_lean.py: a
        turn does not pay for importing the driver); one that has, through its driver connection.
        A statement `writing` never shares the driver's connection, where another thread may be
        inside a write's transaction (it would join it): libpq's, else a driver connection of its own."""
        if (self.conn is None or writing) and not self.no_libpq:
            with self.lean_lock:
                rows = self._lean_query(sql, params, writing)
            if rows is not None:
                return rows
        psycopg = driver()
        conn = self._side() if writing else self.connection()
        try:
            return conn.execute(sql, params).fetchall()
        except psycopg.errors.UndefinedTable:
            return []
        except psycopg.OperationalError as exc:
            if writing:
                self.side, side = None, self.side
                if side is not None:
                    side.close()
            else:
                self.forget()
            raise self.unavailable(exc) from None
        except psycopg.errors.InsufficientPrivilege as exc:
            raise self.refused(str(exc), writing) from None

    def _lean_query(self, sql: str, params: tuple, writing: bool = False) -> list[tuple] | None:
        """`query` through pg_lean; None when libpq cannot be loaded here (then: the driver)."""
        from .pg_lean import LeanError, connect

        conn = self.lean
        try:
            if conn is None or conn.broken:
                if conn is not None:
                    conn.close()
                conn = self.lean = connect(self.location.conninfo)
                if conn is None:
                    self.no_libpq = True
                    return None
            return conn.query(sql, params)
        except LeanError as exc:
            if exc.sqlstate == "42P01":  # undefined_table
                return []
            if exc.sqlstate == "42501":  # insufficient_privilege
                raise self.refused(str(exc), writing) from None
            if self.lean is not None:
                self.lean.close()
            self.lean = None
            raise self.unavailable(exc) from None

    def watch(self) -> ChangeWatcher:
        if self.watcher is None:
            self.watcher = ChangeWatcher(self.location)
        return self.watcher


class ChangeWatcher:
    """A thread that LISTENs on the database for writes to the store: `token` changes with each
    one, and each time the connection is made (again), since writes may have been missed while
    it was lost. Reading `token` never touches the database, so a screen can look every second."""

    def __init__(self, location: PgLocation) -> None:
        self.location = location
        self.token = 0
        self.files_token = 0  # the same for the store's shared files (memtui_files: the probes)
        self.connected = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="memtui-listen", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        try:
            psycopg = driver()
        except StoreUnavailable:
            return
        store = self.location.store
        while not self._stop.is_set():
            try:
                with psycopg.connect(self.location.conninfo, autocommit=True) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self.connected = True
                    self.token += 1
                    self.files_token += 1
                    files = f"{store}:files:"
                    while not self._stop.is_set():
                        for note in conn.notifies(timeout=0.5):
                            if note.payload.startswith(files):
                                self.files_token += 1
                            elif note.payload.rpartition(":")[0] == store:
                                self.token += 1
            except Exception:  # down, unreachable, lost: try again shortly
                pass
            if self.connected:
                self.connected = False
                self.token += 1
                self.files_token += 1
            self._stop.wait(RETRY_SECONDS)
