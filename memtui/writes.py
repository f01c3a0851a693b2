"""The changes a person can ask of the app: one small class per write, each running itself on the store.

A screen builds a write from what the person chose and hands it to `MemtuiApp.submit`; the app runs
`write.run(store)` in its write worker and shows the `Outcome` it returns (a notification, and the
entry to select once the store is read again). Nothing here touches a widget, so every write is
tested on a plain store (tests/tui/test_writes.py).

When the entry on disk is no longer the one the person started from, the core raises ConflictError.
An `EntryWrite` lets the app ask the person what to do (ConflictModal) and says how to try again; a
batch or an undo cannot ask, so it raises `WriteRefused` with the line the person reads instead.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from memtui_core.errors import ConflictError
from memtui_core.kinds import Kind
from memtui_core.model import AuditEvent, Entry, RestoreResult
from memtui_core.memory import MemoryStore

from .widgets.fmt import kind_name, one_line

__all__ = [
    "Add", "Approve", "BatchApprove", "BatchDelete", "BatchReclassify", "Delete", "Draft", "Edit", "EntryWrite",
    "Import", "Outcome", "Pin", "Reclassify", "Restore", "Undo", "Unpin", "Write", "WriteRefused",
]

BLOCKED = " — blocked by the threat scan until approved"


@dataclass(frozen=True)
class Outcome:
    """What a write did, as the app shows it."""

    summary: str
    select: str | None = None  # the entry to select once the store is read again (None: keep the selection)
    restore: RestoreResult | None = None
    warning: bool = False  # done, but not what the person wanted (e.g. evicted at once)


@dataclass(frozen=True)
class Draft:
    """What goes back into the editor when a write of text fails, so nothing typed is lost."""

    entry: Entry | None  # None: a new memory
    text: str | None = None
    kind: Kind | None = None
    keywords: list[str] | None = None


class WriteRefused(Exception):
    """A write that wrote nothing, with the one line the person reads about it."""


class Write:
    """One change. `run` raises the core's errors (MemtuiError, OSError, ValueError); the app reports them."""

    title: ClassVar[str] = "Saved"  # the notification's title when it is done

    def run(self, store: MemoryStore) -> Outcome:
        raise NotImplementedError

    def draft(self) -> Draft | None:
        """The editor's contents to give back when this write fails (None: nothing was typed)."""
        return None


@dataclass
class Add(Write):
    kind: Kind
    text: str
    keywords: list[str] | None = None

    title: ClassVar[str] = "Added"

    def run(self, store: MemoryStore) -> Outcome:
        result = store.remember(self.kind, self.text, source="tui", keywords=self.keywords)
        added = result.entry
        if any(gone.id == added.id for gone in result.evicted):
            summary = (f"The store is full and this {kind_name(added.kind)} was the next to go, "
                       "so it was evicted at once")
            if len(result.evicted) > 1:
                summary += f" with {len(result.evicted) - 1} more"
            return Outcome(summary, warning=True)
        if result.added:
            summary = f"Added {kind_name(added.kind)} {added.id}"
            if result.evicted:
                summary += f"; evicted {len(result.evicted)} to stay within {store.limits.max_entries}"
        else:
            summary = f"Already remembered as {added.id}: refreshed its time instead of adding a copy"
        return Outcome(summary + (BLOCKED if added.blocked else ""), select=added.id)

    def draft(self) -> Draft:
        return Draft(None, self.text, self.kind, self.keywords)


@dataclass
class Move(Write):
    """An entry to the other scope: an audited add in that store, then an audited delete in this one
    (memtui_core.scopes.Scoped.move); `run` takes the pair of stores, not one."""

    entry_id: str
    to: str  # "project" or "global"

    title: ClassVar[str] = "Moved"

    def run(self, store) -> Outcome:
        received = store.move(self.entry_id, self.to, person=True)  # a person in the app: approval made again
        moved = received.entry
        said = f" (now {moved.id})" if moved.id != self.entry_id else ""
        if received.pinned:
            said += ", pinned there"
        if received.approved is True:
            said += ", approved again there"
        return Outcome(f"Moved {kind_name(moved.kind)} {self.entry_id} to the {self.to} store{said}", select=moved.id)


