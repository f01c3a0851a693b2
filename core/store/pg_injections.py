"""A database store's injection log: the table `memtui_injections`, shared by every machine.

The same lines as injections.jsonl (injections.py formats them: the query redacted, cut or
hashed, the entries by id, rank, score, characters and text hash), one row per injection, so
"what was my agent given on Tuesday", replay and usage are the same on every machine that reads
the store, whichever machine's agent was given it.

Writing stays on the per-turn path's terms:
- no driver: the row goes in on the connection the turn already has (libpq through pg_lean.py, or
  the driver's once the process wrote), as one statement, committed without waiting for the
  server's disk (`synchronous_commit` off for that statement alone: a server crash may lose the
  last fraction of a second of the log, never a memory);
- it never fails the turn: a missing table (a store nobody wrote yet, or made before this table
  existed: the next write makes it), a role that may not insert, a lost connection, each leaves
  `error` set and is told once, as a file log that cannot be written;
- retention as the file's: rows older than `injection_days` are deleted, and when the store's rows
  pass `injection_max_bytes` the oldest are deleted down to half of it (the file log drops its
  older half then). Checked every PRUNE_EVERY rows the database gains, not on every turn.
"""

from __future__ import annotations

import time

import orjson

from .injections import DAY, InjectionLog, _normalise

__all__ = ["PRUNE_EVERY", "PgInjectionLog", "TABLE"]

TABLE = "memtui_injections"
PRUNE_EVERY = 64  # rows (of any store in the database) between two retention checks of a store

_INSERT = (f"WITH quick AS (SELECT set_config('synchronous_commit', 'off', true)) "
           f"INSERT INTO {TABLE} (store, at, line) "
           f"SELECT %s, t.at, t.line FROM quick, unnest(%s::float8[], string_to_array(%s, chr(10))) AS t(at, line) "
           f"RETURNING seq")
_PRUNE = (f"DELETE FROM {TABLE} WHERE store = %s AND (at < %s OR seq <= (SELECT coalesce(max(seq), 0) FROM ("
          f"SELECT seq, sum(octet_length(line) + 1) OVER (ORDER BY seq DESC) AS newer, "
          f"sum(octet_length(line) + 1) OVER () AS total FROM {TABLE} WHERE store = %s) AS sized "
          f"WHERE total > %s AND newer > %s)) RETURNING seq")


class PgInjectionLog(InjectionLog):
    """InjectionLog over `memtui_injections` (see the module's docstring)."""

    def __init__(self, storage, limits, actor: str = "api") -> None:
        super().__init__(storage.dir, limits, actor)
        self.storage = storage
        self.path = f"{storage.location.display} (table {TABLE})"  # what messages name: no password
        self.rotated = None

    # ------------------------------------------------------------------ writing

    def _write(self, items: list) -> None:
        """The buffered injections, as one statement."""
        try:
            lines = [self._line(*item).rstrip(b"\n").decode("utf-8") for item in items]
            ats = "{" + ",".join(repr(round(item[0], 6)) for item in items) + "}"
            store = self.storage.location.store
            rows = self.storage.query(_INSERT, (store, ats, "\n".join(lines)), writing=True)
            if any(seq % PRUNE_EVERY == 0 for (seq,) in rows):
                self.prune()
        except Exception as exc:  # StoreUnavailable (refused, lost, unreachable) or a bug: never the turn's
            reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            self.error = f"injection log {self.path} not written: {reason}"
        else:
            self.error = None

    def prune(self) -> int:
        """Apply the retention rules now; how many rows went."""
        cap = self.limits.injection_max_bytes
        store = self.storage.location.store
        oldest = time.time() - self.limits.injection_days * DAY
        return len(self.storage.query(_PRUNE, (store, oldest, store, cap, cap // 2), writing=True))

    # ------------------------------------------------------------------ reading

    def read(self, since: float | None = None) -> tuple[list[dict], list[str]]:
        """The store's logged injections within the retention window (and after `since`), oldest
        first, each with `n`, its number in the log; and a note per corrupt row skipped. A store
        whose table is not made yet has none; a table this role may not read (or a database out
        of reach) is a note, as an unreadable file is."""
        from ..errors import StoreUnavailable

        self.flush()
        try:
            rows = self.storage.query(f"SELECT seq, at, line FROM {TABLE} WHERE store = %s ORDER BY at, seq",
                                      (self.storage.location.store,))
        except StoreUnavailable as exc:
            return [], [f"{TABLE}: cannot read ({(str(exc).splitlines() or ['refused'])[0]})"]
        lines: list[tuple[float, dict]] = []
        skipped: list[str] = []
        for seq, at, raw in rows:
            try:
                line = _normalise(orjson.loads(raw))
            except (orjson.JSONDecodeError, ValueError) as exc:
                skipped.append(f"{TABLE} row {seq}: {str(exc).splitlines()[0]}")
                continue
            lines.append((at, line))
        for n, (_at, line) in enumerate(lines, 1):
            line["n"] = n
        oldest = time.time() - self.limits.injection_days * DAY
        if since is not None:
            oldest = max(oldest, since)
        return [line for at, line in lines if at >= oldest and line["at"] >= oldest], skipped
