"""The write that takes in an entry moved from another store (a scope move, core/scopes.py).

A move must keep what a person decided about the entry, not only its text. `receive` adds the
entry in ONE audited write under this store's lock: its id when this store does not hold that id
already, its kind, text, source, keywords and time, its pin and its place among the pinned
entries (the event carries the core's order, so a rebuild from the audit log gets it back), and,
when the move was a person's and the entry was approved where it came from, this store's own
approval (an approval is an HMAC under each store's key, so it cannot travel: it is made again,
as `approve` makes it, with its own `approve` event). An entry this store holds already (the same
text: what a move cut short leaves) is not added twice: it takes the pin and the approval.
`Writing` (writing.py) is a `Receiving`: this class holds no state of its own.
"""

from __future__ import annotations

TYPE_CHECKING = False

from .entries import _entry
from .pinning import pinned_order
from .records import Document, Record, new_id, normalize
from .storage import Change

if TYPE_CHECKING:
    from typing import Any

    from ..model import Entry
    from .storage import Storage

__all__ = ["Received", "Receiving"]


class Received:
    """What `receive` did: the entry as this store holds it, whether its id was kept, whether it
    was pinned here (`pinned`), and whether an approval it had was made again (`approved`: True,
    made again; False, left behind: blocked here until a person approves it; None, it had none)."""

    __slots__ = ("entry", "kept_id", "pinned", "approved", "added")

    def __init__(self, entry: Entry, kept_id: bool, pinned: bool, approved: bool | None, added: bool) -> None:
        self.entry, self.kept_id, self.pinned, self.approved, self.added = entry, kept_id, pinned, approved, added


class Receiving:
    """`receive`: an entry of another store, added here with what a person decided about it."""

    if TYPE_CHECKING:
        _storage: Storage

        def _write(self, mutate: Any) -> Any: ...

        def _now(self) -> int: ...

        def _prepare_entry(self, text: object, source: str = "", keywords: Any = ()) -> tuple: ...

        def _find_duplicate(self, records: list[Record], key: str, exclude_id: str | None = None) -> Record | None: ...

        def _evict(self, doc: Document) -> list[Record]: ...

    def receive(self, entry: Entry, *, core_position: int | None = None, approve: bool = False,
                note: str | None = None) -> Received:
        """Add `entry` (an Entry of another store) here, keeping its id unless this store holds it.
        `core_position`: its place among the pinned entries where it came from (None: not pinned
        there). `approve`: a person moves it, so an approval it had is made again here (an agent's
        move leaves it blocked until a person approves it). `note` goes on the add event."""
        from ..ranking.keywords import clean_keywords

        keywords = clean_keywords(list(entry.keywords), self.limits)[0] if entry.keywords else []  # type: ignore
        clean, flags, _cut, source, _values = self._prepare_entry(entry.text, entry.source, keywords)
        had_approval = any(flag.startswith("approved:") for flag in entry.flags)
        key = normalize(clean)

        def mutate(doc: Document) -> Change:
            events: list[dict] = []
            record = self._find_duplicate(doc.records, key)
            added = record is None
            if record is None:
                taken = doc.ids()
                kept = entry.id not in taken
                record = Record(entry.id if kept else new_id(taken), entry.kind, clean, source,
                                entry.ts or self._now(), list(flags))
                record.keywords = keywords
                doc.items.append(record)
                events.append({"op": "add", "id": record.id, "before": None, "after": record.view(), "note": note})
            else:
                kept = record.id == entry.id
            approved = None
            if had_approval:
                approved = False
                before = record.view()
                if approve and record.blocked and record.approve(self._storage.approval_key(create=True)):
                    events.append({"op": "approve", "id": record.id, "before": before, "after": record.view(),
                                   "note": "approved again: moved by a person, approved where it came from"})
                approved = not record.blocked
            pinned = False
            if core_position is not None and not record.blocked and record.pin is not True:
                order = pinned_order(doc)
                before, old_order = record.view(), list(order)
                order.insert(min(max(core_position, 0), len(order)), record.id)
                record.pin = True
                doc.core_order = order
                events.append({"op": "pin", "id": record.id, "before": before, "after": record.view(),
                               "note": f"core position {order.index(record.id) + 1} of {len(order)} pinned, "
                                       "as where it came from", "core_before": old_order, "core_after": order})
            pinned = record.pin is True
            if added:
                events += [{"op": "evict", "id": r.id, "before": r.view(), "after": None, "note": "store full"}
                           for r in self._evict(doc)]
            return Change(events, Received(_entry(record), kept, pinned, approved, added))

        return self._write(mutate)
