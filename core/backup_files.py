"""Backups: `backups/memory-<UTC stamp>[-n].json`, one per write, and their retention.

Pruning keeps the newest `backups_keep` backups plus the newest backup of each of the last
`backups_daily_days` UTC days. Listing, comparing and restoring for callers is in `backups.py`.
"""

from __future__ import annotations

import os
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import NamedTuple

from .errors import BackupNotFound
from . import fileio
from .fileio import atomic_write, read_file, stamp_time, utc_stamp
from .limits import Limits

__all__ = ["BACKUP_RE", "BackupName", "Backups"]

BACKUP_RE = re.compile(r"memory-(\d{8}T\d{6}\.\d{6}Z)(?:-(\d+))?\.json\Z")


class BackupName(NamedTuple):
    """A parsed backup file name: its UTC stamp and the suffix that keeps names unique."""

    stamp: str
    n: int

    @classmethod
    def parse(cls, name: object) -> BackupName | None:
        m = BACKUP_RE.match(name) if isinstance(name, str) else None
        return cls(m.group(1), int(m.group(2) or 0)) if m else None

    @property
    def day(self) -> str:
        return self.stamp[:8]

    @property
    def at(self) -> float:
        return stamp_time(self.stamp)


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

    def path(self, name: str) -> Path:
        if not isinstance(name, str) or "/" in name or "\\" in name or BackupName.parse(name) is None:
            raise BackupNotFound(name, "not a backup name")
        path = self.dir / name
        if not path.is_file():
            raise BackupNotFound(name)
        return path

    def read(self, name: str) -> bytes:
        return read_file(self.dir / name)

    def write(self, data: bytes) -> str:
        """Keep `data` (the file about to be replaced) as a backup and prune old ones; returns its
        name. Every write gets its own backup, stamped after every event already logged."""
        self.dir.mkdir(mode=0o700, exist_ok=True)
        stamp = utc_stamp()
        name = f"memory-{stamp}.json"
        suffix = 0
        while (self.dir / name).exists():
            suffix += 1
            name = f"memory-{stamp}-{suffix}.json"
        atomic_write(self.dir / name, data)
        self.prune()
        return name

    def prune(self) -> None:
        parsed = self.parsed()
        names = [name for name, _key in parsed]
        keep = set(names[: self.limits.backups_keep])
        today = datetime.fromtimestamp(fileio.now(), tz=timezone.utc).date()
        oldest_day = (today - timedelta(days=self.limits.backups_daily_days - 1)).strftime("%Y%m%d")
        seen_days: set[str] = set()
        for name, key in parsed:  # newest first, so the first of each day is that day's newest
            day = key.day
            if day not in seen_days:
                seen_days.add(day)
                if day >= oldest_day:
                    keep.add(name)
        for name in names:
            if name not in keep:
                try:
                    (self.dir / name).unlink()
                except FileNotFoundError:
                    pass
