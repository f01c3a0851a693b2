"""A memory file ready to answer queries without being parsed.

When the derived index (derived.py) of memory.json's exact bytes can be trusted and found the file
canonical (records.Document.canonical), it knows where each entry's object is in those bytes. A
query then reads the index's arrays, scores the postings of its own terms, and parses with orjson
only the entries it meets (the hits, and those it asks whether they are blocked). Nothing is
checked again: the index was derived from a full parse of these bytes, by this code (its key
names both). Everything else (listing, editing, health) parses the whole file as before.
"""

from __future__ import annotations

import orjson

from .records import canonical_record

__all__ = ["LeanDocument", "LazyRecords"]


class LazyRecords:
    """The valid entries of a canonical file as a read-only sequence, each parsed on first use."""

    __slots__ = ("_data", "_spans", "_found", "_approval", "_made")

    def __init__(self, data: bytes, found, approval_key: bytes | None) -> None:
        self._data = data
        self._spans = found.spans
        self._found = found
        self._approval = approval_key
        self._made: dict = {}

    def __len__(self) -> int:
        return len(self._spans) // 2

    def __bool__(self) -> bool:
        return len(self._spans) > 0

    def __getitem__(self, position: int):
        record = self._made.get(position)
        if record is None:
            count = len(self)
            if not isinstance(position, int) or not -count <= position < count:
                raise IndexError(position)
            position %= count
            record = self._made.get(position)
            if record is None:
                spans = self._spans
                try:
                    record = canonical_record(orjson.loads(self._data[spans[2 * position] : spans[2 * position + 1]]))
                except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
                    from ..errors import IndexDamaged

                    raise IndexDamaged(f"the index's span of entry {position} is not that entry") from None
                record.key = self._approval
                scanned = self._found.verdicts[position]
                if scanned is not None:
                    record._scanned = list(scanned)  # judged when first needed, without a scan
                record.plain = self._found.plain[position]
                self._made[position] = record
        return record

    def __iter__(self):
        for position in range(len(self)):
            yield self[position]


class LeanDocument:
    """Stands in for records.Document where only queries are answered (store.MemoryStore._top)."""

    __slots__ = ("records", "derived", "key", "canonical", "data", "top")

    def __init__(self, data: bytes, key: str, found, approval_key: bytes | None) -> None:
        self.records = LazyRecords(data, found, approval_key)
        self.top = {"limits": found.limits} if found.limits else {}  # what store_limits reads of the top level
        self.derived = found
        self.key = key
        self.canonical = True
        self.data = None