@dataclass
class EntryWrite(Write):
    """A change to one entry as the person saw it (`expected`): it fails if the entry changed on disk."""

    entry_id: str
    expected: Entry

    verb: ClassVar[str] = "change it"  # "Yours — you want to <verb>" in the conflict dialog
    mine_label: ClassVar[str] = "Keep mine"  # the conflict dialog's button that writes over theirs

    def over(self, current: Entry) -> EntryWrite:
        """The same change, made to the version on disk now (the person chose to keep theirs)."""
        return replace(self, expected=current)

    def add_back(self) -> Add | None:
        """The change as a new entry, when the entry was deleted meanwhile (None: nothing to keep)."""
        return None

    def yours(self) -> tuple[Kind, str]:
        """The kind and text the entry would have after this write, for the conflict dialog."""
        return self.expected.kind, self.expected.text

    def reopen(self) -> Draft | None:
        """The editor to go back to when the person cancels the conflict dialog (None: none)."""
        return None


@dataclass
class Edit(EntryWrite):
    """New text, kind or keywords (None leaves each as it is)."""

    text: str | None = None
    kind: Kind | None = None
    keywords: list[str] | None = None  # the whole new list

    verb: ClassVar[str] = "save your text"

    def run(self, store: MemoryStore) -> Outcome:
        entry = store.update(self.entry_id, text=self.text, kind=self.kind, expected=self.expected,
                             keywords=self.keywords)
        if self.text is None and self.kind is None and self.keywords is not None:
            summary = f"Keywords of {entry.id}: {', '.join(entry.keywords) or 'none'}"
        else:
            summary = f"Saved {entry.id} ({len(entry.text)}/{store.limits.max_text})"
        return Outcome(summary + (BLOCKED if entry.blocked else ""), select=entry.id)

    def add_back(self) -> Add:
        return Add(self.kind or self.expected.kind, self.text or self.expected.text)

    def yours(self) -> tuple[Kind, str]:
        return self.kind or self.expected.kind, self.text if self.text is not None else self.expected.text

    def draft(self) -> Draft | None:
        if self.text is None and self.keywords is None:
            return None
        return Draft(self.expected, self.text, self.kind, self.keywords)

    def reopen(self) -> Draft:
        # the version the person started from: the editor still says the entry changed on disk, and
        # the next save asks again instead of overwriting
        started = self.expected
        return Draft(started, self.text if self.text is not None else started.text, self.kind or started.kind)


@dataclass
class Reclassify(EntryWrite):
    kind: Kind

    title: ClassVar[str] = "Reclassified"
    verb: ClassVar[str] = "change its kind"

    def run(self, store: MemoryStore) -> Outcome:
        entry = store.update(self.entry_id, kind=self.kind, expected=self.expected)
        summary = f"{entry.id} is now {kind_name(entry.kind)}"
        return Outcome(summary + (BLOCKED if entry.blocked else ""), select=entry.id)

    def add_back(self) -> Add:
        return Add(self.kind, self.expected.text)

    def yours(self) -> tuple[Kind, str]:
        return self.kind, self.expected.text


@dataclass
class Delete(EntryWrite):
    title: ClassVar[str] = "Deleted"
    verb: ClassVar[str] = "delete it"
    mine_label: ClassVar[str] = "Delete anyway"

    def run(self, store: MemoryStore) -> Outcome:
        entry = store.delete(self.entry_id, expected=self.expected)
        return Outcome(f"{entry.id} {one_line(entry.text)[:48]} (a backup keeps it)")


@dataclass
class Approve(EntryWrite):
    title: ClassVar[str] = "Approved"
    verb: ClassVar[str] = "approve it"
    mine_label: ClassVar[str] = "Approve anyway"

    def run(self, store: MemoryStore) -> Outcome:
        entry = store.approve(self.entry_id, expected=self.expected)
        return Outcome(f"Approved {entry.id}: it can be injected now", select=entry.id)


@dataclass
class Pin(EntryWrite):
    """Into the pinned core (docs/injection.md#the-pinned-core), at `position` among the pinned
    entries (0 first; None: last, or where it is), or moved there when pinned already."""

    position: int | None = None

    title: ClassVar[str] = "Pinned"
    verb: ClassVar[str] = "pin it"
    mine_label: ClassVar[str] = "Pin anyway"

    def run(self, store: MemoryStore) -> Outcome:
        entry = store.pin(self.entry_id, position=self.position, expected=self.expected)
        core = store.core()
        if any(member.entry.id == entry.id for member in core.left_out):  # never left out silently
            return Outcome(f"Pinned {entry.id}, but the core is over its budget ({core.used}/{core.budget} "
                           "characters): it is left out of every block until room is made (c shows the core)",
                           select=entry.id, warning=True)
        pinned = [member.entry.id for member in core.entries if member.how == "pinned"]
        place = pinned.index(entry.id) + 1 if entry.id in pinned else 0
        verb = "Moved" if self.expected.pinned else "Pinned"
        return Outcome(f"{verb} {entry.id}: in every block, #{place} of {len(pinned)} pinned", select=entry.id)


