"""Changing the limits a store carries (store_limits.py): one audited write through the storage.

Kept apart from store_limits.py, which the storage and the derived index read on every load:
this module writes through the storage, so the storage must not import it.
"""

from __future__ import annotations

from ..errors import InvalidInput
from ..limits import Limits
from .storage import Change
from .store_limits import LIMITS_KEY, _defaults, json_value

__all__ = ["change"]


def change(storage, changes: dict, unset: tuple[str, ...], actor: str) -> None:
    """Set `changes` and remove `unset` in the limits the store carries, as one audited write
    (`MemoryStore.set_limits`). InvalidInput, before anything is written, for a bad name or value."""
    names = set(_defaults())
    for name in list(changes) + list(unset):
        if name not in names:
            raise InvalidInput(f"{name!r} is not a limit (see `memtui limits`)")
    try:
        Limits(**changes)
    except (TypeError, ValueError) as exc:
        raise InvalidInput(str(exc)) from None
    changes = {name: json_value(value) for name, value in changes.items()}

    def mutate(doc) -> Change:
        old = doc.top.get(LIMITS_KEY)
        before = dict(old) if isinstance(old, dict) else {}
        after = {name: value for name, value in before.items() if name not in unset}
        after.update(changes)
        if after == before and (old is None) == (not after):
            return Change([])
        notes = [f"{name}: {_shown(before.get(name, '(default)'))} -> {_shown(after.get(name, '(default)'))}"
                 for name in sorted(set(before) | set(after)) if before.get(name) != after.get(name)]
        if after:
            doc.top[LIMITS_KEY] = after
        else:
            doc.top.pop(LIMITS_KEY, None)
        return Change([{"op": "limits", "id": None, "before": before or None, "after": after or None,
                        "note": "; ".join(notes) or None}])

    storage.transact(mutate, actor)


def _shown(value: object) -> str:
    """A limit's value in an audit note (a long word list by its size)."""
    if isinstance(value, list) and len(value) > 5:
        return f"<{len(value)} words>"
    return str(value)
