"""What the app's thread workers report back, and the snapshots they carry.

Workers never touch widgets: they read or write through the core and post one of these.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from textual.message import Message

from memtui_core.kinds import Kind
from memtui_core.model import AuditEvent, Backup, CoreReport, Entry, Explanation, Health, RestoreResult, TextCheck

from .writes import EntryWrite, Outcome, Write


@dataclass(eq=False)
class StoreSnapshot:
    """The store as read at one moment: entries in store order and where each stands for eviction."""

    entries: list[Entry]
    eviction: dict[str, int]
    state: tuple | None
    path: str
    max_entries: int
    max_text: int
    loaded_at: float
    load_seconds: float = 0.0
    # from the injection log: entry id -> (injections that included it, time of the last one)
    usage: dict[str, tuple[int, float]] = field(default_factory=dict)
    usage_days: int = 30
    usage_logged: bool = True  # False: the injection log is off, so usage is unknown
    core: CoreReport | None = None  # the pinned core: what is in every block, and what does not fit
    # entry id -> "project" or "global" when the app reads both stores (memtui_core.scopes); {} for one store
    scopes: dict[str, str] = field(default_factory=dict)

    def core_place(self, entry_id: str) -> tuple[str, int] | None:
        """Where an entry stands in the pinned core: ("pinned" | "kind", its place from 1) when in
        it, ("left_out", n) when its budget leaves it out, ("kept_out", 0) when kept out by hand;
        None otherwise."""
        return self.core_places().get(entry_id)

    def core_places(self) -> dict[str, tuple[str, int]]:
        """`core_place` of every entry that has one."""
        core = self.core
        if core is None:
            return {}
        places: dict[str, tuple[str, int]] = {entry.id: ("kept_out", 0) for entry in core.kept_out}
        places.update({member.entry.id: ("left_out", n) for n, member in enumerate(core.left_out, start=1)})
        places.update({member.entry.id: (member.how, n) for n, member in enumerate(core.entries, start=1)})
        return places

    def by_id(self, entry_id: str) -> Entry | None:
        for entry in self.entries:
            if entry.id == entry_id:
                return entry
        return None

    def count(self, kind: Kind | None = None) -> int:
        if kind is None:
            return len(self.entries)
        return sum(1 for entry in self.entries if entry.kind is kind)


@dataclass(eq=False)
class StoreHistory:
    """The slower half of a load: health and the audit log grouped by entry id."""

    health: Health
    events: list[AuditEvent]
    by_id: dict[str, list[AuditEvent]] = field(default_factory=dict)
    by_scope: dict[str, list[AuditEvent]] = field(default_factory=dict)  # with scopes: each store's events


@dataclass
class StoreLoaded(Message):
    snapshot: StoreSnapshot
    select: str | None = None  # the entry the write that asked for this read touched: Browse selects it


@dataclass
class HistoryLoaded(Message):
    history: StoreHistory


@dataclass
class LoadFailed(Message):
    error: str


@dataclass
class WriteDone(Message):
    write: Write
    outcome: Outcome


@dataclass
class WriteFailed(Message):
    write: Write
    error: str


@dataclass
class WriteConflict(Message):
    """The entry on disk is not the one the person started from; `current` is None if it is gone."""

    write: EntryWrite
    current: Entry | None


@dataclass
class ExplainReady(Message):
    explanation: Explanation
    seconds: float
    select: str | None = None  # the entry to select in this ranking (a probe's expected entry)
    generation: int = 0  # which request this answers: a screen shows only its newest request's


@dataclass
class ExplainFailed(Message):
    error: str
    generation: int = 0


@dataclass
class BackupsLoaded(Message):
    backups: list[Backup]
    generation: int = 0


@dataclass
class RestorePreviewReady(Message):
    name: str
    preview: RestoreResult
    backup_entries: dict[str, Entry]
    current_entries: dict[str, Entry]
    generation: int = 0  # which request this answers: only the newest request's is shown


@dataclass
class RestorePreviewFailed(Message):
    name: str
    error: str
    generation: int = 0


@dataclass
class AuditLoaded(Message):
    events: list[AuditEvent]


@dataclass
class TextChecked(Message):
    """What saving `text` would do (length, duplicate, threat findings), for the editor's live warnings."""

    text: str
    check: TextCheck


@dataclass
class ProbesChecked(Message):
    """Which passing probes the change typed in the editor (`key`: text, kind, keywords) would break."""

    key: tuple
    breaks: list
    generation: int = 0  # which request this answers: only the newest request's is shown
