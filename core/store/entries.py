"""An entry as callers see it: the Entry model built from a light record, and a time stamp for notes."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..model import Entry
    from .records import Record

__all__ = ["_entry", "_stamp"]


def _entry(record: Record) -> Entry:
    from ..model import Entry

    extra = {key: value for key, value in record.extra.items() if key not in _FIELDS_OF_EXTRA} if record.extra else None
    # Every field is set (fields another program added are extras, which the set never names), so
    # the set of the fields set is the same for every entry: one shared set instead of one each (at
    # 100,000 entries they took 49 MiB). Entry is frozen, so pydantic never adds to it, and
    # model_copy copies it before updating it.
    return Entry.model_construct(
        _ENTRY_FIELDS,
        id=record.id,
        kind=record.kind,
        text=record.text,
        source=record.source,
        ts=record.ts,
        flags=record.effective_flags,
        keywords=record.keywords,
        pinned=record.pinned,
        **(extra or {}),
    )


_ENTRY_FIELDS = {"id", "kind", "text", "source", "ts", "flags", "keywords", "pinned"}
_FIELDS_OF_EXTRA = ("keywords", "pinned")  # optional fields of the file that the Entry model reads itself


def _stamp(at: object) -> str:
    """An event's time as UTC, to name it in a note."""
    import datetime as _dt

    if not isinstance(at, (int, float)):
        return "an unknown time"
    return _dt.datetime.fromtimestamp(at, _dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
