"""The one way memory.json changes: lock, read, change, back up, replace atomically, audit.

Reads take no lock (an atomic replace means a reader sees the old file or the new one, never
half of each) and are cached per file state (inode, size, mtime), so a warm read is one stat().
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

import orjson

from .errors import BackupNotFound, LockTimeout, StoreUnwritable
from .limits import DEFAULT_LIMITS, Limits
from .records import Corrupt, Document, parse_document

__all__ = ["Storage", "Recovery", "AUDIT_NAME", "FILE_NAME"]

FILE_NAME = "memory.json"
AUDIT_NAME = "audit.jsonl"
BACKUP_RE = re.compile(r"memory-(\d{8}T\d{6}\.\d{6}Z)(?:-(\d+))?\.json\Z")

Event = dict  # an audit event as written: at, actor, op, id, before, after, note
Mutation = Callable[[Document], list[Event]]


def utc_stamp(at: float | None = None) -> str:
    moment = datetime.fromtimestamp(time.time() if at is None else at, tz=timezone.utc)
    return moment.strftime("%Y%m%dT%H%M%S.%fZ")


def stamp_time(stamp: str) -> float:
    return datetime.strptime(stamp, "%Y%m%dT%H%M%S.%fZ").replace(tzinfo=timezone.utc).timestamp()


class Recovery:
    """What happened when a corrupt file was found: where it went and what replaced it."""

    __slots__ = ("quarantined", "error", "restored_from", "at")

    def __init__(self, quarantined: Path, error: str, restored_from: str | None, at: float) -> None:
        self.quarantined = quarantined
        self.error = error
        self.restored_from = restored_from
        self.at = at


class Storage:
    def __init__(self, directory: Path, limits: Limits = DEFAULT_LIMITS) -> None:
        self.dir = directory
        self.limits = limits
        self.path = directory / FILE_NAME
        self.lock_path = directory / (FILE_NAME + ".lock")
        self.backups_dir = directory / "backups"
        self.audit_path = directory / AUDIT_NAME
        self._cache_key: tuple | None = None
        self._cache_doc: Document | None = None
        self.recovery: Recovery | None = None  # set when this process quarantined a corrupt file
        self.read_error: str | None = None  # set when the last read could not produce a document

    # ------------------------------------------------------------------ reading

    def state(self) -> tuple | None:
        """A cheap token that changes whenever any process replaces the file."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    def load(self) -> Document:
        """The current document (cached while the file is unchanged). Never raises for a missing
        file; a corrupt one is quarantined and recovered under the lock when that is possible."""
        key = self.state()
        if key is not None and key == self._cache_key and self._cache_doc is not None:
            return self._cache_doc
        if key is None:
            self._remember(None, Document())
            return self._cache_doc  # type: ignore[return-value]
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return self.load()
        except OSError as exc:
            self.read_error = f"cannot read {self.path}: {exc.strerror or exc}"
            return Document()
        try:
            doc = parse_document(data)
        except Corrupt:
            try:
                return self.transact(lambda doc: [])[0]
            except Exception as exc:  # read-only directory, lock held too long, ...
                self.read_error = f"{self.path} is corrupt and could not be recovered now: {exc}"
                return Document()
        self.read_error = None
        self._remember(key, doc)
        return doc

    def _remember(self, key: tuple | None, doc: Document) -> None:
        self._cache_key = key
        self._cache_doc = doc

    # ------------------------------------------------------------------ writing

    def _lock(self):
        from filelock import FileLock

        return FileLock(str(self.lock_path), timeout=self.limits.lock_timeout, mode=0o600)

    def ensure_dir(self) -> None:
        try:
            self.dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreUnwritable(f"cannot create store directory {self.dir}: {exc.strerror or exc}") from None
        if not self.dir.is_dir():
            raise StoreUnwritable(f"store path {self.dir} is not a directory")
        if not os.access(self.dir, os.W_OK | os.X_OK):
            raise StoreUnwritable(f"store directory {self.dir} is not writable")

    def transact(self, mutate: Mutation, actor: str = "api") -> tuple[Document, list[Event]]:
        """Run `mutate` on the newest document under the lock. If it returns events, the old file
        is backed up, the new one replaces it atomically and the events are appended to the audit
        log. Returns the resulting document and the events written."""
        from filelock import Timeout

        self.ensure_dir()
        try:
            with self._lock():
                return self._transact_locked(mutate, actor)
        except Timeout:
            raise LockTimeout(
                f"store is locked by another writer (waited {self.limits.lock_timeout:g}s): {self.lock_path}"
            ) from None
        except PermissionError as exc:
            raise StoreUnwritable(f"cannot write to {self.dir}: {exc.strerror or exc}") from None

    def _transact_locked(self, mutate: Mutation, actor: str) -> tuple[Document, list[Event]]:
        events: list[Event] = []
        try:
            current = self.path.read_bytes()
        except FileNotFoundError:
            current = None
        if current is None:
            doc = Document()
        else:
            try:
                doc = parse_document(current)
            except Corrupt as exc:
                doc, current, recovery_events = self._quarantine(str(exc), actor)
                events += recovery_events
        changes = mutate(doc)
        if changes:
            if current is not None:
                self._backup(current)
            self._atomic_write(self.path, doc.to_bytes())
            events += changes
        if events:
            self._append_audit(events, actor)
        self._remember(self.state(), doc)
        return doc, events

    def _quarantine(self, error: str, actor: str) -> tuple[Document, bytes | None, list[Event]]:
        """Move the corrupt file aside (never overwrite it) and bring back the newest valid backup."""
        now = time.time()
        broken = self.dir / f"{FILE_NAME}.broken-{utc_stamp(now)}"
        os.rename(self.path, broken)
        _fsync_dir(self.dir)
        events: list[Event] = [
            {"op": "quarantine", "id": None, "before": None, "after": None, "note": f"{broken.name}: {error}"}
        ]
        restored_from = None
        doc, data = Document(), None
        for name in self._backup_names():
            try:
                candidate = (self.backups_dir / name).read_bytes()
                doc = parse_document(candidate)
            except (OSError, Corrupt):
                continue
            self._atomic_write(self.path, candidate)
            restored_from, data = name, candidate
            events.append(
                {
                    "op": "restore",
                    "id": None,
                    "before": None,
                    "after": None,
                    "note": f"recovered from {name} after quarantining {broken.name}",
                }
            )
            break
        self.recovery = Recovery(broken, error, restored_from, now)
        return doc, data, events

    def _atomic_write(self, target: Path, data: bytes) -> None:
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, target)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        _fsync_dir(target.parent)

    # ------------------------------------------------------------------ backups

    def _backup(self, data: bytes) -> str:
        self.backups_dir.mkdir(mode=0o700, exist_ok=True)
        stamp = utc_stamp()
        name = f"memory-{stamp}.json"
        suffix = 0
        while (self.backups_dir / name).exists():
            suffix += 1
            name = f"memory-{stamp}-{suffix}.json"
        self._atomic_write(self.backups_dir / name, data)
        self._prune_backups()
        return name

    def _backup_names(self) -> list[str]:
        """Backup file names, newest first."""
        try:
            names = [p.name for p in self.backups_dir.iterdir() if BACKUP_RE.match(p.name)]
        except FileNotFoundError:
            return []

        def key(name: str) -> tuple[str, int]:
            m = BACKUP_RE.match(name)
            assert m
            return (m.group(1), int(m.group(2) or 0))

        return sorted(names, key=key, reverse=True)

    def _prune_backups(self) -> None:
        names = self._backup_names()
        keep = set(names[: self.limits.backups_keep])
        today = datetime.now(timezone.utc).date()
        oldest_day = today - timedelta(days=self.limits.backups_daily_days - 1)
        seen_days: set[str] = set()
        for name in names:  # newest first, so the first of each day is that day's newest
            stamp = BACKUP_RE.match(name).group(1)  # type: ignore[union-attr]
            day = stamp[:8]
            if day in seen_days:
                continue
            seen_days.add(day)
            if datetime.strptime(day, "%Y%m%d").date() >= oldest_day:
                keep.add(name)
        for name in names:
            if name not in keep:
                try:
                    (self.backups_dir / name).unlink()
                except FileNotFoundError:
                    pass

    def backup_names(self) -> list[str]:
        return self._backup_names()

    def backup_path(self, name: str) -> Path:
        if not isinstance(name, str) or "/" in name or "\\" in name or not BACKUP_RE.match(name):
            raise BackupNotFound(name, "not a backup name")
        path = self.backups_dir / name
        if not path.is_file():
            raise BackupNotFound(name)
        return path

    # ------------------------------------------------------------------ audit

    def _append_audit(self, events: list[Event], actor: str) -> None:
        now = time.time()
        lines = []
        for event in events:
            record = {"at": now, "actor": actor, "op": event["op"], "id": event.get("id"),
                      "before": event.get("before"), "after": event.get("after")}
            for key, value in event.items():
                if key not in record and value is not None:
                    record[key] = value
            lines.append(orjson.dumps(record) + b"\n")
        self._rotate_audit()
        fd = os.open(self.audit_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "ab") as fh:
            fh.write(b"".join(lines))
            fh.flush()
            os.fsync(fh.fileno())

    def _rotate_audit(self) -> None:
        try:
            size = os.path.getsize(self.audit_path)
        except FileNotFoundError:
            return
        if size > self.limits.audit_max_bytes:
            os.replace(self.audit_path, self.audit_path.with_name(AUDIT_NAME + ".1"))

    def audit_lines(self) -> list[dict]:
        """Every readable audit event, oldest first (the rotated file, then the current one)."""
        events: list[dict] = []
        for path in (self.audit_path.with_name(AUDIT_NAME + ".1"), self.audit_path):
            try:
                data = path.read_bytes()
            except OSError:
                continue
            for line in data.splitlines():
                try:
                    event = orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue  # a torn last line from a crash; the rest stays readable
                if isinstance(event, dict) and "op" in event:
                    events.append(event)
        return events


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
