"""Recovery: what replaces a corrupt memory.json, and the changes a dead writer did not log.

A corrupt file is never written over: it is moved aside to `memory.json.broken-<stamp>` and the
state the audit chain vouches for takes its place: the newest backup that, brought forward by the
changes logged since it, rebuilds byte for byte the file the last logged write left (the
`file_sha` of its batch); failing that, the newest backup some logged write left exactly; only
then the newest backup by number. docs/storage.md, "What recovery trusts, in what order, and why".
"""

from __future__ import annotations

import os
from collections import namedtuple
from pathlib import Path

from .audit_log import AUDIT_NAME, AuditLog, Event
from .backup_files import BackupName, Backups
from . import fileio
from .fileio import read_file, atomic_write, digest, free_name, fsync_dir, utc_stamp
from .records import Corrupt, Document, dumps, parse_document

__all__ = ["BROKEN_PREFIX", "Candidate", "LATE_NOTE", "Recovery", "RecoveryReport", "diff_events"]

FILE_NAME = "memory.json"
BROKEN_PREFIX = FILE_NAME + ".broken-"
LATE_NOTE = "logged late: the writer stopped between replacing memory.json and logging this change"


class RecoveryReport:
    """What happened when a corrupt file was found: where it went, what replaced it and why."""

    __slots__ = ("quarantined", "error", "restored_from", "at", "why")

    def __init__(self, quarantined: Path, error: str, restored_from: str | None, at: float,
                 why: str | None = None) -> None:
        self.quarantined = quarantined
        self.error = error
        self.restored_from = restored_from
        self.at = at
        self.why = why  # why that backup (or the audit log) was chosen, in words


class Candidate(namedtuple("Candidate", "name data doc replayed why")):
    """What should replace a corrupt file: the backup `name` (or AUDIT_NAME: the log replayed from an
    empty store), the resulting bytes and document, how many logged changes were replayed onto
    the backup, and `why` this one, in words."""

    __slots__ = ()
    name: str
    data: bytes
    doc: Document
    replayed: int
    why: str


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
        atomic_write(self.path, candidate.data)
        events.append(self._restore_event(candidate, broken.name, "after quarantining"))
        return candidate.doc, candidate.data, events, RecoveryReport(broken, error, candidate.name, at, candidate.why)

    def missing(self) -> tuple[Document, bytes, list[Event], RecoveryReport] | None:
        """memory.json is missing next to a quarantined file: a recovery was interrupted (or the file
        was removed by hand). Bring back what a recovery would; None if nothing can be restored."""
        broken = self.quarantined_names()
        candidate = self.candidate() if broken else None
        if candidate is None:
            return None
        atomic_write(self.path, candidate.data)
        event = self._restore_event(candidate, broken[-1], "memory.json was missing next to")
        error = "memory.json was missing"
        report = RecoveryReport(self.dir / broken[-1], error, candidate.name, fileio.now(), candidate.why)
        return candidate.doc, candidate.data, [event], report

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
    def _restore_event(candidate: Candidate, broken: str, why: str) -> Event:
        restored_from, replayed = candidate.name, candidate.replayed
        note = f"recovered from {restored_from}"
        if restored_from == AUDIT_NAME:
            note = f"rebuilt from {AUDIT_NAME} ({replayed} change{'s' if replayed != 1 else ''} replayed)"
        elif replayed:
            note += f" and {replayed} change{'s' if replayed != 1 else ''} logged since"
        return {"op": "restore", "id": None, "before": None, "after": None,
                "note": f"{note} {why} {broken}: {candidate.why}",
                "backup": restored_from, "replayed": replayed, "quarantined": broken, "why": candidate.why}

    def candidate(self) -> Candidate | None:
        """What should replace a corrupt file, in this order of trust (docs/storage.md, "What
        recovery trusts, in what order, and why"):

        1. the newest backup that is, or brought forward by the changes logged since it rebuilds,
           byte for byte, the file the last logged write left (its batch's `file_sha`);
        2. the whole audit log replayed from an empty store, if that rebuilds it;
        3. the newest backup that some logged write left exactly (its hash is a `file_sha`);
        4. the newest backup that parses, by sequence number, when the log vouches for none.

        A backup's number says only in which order it was written, and a file dropped into
        backups/ can carry any number: the audit chain says which states memtui wrote."""
        parsed: list[tuple[str, bytes, Document]] = []  # the backups that parse, newest first
        for name in self.backups.names():
            try:
                data = self.backups.read(name)
                parsed.append((name, data, parse_document(data)))
            except (OSError, Corrupt):
                continue
        logged = self.audit.last_logged_state()
        if logged is not None:
            for at, (name, data, doc) in enumerate(parsed):
                if digest(data) == logged[0]:
                    return Candidate(name, data, doc, 0, "it is exactly the file the audit log's last write left"
                                     + _passed_over(parsed[:at]))
                replayed = self._replay_logged(name, data)
                if replayed is not None:
                    n = replayed[2]
                    why = (f"with the {n} change{'s' if n != 1 else ''} logged since it, it rebuilds exactly the "
                           f"file the audit log's last write left")
                    return Candidate(name, *replayed, why + _passed_over(parsed[:at]))
            replayed = self._replay_logged(None, Document().to_bytes())
            if replayed is not None and replayed[2]:
                why = "no backup leads to the file the audit log's last write left; the whole log, replayed, rebuilds it"
                return Candidate(AUDIT_NAME, *replayed, why + _passed_over(parsed))
        written = self.audit.logged_states()
        for at, (name, data, doc) in enumerate(parsed):
            if digest(data) in written:
                lost = ("the audit log does not reach its last state from any backup" if logged is not None
                        else "the end of the audit log names no last state")
                why = f"the newest backup the audit log vouches for (a logged write left exactly it); {lost}"
                return Candidate(name, data, doc, 0, why + _passed_over(parsed[:at]))
        if parsed:
            name, data, doc = parsed[0]
            return Candidate(name, data, doc, 0, "the newest backup by number: the audit log vouches for none")
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
        changed = sum(1 for e in events if e.get("id") or e.get("op") == "limits")
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
        if op == "limits":  # the store's own limits (store_limits.py): the object as it became
            if isinstance(after, dict) and after:
                doc.top["limits"] = after
            else:
                doc.top.pop("limits", None)
            return doc
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


def _passed_over(newer: list[tuple[str, bytes, Document]]) -> str:
    """The newer backups a choice passed over, said after it."""
    if not newer:
        return ""
    names = [name for name, _data, _doc in newer]
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    many = len(names) != 1
    return (f"; passed over {len(names)} newer backup{'s' if many else ''} that {'do' if many else 'does'} not "
            f"lead to it: {shown}")


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
