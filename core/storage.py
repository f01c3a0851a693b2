"""The one way memory.json changes: lock, read, change, back up, replace atomically, audit.

Reads take no lock (an atomic replace means a reader sees the old file or the new one, never
half of each) and are cached per file state (inode, size, mtime), so a warm read is one stat().

Every temporary file is created under the lock, so a temporary file found while holding the lock
was left by a writer that died: it is removed. A corrupt file is never written over: it is moved
aside to `memory.json.broken-<stamp>` and the newest backup that parses takes its place.

Each audit batch ends with `file_sha`, the hash of the file it left. That hash ties the log to the
backups: a change whose writer died after the replace but before the append is logged late by the
next writer (the backups hold the states in between), and recovery from a corrupt file brings the
newest backup forward with the changes logged since -- only if the result has exactly that hash.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

import orjson

from .errors import BackupNotFound, LockTimeout, StoreUnwritable
from . import derived
from .limits import DEFAULT_LIMITS, Limits
from .records import Corrupt, Document, dumps, parse_document

__all__ = ["Storage", "Recovery", "AUDIT_NAME", "FILE_NAME", "BROKEN_PREFIX"]

FILE_NAME = "memory.json"
AUDIT_NAME = "audit.jsonl"
BROKEN_PREFIX = FILE_NAME + ".broken-"
BACKUP_RE = re.compile(r"memory-(\d{8}T\d{6}\.\d{6}Z)(?:-(\d+))?\.json\Z")
TEMP_RE = re.compile(r"\..+\.\d+\.\d+\.[0-9a-f]{8}\.tmp\Z")

Event = dict  # an audit event as written: at, actor, op, id, before, after, note
Mutation = Callable[[Document], list[Event]]


def now() -> float:
    """The clock every stamp and retention decision reads (one place to fake it in tests)."""
    return time.time()


def utc_stamp(at: float | None = None) -> str:
    moment = datetime.fromtimestamp(now() if at is None else at, tz=timezone.utc)
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
    def __init__(self, directory: Path, limits: Limits = DEFAULT_LIMITS, actor: str = "api") -> None:
        self.dir = directory
        self.limits = limits
        self.actor = actor  # recorded when a read has to quarantine a corrupt file
        self.path = directory / FILE_NAME
        self.lock_path = directory / (FILE_NAME + ".lock")
        self.backups_dir = directory / "backups"
        self.audit_path = directory / AUDIT_NAME
        # (state, document) of the last read, swapped as one value so threads never pair them wrongly
        self._cache: tuple[tuple | None, Document] | None = None
        self._audit_cache: tuple[tuple, list[dict]] | None = None
        self.recovery: Recovery | None = None  # set when this process quarantined a corrupt file
        self.read_error: str | None = None  # set when the last read could not show the file as it is
        self.audit_error: str | None = None  # set when this process saved a change it could not log

    # ------------------------------------------------------------------ reading

    def state(self) -> tuple | None:
        """A cheap token that changes whenever any process replaces the file (None: no file)."""
        try:
            st = os.stat(self.path)
        except (FileNotFoundError, NotADirectoryError):
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    def load(self) -> Document:
        """The current document, cached while the file is unchanged. Never raises and never waits
        for the lock. A corrupt file is quarantined and recovered at once when the lock is free;
        otherwise the newest valid backup is shown (not written) and `read_error` says why."""
        try:
            key = self.state()
        except OSError as exc:
            self.read_error = f"cannot read {self.path}: {exc.strerror or exc}"
            return Document()
        cached = self._cache
        if cached is not None and key is not None and cached[0] == key:
            return cached[1]
        if key is None:
            doc = Document()
            self.read_error = None
            self._cache = (None, doc)
            return doc
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return self.load()
        except OSError as exc:
            self.read_error = f"cannot read {self.path}: {exc.strerror or exc}"
            return Document()
        try:
            doc = derived.parse(self, data)
        except Corrupt as error:
            return self._load_corrupt(str(error))
        self.read_error = None
        self._cache = (key, doc)
        return doc

    def _load_corrupt(self, error: str) -> Document:
        try:
            doc, _events = self.transact(lambda doc: [], self.actor, timeout=0)
        except Exception as exc:  # the lock is busy, the directory is read-only, ...
            why = str(exc) or type(exc).__name__
        else:
            self.read_error = None
            return doc
        candidate = self._recovery_candidate()
        if candidate is not None:
            name, _data, doc, _replayed = candidate
            self.read_error = f"{self.path} is corrupt ({error}) and not yet recovered ({why}); showing backup {name}"
            return doc
        self.read_error = f"{self.path} is corrupt ({error}) and not yet recovered ({why}); no backup to show"
        return Document()

    # ------------------------------------------------------------------ writing

    def _lock(self, timeout: float):
        from filelock import FileLock

        # a short poll: under contention a waiter notices a released lock within a few ms
        return FileLock(str(self.lock_path), timeout=timeout, mode=0o600, poll_interval=0.005)

    def ensure_dir(self) -> None:
        try:
            self.dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreUnwritable(f"cannot create store directory {self.dir}: {exc.strerror or exc}") from None
        if not self.dir.is_dir():
            raise StoreUnwritable(f"store path {self.dir} is not a directory")
        if not os.access(self.dir, os.W_OK | os.X_OK):
            raise StoreUnwritable(f"store directory {self.dir} is not writable")

    def transact(
        self, mutate: Mutation, actor: str = "api", *, timeout: float | None = None, info: dict | None = None
    ) -> tuple[Document, list[Event]]:
        """Run `mutate` on the newest document under the lock. If it returns events, the old file
        is backed up, the new one replaces it atomically and the events are appended to the audit
        log. Returns the resulting document and the events written. `info["backup"]` receives the
        name of the backup holding the file as it was before (None if there was no file)."""
        from filelock import Timeout

        wait = self.limits.lock_timeout if timeout is None else timeout
        self.ensure_dir()
        try:
            with self._lock(wait):
                return self._transact_locked(mutate, actor, info if info is not None else {})
        except Timeout:
            raise LockTimeout(
                f"store is locked by another writer (waited {wait:g}s); nothing was written: {self.lock_path}"
            ) from None
        except OSError as exc:
            where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
            raise StoreUnwritable(f"cannot write to {self.dir}: {exc.strerror or exc}{where}") from None

    def _transact_locked(self, mutate: Mutation, actor: str, info: dict) -> tuple[Document, list[Event]]:
        self._remove_stale_temps()
        info["backup"] = None
        prelude: list[Event] = []  # what happened before this change: a recovery, or a change logged late
        unlogged: list[Event] = []  # prelude events not yet in the audit log
        changes: list[Event] = []
        try:
            try:
                current: bytes | None = self.path.read_bytes()
            except FileNotFoundError:
                current = None
            doc = Document()
            if current is not None:
                try:
                    doc = derived.parse(self, current)
                except Corrupt as exc:
                    doc, current, prelude = self._quarantine(current, str(exc))
                else:
                    prelude = self._unlogged_change(current, doc)
            unlogged = prelude
            imports = _import_events(doc)  # what this write will store differently from how it was read
            changes = list(mutate(doc) or ())
            if changes and imports:
                changes = imports + changes
            if changes:
                data = doc.to_bytes()
                if current is not None:
                    info["backup"] = self._backup(current)
                batch = self._audit_batch(prelude + changes, actor, data)  # stamped after the backup
                fd, prefix = self._open_audit()
                try:
                    self._atomic_write(self.path, data, sync_dir=False)
                    unlogged = []
                    # straight after the replace: a writer killed in between leaves the change without
                    # its events, and the next write logs them late (see _unlogged_change)
                    try:
                        _write_all(fd, prefix + batch)
                        os.fsync(fd)
                    except OSError as exc:
                        # The change is saved; only its events are not. Reporting "not saved" would be
                        # false and invite a retry, so the next write logs them late, as after a crash.
                        self.audit_error = (
                            f"a change was saved but its audit events could not be written "
                            f"({exc.strerror or exc}); the next write logs them"
                        )
                    else:
                        self.audit_error = None
                finally:
                    os.close(fd)
                _fsync_dir(self.dir)
                # the derived index of what was just written, refreshed while the lock is held
                doc.key, doc.derived = derived.content_key(data), None
                try:
                    derived.ensure(self, doc)
                except Exception:  # an optimisation only: the change is saved, the next reader derives it
                    doc.derived = None
        except BaseException:
            if unlogged:  # the recovery happened even though the change did not
                try:
                    self._append_audit(unlogged, actor, current)
                except OSError:
                    pass
            raise
        if unlogged:
            self._append_audit(unlogged, actor, current)
        self._cache = (self.state(), doc)
        return doc, prelude + changes

    def _unlogged_change(self, current: bytes, doc: Document) -> list[Event]:
        """Events for changes that reached memory.json without reaching the audit log.

        Every batch records the hash of the file it left behind. A writer that dies between
        replacing the file and appending its events leaves a file that differs from that hash, and
        a backup, taken after the last batch, holding exactly the logged state; each newer backup is
        a state some later writer replaced, also unlogged. Their differences, by id, are logged now.
        A file changed by another program has no such backup and is not reconstructed."""
        logged = self._last_logged_state()
        if logged is None or _digest(current) == logged[0]:
            return []
        sha, logged_at = logged
        chain: list[bytes] = []
        try:
            for name in self._backup_names()[: self.limits.backups_keep]:
                if stamp_time(BACKUP_RE.match(name).group(1)) < logged_at:  # type: ignore[union-attr]
                    return []
                data = (self.backups_dir / name).read_bytes()
                chain.append(data)
                if _digest(data) == sha:
                    break
            else:
                return []
            states = [parse_document(data) for data in reversed(chain)] + [doc]
        except (OSError, Corrupt, ValueError):
            return []
        events: list[Event] = []
        for older, newer in zip(states, states[1:]):
            events += _diff_events(older, newer)
        return events

    def _last_logged_state(self) -> tuple[str, float] | None:
        """`file_sha` and `at` of the newest audit batch, if the end of the log holds them."""
        try:
            with open(self.audit_path, "rb") as fh:
                size = fh.seek(0, os.SEEK_END)
                fh.seek(max(0, size - 65536))
                tail = fh.read()
        except OSError:
            return None
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

    def _quarantine(self, data: bytes, error: str) -> tuple[Document, bytes | None, list[Event]]:
        """Move the corrupt file aside (never overwrite it) and bring back the newest valid backup,
        with the changes logged since it when they rebuild the last logged state exactly."""
        at = now()
        broken = self._free_name(self.dir, f"{BROKEN_PREFIX}{utc_stamp(at)}")
        os.rename(self.path, broken)
        _fsync_dir(self.dir)
        events: list[Event] = [
            {"op": "quarantine", "id": None, "before": None, "after": None,
             "note": f"{broken.name}: {error}", "file": broken.name, "error": error, "size": len(data)}
        ]
        restored_from = None
        doc, restored = Document(), None
        candidate = self._recovery_candidate()
        if candidate is not None:
            restored_from, restored, doc, replayed = candidate
            try:
                self._atomic_write(self.path, restored)
            except BaseException:
                os.rename(broken, self.path)  # put it back rather than leave no file: the next read retries
                _fsync_dir(self.dir)
                raise
            note = f"recovered from {restored_from}"
            if restored_from == AUDIT_NAME:
                note = f"rebuilt from {AUDIT_NAME} ({replayed} change{'s' if replayed != 1 else ''} replayed)"
            elif replayed:
                note += f" and {replayed} change{'s' if replayed != 1 else ''} logged since"
            events.append(
                {"op": "restore", "id": None, "before": None, "after": None,
                 "note": f"{note} after quarantining {broken.name}",
                 "backup": restored_from, "replayed": replayed, "quarantined": broken.name}
            )
        self.recovery = Recovery(broken, error, restored_from, at)
        return doc, restored, events

    def _recovery_candidate(self) -> tuple[str, bytes, Document, int] | None:
        """What should replace a corrupt file: (backup name, bytes, document, changes replayed).
        The newest backup that parses, brought forward by the audit events logged after it when
        they rebuild, byte for byte, the file the last logged write left (its `file_sha`)."""
        for name in self._backup_names():
            try:
                data = (self.backups_dir / name).read_bytes()
                doc = parse_document(data)
            except (OSError, Corrupt):
                continue
            replayed = self._replay_logged(name, data)
            if replayed is not None:
                return (name, *replayed)
            return name, data, doc, 0
        # No backup at all (the file was corrupted before its second write, or every backup is
        # damaged): the whole audit log, replayed from an empty store, may still rebuild it exactly.
        replayed = self._replay_logged(None, Document().to_bytes())
        if replayed is not None and replayed[2]:
            return (AUDIT_NAME, *replayed)
        return None

    def _replay_logged(self, name: str | None, data: bytes) -> tuple[bytes, Document, int] | None:
        """`data` (backup `name`, or an empty store when None) brought forward by the audit events
        logged since, if that rebuilds the last logged file exactly; None otherwise."""
        logged = self._last_logged_state()
        if logged is None or _digest(data) == logged[0]:
            return None
        # events stamped after the backup was taken (the margin absorbs float rounding of the stamp)
        since = float("-inf") if name is None else stamp_time(BACKUP_RE.match(name).group(1)) - 1e-5  # type: ignore[union-attr]
        events = [e for e in self.audit_lines() if isinstance(e.get("at"), (int, float)) and e["at"] >= since]
        try:
            doc = parse_document(data)
            moved_away = False  # a quarantine event not yet followed by its recovery
            for event in events:  # replaying an event the backup already holds changes nothing
                if event.get("op") == "quarantine":
                    moved_away = True
                    continue
                if event.get("op") == "restore" and event.get("quarantined"):
                    moved_away = False
                    if not event.get("replayed"):  # the recovery fell back to the backup as it was
                        doc = parse_document(self.backup_path(event["backup"]).read_bytes())
                    continue  # otherwise it rebuilt the state replayed so far
                if moved_away:
                    doc, moved_away = Document(), False
                doc = _apply_event(self, doc, event)
            if moved_away:
                doc = Document()
        except (OSError, Corrupt, KeyError, TypeError, ValueError):
            return None
        rebuilt = doc.to_bytes()
        if _digest(rebuilt) != logged[0]:
            return None
        changed = sum(1 for e in events if e.get("id"))
        return rebuilt, parse_document(rebuilt), changed

    @staticmethod
    def _free_name(directory: Path, name: str) -> Path:
        """`name`, or `name-1`, `name-2`, ... : never an existing file (a rename would replace it)."""
        candidate, n = directory / name, 0
        while os.path.lexists(candidate):
            n += 1
            candidate = directory / f"{name}-{n}"
        return candidate

    def _atomic_write(self, target: Path, data: bytes, sync_dir: bool = True) -> None:
        # unique per call: threads of one process and dead writers' leftovers never collide
        import secrets

        tmp = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.{secrets.token_hex(4)}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            try:
                _write_all(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, target)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        if sync_dir:
            _fsync_dir(target.parent)

    def _remove_stale_temps(self) -> None:
        """Called under the lock: any temporary file now present belongs to a writer that died."""
        for directory in (self.dir, self.backups_dir):
            try:
                names = os.listdir(directory)
            except OSError:
                continue
            for name in names:
                if TEMP_RE.match(name):
                    try:
                        os.unlink(directory / name)
                    except OSError:
                        pass

    # ------------------------------------------------------------------ backups

    def _backup(self, data: bytes) -> str:
        """Keep `data` (the file about to be replaced) as a backup and prune old ones; returns its
        name. Every write gets its own backup, stamped after every event already logged."""
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
            names = [name for name in os.listdir(self.backups_dir) if BACKUP_RE.match(name)]
        except OSError:
            return []
        return sorted(names, key=_backup_key, reverse=True)

    def _prune_backups(self) -> None:
        """Keep the newest `backups_keep` backups, plus the newest backup of each of the last
        `backups_daily_days` UTC days (today included)."""
        names = self._backup_names()
        keep = set(names[: self.limits.backups_keep])
        today = datetime.fromtimestamp(now(), tz=timezone.utc).date()
        oldest_day = (today - timedelta(days=self.limits.backups_daily_days - 1)).strftime("%Y%m%d")
        seen_days: set[str] = set()
        for name in names:  # newest first, so the first of each day is that day's newest
            day = BACKUP_RE.match(name).group(1)[:8]  # type: ignore[union-attr]
            if day not in seen_days:
                seen_days.add(day)
                if day >= oldest_day:
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

    def _audit_batch(self, events: list[Event], actor: str, file_after: bytes | None) -> bytes:
        """One line per event; the last carries `file_sha`, the hash of memory.json after them."""
        at = now()
        lines = []
        for n, event in enumerate(events, 1):
            record = {"at": at, "actor": event.get("actor") or actor, "op": event["op"], "id": event.get("id"),
                      "before": event.get("before"), "after": event.get("after")}
            for key, value in event.items():
                if key not in record and value is not None:
                    record[key] = value
            if n == len(events) and file_after is not None:
                record["file_sha"] = _digest(file_after)
            lines.append(dumps(record) + b"\n")
        return b"".join(lines)

    def _open_audit(self) -> tuple[int, bytes]:
        """Rotate the log if it is due, open it for appending; returns the descriptor and what must
        precede the next batch (a newline if a writer died in the middle of a line)."""
        self._rotate_audit()
        fd = os.open(self.audit_path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            size = os.fstat(fd).st_size
            torn = size > 0 and os.pread(fd, 1, size - 1) != b"\n"
        except OSError:
            os.close(fd)
            raise
        return fd, b"\n" if torn else b""

    def _append_audit(self, events: list[Event], actor: str, file_after: bytes | None) -> None:
        """Append one batch with a single write() on an O_APPEND descriptor, under the lock."""
        if not events:
            return
        batch = self._audit_batch(events, actor, file_after)
        fd, prefix = self._open_audit()
        try:
            _write_all(fd, prefix + batch)
            os.fsync(fd)
        finally:
            os.close(fd)

    def _rotate_audit(self) -> None:
        """Past `audit_max_bytes`, the log becomes `audit.jsonl.1` (replacing the previous one)
        and a new log starts; `audit_lines` reads both, so the newest events stay readable."""
        try:
            size = os.path.getsize(self.audit_path)
        except FileNotFoundError:
            return
        if size > self.limits.audit_max_bytes:
            os.replace(self.audit_path, self.audit_path.with_name(AUDIT_NAME + ".1"))

    def audit_lines(self) -> list[dict]:
        """Every readable audit event, oldest first (the rotated file, then the current one).
        Cached while neither file changes."""
        paths = (self.audit_path.with_name(AUDIT_NAME + ".1"), self.audit_path)
        key = []
        for path in paths:
            try:
                st = os.stat(path)
                key.append((st.st_ino, st.st_size, st.st_mtime_ns))
            except OSError:
                key.append(None)
        cached = self._audit_cache
        if cached is not None and cached[0] == tuple(key):
            return list(cached[1])
        events: list[dict] = []
        for path in paths:
            try:
                data = path.read_bytes()
            except OSError:
                continue
            for line in data.splitlines():
                try:
                    event = orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue  # a torn line from a crash; the rest stays readable
                if isinstance(event, dict) and "op" in event:
                    events.append(event)
        self._audit_cache = (tuple(key), events)
        return list(events)


def _backup_key(name: str) -> tuple[str, int]:
    m = BACKUP_RE.match(name)
    assert m
    return (m.group(1), int(m.group(2) or 0))


LATE_NOTE = "logged late: the writer stopped between replacing memory.json and logging this change"


def _diff_events(before_doc: Document, after_doc: Document) -> list[Event]:
    """One event per entry that differs between two states, named after what changed."""
    before = {r.id: r.view() for r in before_doc.records}
    after = {r.id: r.view() for r in after_doc.records}
    events: list[Event] = []
    for entry_id, view in before.items():
        if entry_id not in after:
            events.append({"op": "delete", "id": entry_id, "before": view, "after": None})
    for entry_id, view in after.items():
        old = before.get(entry_id)
        if old == view:
            continue
        if old is None:
            op = "add"
        elif old["kind"] != view["kind"]:
            op = "reclassify"
        elif old["text"] != view["text"]:
            op = "edit"
        elif old.get("flags") != view.get("flags"):
            op = "approve"
        else:
            op = "refresh"
        events.append({"op": op, "id": entry_id, "before": old, "after": view})
    for event in events:
        event.update(actor="unknown", note=LATE_NOTE)
    return events


def _apply_event(storage: Storage, doc: Document, event: dict) -> Document:
    """`doc` after one logged event (for rebuilding a state from a backup and the log)."""
    op, entry_id, after = event.get("op"), event.get("id"), event.get("after")
    if op == "restore":
        return parse_document(storage.backup_path(event["backup"]).read_bytes())
    if entry_id is None:
        raise ValueError(f"cannot replay {op!r} without an id")
    position = next((i for i, item in enumerate(doc.items) if getattr(item, "id", None) == entry_id), None)
    if after is None:  # delete, evict
        if position is not None:
            del doc.items[position]
        return doc
    [record] = parse_document(dumps({"entries": [after]})).records
    if position is None:
        doc.items.append(record)
    else:
        doc.items[position] = record
    return doc


def _import_events(doc: Document) -> list[Event]:
    """An `import` for each entry the next write stores differently from how the file held it:
    an id given on load, a kind alias or a null source written in canonical form."""
    events = []
    for record in doc.records:
        if record.raw is None:
            continue
        stored = record.to_json()
        # fields the file lacked and now get their default (source "", ts 0) are not worth an event
        changed = sorted(key for key in record.raw if stored.get(key) != record.raw[key])
        if record.id_given or changed:
            notes = ["id given to an entry the file held without one"] if record.id_given else []
            if changed:
                notes.append("stored in canonical form: " + ", ".join(changed))
            note = "; ".join(notes)
            events.append({"op": "import", "id": record.id, "before": record.raw, "after": record.view(), "note": note})
    return events


def _digest(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()[:16]


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


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
