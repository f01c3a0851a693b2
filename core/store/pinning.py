"""The writes of the pinned core: pin, unpin, and undoing them (docs/injection.md#the-pinned-core).

A pin is the entry's optional `pinned` field (true: in every block; false: kept out of the core by
hand) plus its place in the document's `core_order`. Both change in one write under the lock, with
one audit event (`pin` or `unpin`) that records the order before and after (`core_before`,
`core_after`), so the change can be undone and a rebuild from the audit log gets the order back.
`Writing` (writing.py) is a `Pinning`: this class holds no state of its own.
"""

from __future__ import annotations

TYPE_CHECKING = False

from ..errors import InvalidInput
from .entries import _entry, _stamp
from .records import Document, Record
from .storage import Change

if TYPE_CHECKING:
    from typing import Any

    from ..limits import Limits
    from ..model import Entry

__all__ = ["Pinning", "pinned_order"]


class Pinning:
    """Pin, unpin and undo a pin: the pinned core's writes, through the single write path."""

    if TYPE_CHECKING:
        limits: Limits

        def _write(self, mutate: Any) -> Any: ...

        def _check_expected(self, record: Record | None, entry_id: str, expected: Any) -> Record: ...

    def _undo_pin(self, data: dict, entry_id: str, before: dict, after: dict) -> Entry:
        """Undo a pin or an unpin: the entry's pin state and its place in the core as before it."""
        note = f"undo: {data.get('op')} of {_stamp(data.get('at'))} by {data.get('actor') or '?'}"

        def mutate(doc: Document) -> Change:
            record = self._check_expected(doc.find(entry_id), entry_id, after)
            previous, old_order = record.view(), pinned_order(doc)
            if before.get("pinned") is True and record.blocked:
                raise InvalidInput(f"entry {entry_id} is blocked by the threat scan now: it cannot be pinned again; "
                                   "approve it first if you trust it")
            op, order = _undo_pin_change(record, doc, data, before)
            if record.view() == previous and order == old_order:
                return Change([], record)
            return Change([{"op": op, "id": entry_id, "before": previous, "after": record.view(), "note": note,
                            "core_before": old_order, "core_after": order}], record)

        return _entry(self._write(mutate))

    def pin(self, id: str, position: int | None = None, expected: Any = None) -> Entry:
        """Pin an entry into the core: it is in every block from now on, before the entries the
        core's policy adds (docs/injection.md#the-pinned-core). `position` (0 is first) places it
        among the pinned entries, or moves one pinned already; None puts a new pin last and leaves
        a pinned one where it is. Audited (op `pin`) and undoable like any write. A blocked entry is
        refused (InvalidInput: approve it first); an unknown id is EntryNotFound."""
        if position is not None and (isinstance(position, bool) or not isinstance(position, int) or position < 0):
            raise InvalidInput(f"position must be a non-negative whole number, got {position!r}")

        def mutate(doc: Document) -> Change:
            record = self._check_expected(doc.find(id), id, expected)
            if record.blocked:
                categories = ", ".join(record.threats) or "flagged by hand"
                raise InvalidInput(f"entry {id} is blocked by the threat scan ({categories}): a blocked entry "
                                   f"cannot be pinned; approve it first if you trust it")
            order = pinned_order(doc)
            before, old_order = record.view(), list(order)
            was = order.index(id) if id in order else None
            if was is not None:
                order.remove(id)
            order.insert(len(order) if position is None and was is None else min(
                was if position is None else position, len(order)), id)  # type: ignore[arg-type]
            if record.pin is True and order == old_order:
                return Change([], record)  # pinned there already
            record.pin = True
            doc.core_order = order
            now = order.index(id) + 1
            note = (f"core position {now} of {len(order)} pinned" if was is None
                    else f"moved in the core from {was + 1} to {now} of {len(order)} pinned")
            return Change([{"op": "pin", "id": id, "before": before, "after": record.view(), "note": note,
                            "core_before": old_order, "core_after": order}], record)

        return _entry(self._write(mutate))

    def unpin(self, id: str, expected: Any = None) -> Entry:
        """Take an entry out of the core. An entry pinned by hand is pinned no more; one whose kind
        the core's policy takes (`Limits.core_kinds`) is kept out by hand (`"pinned": false`), so it
        stays out until pinned again. Audited (op `unpin`) and undoable; an unknown id is EntryNotFound."""
        def mutate(doc: Document) -> Change:
            record = self._check_expected(doc.find(id), id, expected)
            order = pinned_order(doc)
            before, old_order = record.view(), list(order)
            wanted = False if record.kind.value in self.limits.core_kinds else None
            if record.pin is wanted or (record.pin is False and wanted is None):
                return Change([], record)  # out of the core already
            if id in order:
                order.remove(id)
            record.pin = wanted
            doc.core_order = order
            note = "kept out of the core by hand" if wanted is False else "pinned no more"
            return Change([{"op": "unpin", "id": id, "before": before, "after": record.view(), "note": note,
                            "core_before": old_order, "core_after": order}], record)

        return _entry(self._write(mutate))


def _undo_pin_change(record: Record, doc: Document, event: dict, before: dict) -> tuple[str, list[str]]:
    """Put back the pin state of `before` and the entry's place in the core's order before the
    event (`core_before`); the new event's op, and the order."""
    order = pinned_order(doc)
    if "pinned" in before:
        record.extra["pinned"] = before["pinned"]
    else:
        record.extra.pop("pinned", None)
    if record.id in order:
        order.remove(record.id)
    if record.pin is True:
        was = event.get("core_before")
        place = was.index(record.id) if isinstance(was, list) and record.id in was else len(order)
        order.insert(min(place, len(order)), record.id)
    doc.core_order = order
    return ("pin" if record.pin is True else "unpin"), order


def pinned_order(doc: Document) -> list[str]:
    """The ids of the entries pinned by hand, in the core's order (ranking.pinned.pinned_positions)."""
    from ..ranking.pinned import pinned_positions

    records = doc.records
    return [records[position].id for position in pinned_positions(records, doc.core_order)]
