"""Recovery: what replaces a corrupt memory.json, and the changes a dead writer did not log.

A corrupt file is never written over: it is moved aside to `memory.json.broken-<stamp>` and the
newest backup that parses takes its place, brought forward by the changes logged since when they
rebuild, byte for byte, the file the last logged write left (the `file_sha` of its batch).
"""

from __future__ import annotations

import os
from pathlib import Path

from .audit_log import AUDIT_NAME, AuditLog, Event
from .backup_files import BackupName, Backups
from . import fileio
from .fileio import read_file, atomic_write, digest, free_name, fsync_dir, utc_stamp
from .records import Corrupt, Document, dumps, parse_document

__all__ = ["BROKEN_PREFIX", "LATE_NOTE", "Recovery", "RecoveryReport", "diff_events"]

FILE_NAME = "memory.json"
BROKEN_PREFIX = FILE_NAME + ".broken-"
LATE_NOTE = "logged late: the writer stopped between replacing memory.json and logging this change"


class RecoveryReport:
    """What happened when a corrupt file was found: where it went and what replaced it."""

    __slots__ = ("quarantined", "error", "restored_from", "at")

    def __init__(self, quarantined: Path, error: str, restored_from: str | None, at: float) -> None:
        self.quarantined = quarantined
        self.error = error
        self.restored_from = restored_from
        self.at = at


