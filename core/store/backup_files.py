"""Backups: `backups/memory-<UTC stamp>-s<sequence>[-removal].json`, one per write, and their retention.

The sequence number orders backups: it grows by one with every backup, under the lock, so a
clock that was wrong (a day ahead, say) cannot make an older state look newer. Names without a
sequence (written by earlier versions, `memory-<stamp>[-n].json`) count as older than every
numbered one and are ordered by their stamp. `-removal` marks the state before a write that
removed entries: kept for the retention period whatever the number of writes after it, so what
was deleted stays restorable even when an agent re-saves the same memory over and over.

Pruning keeps the newest `backups_keep` backups, the newest backup of each of the last
`backups_daily_days` UTC days, and every `-removal` backup of those days. Anything else in
backups/ is not a backup: it is skipped, reported (`junk()`) and never deleted.
Listing, comparing and restoring for callers is in `backups.py`.
"""

from __future__ import annotations

import functools
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path
from collections import namedtuple

from ..errors import BackupNotFound
from . import fileio
from .fileio import TEMP_RE, atomic_write, read_file, stamp_time, utc_stamp
from ..lazy_re import lazy_pattern
from ..limits import Limits

__all__ = ["BACKUP_RE", "BackupName", "Backups", "kept"]

BACKUP_RE = lazy_pattern(r"memory-(\d{8}T\d{6}\.\d{6}Z)(?:-(\d+))?(?:-s(\d+))?(-removal)?\.json\Z")


class BackupName(namedtuple("BackupName", "seq stamp n removal")):
    """A parsed backup file name. Tuples order oldest first: by sequence, then stamp, then suffix."""

    __slots__ = ()
    seq: int
    stamp: str
    n: int
    removal: bool

    @classmethod
    def parse(cls, name: object) -> BackupName | None:
        return _parse(name) if isinstance(name, str) else None

    @property
    def day(self) -> str:
        return self.stamp[:8]

    @property
    def at(self) -> float:
        return stamp_time(self.stamp)


@functools.lru_cache(maxsize=4096)  # every write lists backups/ twice: parse each name once
def _parse(name: str) -> BackupName | None:
    m = BACKUP_RE.match(name)
    if m is None:
        return None
    try:
        stamp_time(m.group(1))  # a stamp that is no date (month 99) is not a backup memtui wrote
    except ValueError:
        return None
    return BackupName(int(m.group(3) or 0), m.group(1), int(m.group(2) or 0), bool(m.group(4)))


class Backups:
    def __init__(self, directory: Path, limits: Limits) -> None:
        self.dir = directory
        self.limits = limits

    def parsed(self) -> list[tuple[str, BackupName]]:
        """(file name, parsed name) of every backup, newest first."""
        try:
            listing = os.listdir(self.dir)
        except OSError:
            return []
        found = []
        for name in listing:
            key = BackupName.parse(name)
            if key is not None:
                found.append((name, key))
        return sorted(found, key=lambda item: item[1], reverse=True)

    def names(self) -> list[str]:
        """Backup file names, newest first."""
        return [name for name, _key in self.parsed()]

    def junk(self) -> list[str]:
        """Files in backups/ that are not backups memtui wrote (skipped by listing and recovery)."""
        try:
            listing = os.listdir(self.dir)
        except OSError:
            return []
        return sorted(name for name in listing if BackupName.parse(name) is None and not TEMP_RE.match(name))

    def path(self, name: str) -> Path:
        if not isinstance(name, str) or "/" in name or "\\" in name or BackupName.parse(name) is None:
            raise BackupNotFound(name, "not a backup name")
        path = self.dir / name
        if not path.is_file():
            raise BackupNotFound(name)
        return path

    def read(self, name: str) -> bytes:
        return read_file(self.dir / name)

    def write(self, data: bytes, removal: bool = False) -> str:
        """Keep `data` (the file about to be replaced) as a backup and prune old ones; returns its
        name. Every write gets its own backup, numbered after every backup there is. `removal`:
        the write removes entries that `data` holds."""
        self.dir.mkdir(mode=0o700, exist_ok=True)
        parsed = self.parsed()
        seq = (parsed[0][1].seq if parsed else 0) + 1
        name = f"memory-{utc_stamp()}-s{seq}{'-removal' if removal else ''}.json"
        atomic_write(self.dir / name, data)
        self.prune()
        return name

    def prune(self) -> None:
        names = [name for name, _key in self.parsed()]
        keep = kept(self.parsed(), self.limits)
        for name in names:
            if name not in keep:
                try:
                    (self.dir / name).unlink()
                except FileNotFoundError:
                    pass

    def where(self, name: str) -> str:
        """Where the backup `name` is, as shown to people."""
        return str(self.dir / name)

    def read_named(self, name: str) -> bytes:
        """The bytes of the backup `name` (BackupNotFound: no such backup); OSError if unreadable."""
        return read_file(self.path(name))


def kept(parsed: list[tuple[str, BackupName]], limits: Limits) -> set[str]:
    """The backups retention keeps, of `parsed` (newest first): the newest `backups_keep`, the
    newest of each of the last `backups_daily_days` UTC days, and every removal backup of those
    days. Shared by the folder's backups and a database's (pg_storage.py)."""
    names = [name for name, _key in parsed]
    keep = set(names[: limits.backups_keep])
    today = datetime.fromtimestamp(fileio.now(), tz=timezone.utc).date()
    oldest_day = (today - timedelta(days=limits.backups_daily_days - 1)).strftime("%Y%m%d")
    seen_days: set[str] = set()
    for name, key in parsed:  # newest first, so the first of each day is that day's newest
        day = key.day
        if day >= oldest_day and (key.removal or day not in seen_days):
            keep.add(name)
        seen_days.add(day)
    return keep
