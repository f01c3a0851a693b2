"""The audit log: `audit.jsonl`, one JSON event per line, appended in batches under the lock.

Each batch ends with `file_sha`, the hash of memory.json after it: the chain that ties the log to
the file and its backups (see `recovery.py`). Past `audit_max_bytes` the log becomes
`audit.jsonl.1` and a new one starts; `lines()` reads both.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from . import fileio
from .fileio import digest, open_regular, read_file, write_all
from ..limits import Limits
from .records import dumps

__all__ = ["AUDIT_NAME", "AuditLog", "Event"]

AUDIT_NAME = "audit.jsonl"

Event = dict  # an audit event as written: at, actor, op, id, before, after, note, ...


class AuditLog:
    def __init__(self, path: Path, limits: Limits) -> None:
        self.path = path
        self.rotated_path = path.with_name(path.name + ".1")
        self.limits = limits
        self._cache: tuple[tuple, list[dict]] | None = None

    def batch(self, events: list[Event], actor: str, file_after: bytes | None) -> bytes:
        """One line per event; the last carries `file_sha`, the hash of memory.json after them."""
        at = fileio.now()
        lines = []
        for n, event in enumerate(events, 1):
            record = {"at": at, "actor": event.get("actor") or actor, "op": event["op"], "id": event.get("id"),
                      "before": event.get("before"), "after": event.get("after")}
            for key, value in event.items():
                if key not in record and value is not None:
                    record[key] = value
            if n == len(events) and file_after is not None:
                record["file_sha"] = digest(file_after)
            lines.append(dumps(record) + b"\n")
        return b"".join(lines)

    def open(self) -> tuple[int, bytes]:
        """Rotate the log if it is due, open it for appending; returns the descriptor and what must
        precede the next batch (a newline if a writer died in the middle of a line)."""
        self._rotate()
        fd = open_regular(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND)
        try:
            size = os.fstat(fd).st_size
            torn = size > 0 and os.pread(fd, 1, size - 1) != b"\n"
        except OSError:
            os.close(fd)
            raise
        return fd, b"\n" if torn else b""

    @staticmethod
    def write(fd: int, prefix: bytes, batch: bytes) -> None:
        """One write() on an O_APPEND descriptor, then fsync."""
        write_all(fd, prefix + batch)
        os.fsync(fd)

    def append(self, events: list[Event], actor: str, file_after: bytes | None) -> None:
        """Append one batch, under the lock."""
        if not events:
            return
        batch = self.batch(events, actor, file_after)
        fd, prefix = self.open()
        try:
            self.write(fd, prefix, batch)
        finally:
            os.close(fd)

    def _rotate(self) -> None:
        try:
            size = os.path.getsize(self.path)
        except FileNotFoundError:
            return
        if size > self.limits.audit_max_bytes:
            os.replace(self.path, self.rotated_path)

    def last_logged_state(self) -> tuple[str, float] | None:
        """`file_sha` and `at` of the newest audit batch, if the end of the log holds them."""
        try:
            fd = open_regular(self.path)
        except OSError:
            return None
        try:
            size = os.fstat(fd).st_size
            tail = os.pread(fd, self.limits.audit_tail_bytes, max(0, size - self.limits.audit_tail_bytes))
        except OSError:
            return None
        finally:
            os.close(fd)
        for line in reversed(tail.splitlines()):
            try:
                event = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if not isinstance(event, dict):
                continue
            sha, at = event.get("file_sha"), event.get("at")
            if isinstance(sha, str) and isinstance(at, (int, float)):
                return sha, float(at)
            return None
        return None

    def logged_states(self) -> set[str]:
        """The hash of every memory.json a logged batch left (each batch's `file_sha`): the states
        the log vouches memtui wrote."""
        return {event["file_sha"] for event in self.lines() if isinstance(event.get("file_sha"), str)}

    def lines(self) -> list[dict]:
        """Every readable event, oldest first (the rotated file, then the current one). Cached
        while neither file changes."""
        paths = (self.rotated_path, self.path)
        key = []
        for path in paths:
            try:
                st = os.stat(path)
                key.append((st.st_ino, st.st_size, st.st_mtime_ns))
            except OSError:
                key.append(None)
        cached = self._cache
        if cached is not None and cached[0] == tuple(key):
            return list(cached[1])
        events: list[dict] = []
        for path in paths:
            try:
                data = read_file(path)
            except OSError:
                continue
            for line in data.splitlines():
                try:
                    event = orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue  # a torn line from a crash; the rest stays readable
                if isinstance(event, dict) and "op" in event:
                    events.append(event)
        self._cache = (tuple(key), events)
        return list(events)