class Recovery:
    def __init__(self, path: Path, backups: Backups, audit: AuditLog) -> None:
        self.path = path
        self.dir = path.parent
        self.backups = backups
        self.audit = audit

    def quarantine(self, data: bytes, error: str) -> tuple[Document, bytes | None, list[Event], RecoveryReport]:
        """Keep the corrupt file aside (never overwrite it) and bring back the newest valid backup,
        with the changes logged since it when they rebuild the last logged state exactly.

        Crash-safe at every step: the corrupt bytes are first copied aside, then memory.json is
        replaced by the recovered state in one atomic step. A process killed in between leaves the
        corrupt file in place (the next reader recovers it again, reusing the copy); memory.json
        never goes missing while a backup can replace it."""
        at = fileio.now()
        broken = self._kept_aside(data) or free_name(self.dir, f"{BROKEN_PREFIX}{utc_stamp(at)}")
        if not broken.exists():
            atomic_write(broken, data)
        events: list[Event] = [
            {"op": "quarantine", "id": None, "before": None, "after": None,
             "note": f"{broken.name}: {error}", "file": broken.name, "error": error, "size": len(data)}
        ]
        candidate = self.candidate()
        if candidate is None:  # nothing can replace it: the store starts empty, the copy stays
            os.unlink(self.path)
            fsync_dir(self.dir)
            return Document(), None, events, RecoveryReport(broken, error, None, at)
        restored_from, restored, doc, replayed = candidate
        atomic_write(self.path, restored)
        events.append(self._restore_event(restored_from, replayed, broken.name, "after quarantining"))
        return doc, restored, events, RecoveryReport(broken, error, restored_from, at)

    def missing(self) -> tuple[Document, bytes, list[Event], RecoveryReport] | None:
        """memory.json is missing next to a quarantined file: a recovery was interrupted (or the file
        was removed by hand). Bring back what a recovery would; None if nothing can be restored."""
        broken = self.quarantined_names()
        candidate = self.candidate() if broken else None
        if candidate is None:
            return None
        restored_from, restored, doc, replayed = candidate
        atomic_write(self.path, restored)
        event = self._restore_event(restored_from, replayed, broken[-1], "memory.json was missing next to")
        error = "memory.json was missing"
        return doc, restored, [event], RecoveryReport(self.dir / broken[-1], error, restored_from, fileio.now())

    def quarantined_names(self) -> list[str]:
        """The corrupt files kept aside in the store directory, oldest first."""
        try:
            return sorted(name for name in os.listdir(self.dir) if name.startswith(BROKEN_PREFIX))
        except OSError:
            return []

    def _kept_aside(self, data: bytes) -> Path | None:
        """A copy of exactly these bytes already kept aside (by a recovery that was interrupted)."""
        for name in reversed(self.quarantined_names()):
            path = self.dir / name
            try:
                if path.stat().st_size == len(data) and fileio.read_file(path) == data:
                    return path
            except OSError:
                continue
        return None

    @staticmethod
    def _restore_event(restored_from: str, replayed: int, broken: str, why: str) -> Event:
        note = f"recovered from {restored_from}"
        if restored_from == AUDIT_NAME:
            note = f"rebuilt from {AUDIT_NAME} ({replayed} change{'s' if replayed != 1 else ''} replayed)"
        elif replayed:
            note += f" and {replayed} change{'s' if replayed != 1 else ''} logged since"
        return {"op": "restore", "id": None, "before": None, "after": None, "note": f"{note} {why} {broken}",
                "backup": restored_from, "replayed": replayed, "quarantined": broken}

    def candidate(self) -> tuple[str, bytes, Document, int] | None:
        """What should replace a corrupt file: (backup name, bytes, document, changes replayed).
        The newest backup that parses, brought forward by the audit events logged after it when
        they rebuild, byte for byte, the file the last logged write left (its `file_sha`)."""
        for name in self.backups.names():
            try:
                data = self.backups.read(name)
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
        logged = self.audit.last_logged_state()
        if logged is None or digest(data) == logged[0]:
            return None
        events = self._logged_since(name, data)
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
                        doc = parse_document(read_file(self.backups.path(event["backup"])))
                    continue  # otherwise it rebuilt the state replayed so far
                if moved_away:
                    doc, moved_away = Document(), False
                doc = self._apply(doc, event)
            if moved_away:
                doc = Document()
        except (OSError, Corrupt, KeyError, TypeError, ValueError):
            return None
        rebuilt = doc.to_bytes()
        if digest(rebuilt) != logged[0]:
            return None
        changed = sum(1 for e in events if e.get("id"))
        return rebuilt, parse_document(rebuilt), changed

    def _logged_since(self, name: str | None, data: bytes) -> list[dict]:
        """The events logged after the state `data` (backup `name`; None: the whole log). Found by
        the audit chain -- after the last batch that left exactly these bytes -- which no clock can
        reorder; by the stamps only when the chain does not hold that state."""
        lines = self.audit.lines()
        if name is None:
            return lines
        sha = digest(data)
        for i in range(len(lines) - 1, -1, -1):
            if lines[i].get("file_sha") == sha:
                return lines[i + 1:]
        key = BackupName.parse(name)
        since = float("-inf") if key is None else key.at - 1e-5  # the margin absorbs the stamp's rounding
        return [e for e in lines if isinstance(e.get("at"), (int, float)) and e["at"] >= since]

    def _apply(self, doc: Document, event: dict) -> Document:
        """`doc` after one logged event (for rebuilding a state from a backup and the log)."""
        op, entry_id, after = event.get("op"), event.get("id"), event.get("after")
        if op == "restore":
            return parse_document(read_file(self.backups.path(event["backup"])))
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
        order = event.get("core_after")  # a pin or unpin wrote the core's order too
        if isinstance(order, list):
            doc.core_order = order
        return doc

    def unlogged_change(self, current: bytes, doc: Document) -> list[Event]:
        """Events for changes that reached memory.json without reaching the audit log.

        Every batch records the hash of the file it left behind. A writer that dies between
        replacing the file and appending its events leaves a file that differs from that hash, and
        a backup, taken after the last batch, holding exactly the logged state; each newer backup is
        a state some later writer replaced, also unlogged. Their differences, by id, are logged now.
        A file changed by another program has no such backup and is not reconstructed."""
        logged = self.audit.last_logged_state()
        if logged is None or digest(current) == logged[0]:
            return []
        sha, logged_at = logged
        chain: list[bytes] = []
        try:
            for name, key in self.backups.parsed()[: self.backups.limits.backups_keep]:
                if key.at < logged_at:
                    return []
                data = self.backups.read(name)
                chain.append(data)
                if digest(data) == sha:
                    break
            else:
                return []
            states = [parse_document(data) for data in reversed(chain)] + [doc]
        except (OSError, Corrupt, ValueError):
            return []
        events: list[Event] = []
        for older, newer in zip(states, states[1:]):
            events += diff_events(older, newer)
        return events


def diff_events(before_doc: Document, after_doc: Document) -> list[Event]:
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