@dataclass
class Unpin(EntryWrite):
    """Out of the pinned core: pinned no more, or (a kind the core takes by default) kept out by hand."""

    title: ClassVar[str] = "Unpinned"
    verb: ClassVar[str] = "unpin it"
    mine_label: ClassVar[str] = "Unpin anyway"

    def run(self, store: MemoryStore) -> Outcome:
        entry = store.unpin(self.entry_id, expected=self.expected)
        kept_out = any(kept.id == entry.id for kept in store.core().kept_out)
        how = "kept out of the core by hand (p pins it again)" if kept_out else "injected only when relevant"
        return Outcome(f"Unpinned {entry.id}: {how}", select=entry.id)


@dataclass
class _Batch(Write):
    """One change to many entries as the person saw them: all or nothing, one backup before it."""

    entries: tuple[Entry, ...]

    title: ClassVar[str] = "Done"
    op: ClassVar[str]
    done: ClassVar[str]  # "Deleted 3 entries"

    def _kind(self) -> Kind | None:
        return None

    def run(self, store: MemoryStore) -> Outcome:
        try:
            changed = store.bulk(self.op, [entry.id for entry in self.entries], kind=self._kind(),
                                 expected={entry.id: entry for entry in self.entries})
        except ConflictError as exc:
            raise WriteRefused(f"{exc} (nothing of the batch was written)") from exc
        return Outcome(self._summary(len(changed)))

    def _summary(self, count: int) -> str:
        return f"{self.done} {count} entries"


@dataclass
class BatchDelete(_Batch):
    op: ClassVar[str] = "delete"
    done: ClassVar[str] = "Deleted"

    def _summary(self, count: int) -> str:
        return super()._summary(count) + ": the backup taken before them brings all back (b)"


@dataclass
class BatchApprove(_Batch):
    op: ClassVar[str] = "approve"
    done: ClassVar[str] = "Approved"


@dataclass
class BatchReclassify(_Batch):
    kind: Kind

    op: ClassVar[str] = "reclassify"
    done: ClassVar[str] = "Reclassified"

    def _kind(self) -> Kind:
        return self.kind


@dataclass
class Undo(Write):
    """Take back one change from the audit log (recorded as a change of its own)."""

    event: AuditEvent
    scope: str | None = None  # with scopes: the store whose log holds the event (memtui/scopes.py target)

    title: ClassVar[str] = "Undone"

    def run(self, store: MemoryStore) -> Outcome:
        event = self.event
        try:
            entry = store.undo(event)
        except ConflictError as exc:
            raise WriteRefused(f"{event.id} changed after that {event.op}: nothing was written. "
                               "Undo the later changes first, newest first.") from exc
        if str(event.op) == "add":
            return Outcome(f"Took back the add of {entry.id}: it is deleted (a backup keeps it)")
        return Outcome(f"Took back the {event.op} of {entry.id}", select=entry.id)


@dataclass
class Import(Write):
    """Add the entries of a memtui or Hermes file, after the person saw its preview (evictions included)."""

    path: str

    title: ClassVar[str] = "Import"

    def run(self, store: MemoryStore) -> Outcome:
        from memtui_core.agents.transfer import import_file

        return Outcome("Imported " + import_file(store, self.path, allow_evict=True).summary)


@dataclass
class Restore(Write):
    """Put a backup's entries back (the current file is backed up first)."""

    backup: str
    scope: str | None = None  # with scopes: the store the backup is of (memtui/scopes.py target)

    title: ClassVar[str] = "Restored"

    def run(self, store: MemoryStore) -> Outcome:
        restored = store.restore(self.backup)
        summary = (f"Restored {restored.name}: {len(restored.added)} added, {len(restored.removed)} removed, "
                   f"{len(restored.changed)} changed")
        return Outcome(summary, restore=restored)
