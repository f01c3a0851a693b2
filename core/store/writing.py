"""The writes of a MemoryStore: remember, update, delete, approve, bulk changes and undo.

Each write is a read-modify-write of the newest file under the lock (`Storage.transact`): the
mutation gets the whole document, changes it and returns a `Change` (the audit events and what the
write returns). The text of every write is cleaned the same way (cleaning.py): control
characters out, secrets redacted, cut to `max_text`; then scanned for threats.
`MemoryStore` (store.py) is a `Writing`: this class holds no state of its own.
"""

from __future__ import annotations

TYPE_CHECKING = False

from ..errors import ConflictError, EntryNotFound, EvictionRefused, InvalidInput
from ..ranking.keywords import clean_keywords, merge_keywords
from ..kinds import Kind
from .records import Document, Record, new_id, normalize, read_ts
from .entries import _entry, _stamp
from .cleaning import Cleaning, _require_unicode, refuse_fragments
from .pinning import Pinning
from .receiving import Receiving
from .storage import Change
from ..safety.redaction import redact_values
from ..safety.threats import intent_findings, strip_controls

if TYPE_CHECKING:
    from typing import Any

    from ..limits import Limits
    from ..model import Entry, RememberResult
    from .storage import Storage

__all__ = ["Writing"]


class Writing(Cleaning, Pinning, Receiving):
    """The write half of MemoryStore's API (see memory.py for the read half); what a write stores of a
    text: cleaning.py; pins: pinning.py; an entry moved from another store: receiving.py."""

    if TYPE_CHECKING:
        limits: Limits
        actor: str
        _storage: Storage

        def _snap(self) -> Any: ...

        def _now(self) -> int: ...

    def _write(self, mutate):
        """Run `mutate` under the lock; returns what it returned as its `Change.result`. Then, out of
        the lock, the vectors of what was written are kept when this process has the sentence model
        loaded (store/vectors.py: the threat scan's embedding of a text is reused)."""
        result = self._storage.transact(mutate, self.actor).result
        from ..text import semantic

        if semantic.loaded():
            from .vectors import after_write, wanted

            if wanted(self):
                after_write(self)
        return result

    def remember(
        self, kind: Kind | str, text: str, source: str = "tool", *, keywords: list[str] | None = None,
        max_evict: int | None = None,
    ) -> RememberResult:
        """Store one entry (docs/format.md#writing-an-entry). `max_evict`: the most entries this write
        may evict; past it EvictionRefused is raised and nothing is written (None: no bound)."""
        from ..model import RememberResult

        parsed_kind = Kind.require(kind)
        new_keywords = clean_keywords(keywords, self.limits)[0] if keywords is not None else []
        if not isinstance(source, str):
            raise InvalidInput(f"source must be a string, got {type(source).__name__}")
        _require_unicode(source, "source")
        source = clean_source(source, self.limits)[0]
        clean, flags, cut_from, source, _values = self._prepare_entry(text, source, new_keywords)
        key = normalize(clean)

        def mutate(doc: Document) -> Change:
            records = doc.records
            now = self._now()
            match = self._find_duplicate(records, key)
            if match is not None:
                before = match.view()
                match.ts, match.source = now, source
                notes = []
                if match.kind is not parsed_kind:
                    notes.append(f"kind mismatch: kept {match.kind.value}, new text said {parsed_kind.value}")
                merged = merge_keywords(match.keywords, new_keywords, self.limits)
                if merged != match.keywords:
                    notes.append("keywords added: " + ", ".join(merged[len(match.keywords):]))
                    match.keywords = merged
                note = "; ".join(notes) or None
                event = {"op": "refresh", "id": match.id, "before": before, "after": match.view(), "note": note}
                return Change([event], (False, match, []))
            record = Record(new_id(doc.ids()), parsed_kind, clean, source, now, flags)
            record.keywords = new_keywords
            held = len(records)
            over = held + 1 - self.limits.max_entries
            if max_evict is not None and over > max_evict:
                raise EvictionRefused(over, self.limits.max_entries, held)
            doc.items.append(record)
            events = [{"op": "add", "id": record.id, "before": None, "after": record.view()}]
            evicted = self._evict(doc)
            events += [{"op": "evict", "id": r.id, "before": r.view(), "after": None, "note": "store full"} for r in evicted]
            return Change(events, (True, record, evicted))

        added, record, evicted = self._write(mutate)
        return RememberResult(added=added, entry=_entry(record), evicted=[_entry(r) for r in evicted],
                              truncated=cut_from is not None, original_length=cut_from)

    def _evict(self, doc: Document) -> list[Record]:
        """Remove the entries over the cap, first in eviction order (docs/format.md#eviction)."""
        records = doc.records
        excess = len(records) - self.limits.max_entries
        if excess <= 0:
            return []
        evicted = _eviction_order(records)[:excess]
        gone = {id(record) for record in evicted}
        doc.items = [item for item in doc.items if id(item) not in gone]
        return evicted

    def _check_expected(self, record: Record | None, entry_id: str, expected: Any) -> Record:
        if record is None:
            if expected is not None:
                raise ConflictError(entry_id, None, expected)
            raise EntryNotFound(entry_id)
        if expected is not None and _as_view(expected) != _pin_as_entry(record.view()):
            raise ConflictError(entry_id, _entry(record), expected)
        return record

    def update(
        self,
        id: str,
        text: str | None = None,
        kind: Kind | str | None = None,
        expected: Any = None,
        refresh_ts: bool = False,
        *,
        keywords: list[str] | None = None,
    ) -> Entry:
        new_kind = Kind.require(kind) if kind is not None else None
        new_keywords = clean_keywords(keywords, self.limits)[0] if keywords is not None else None
        prepared = self._prepare_entry(text, "", new_keywords or ()) if text is not None else None
        values = prepared[4] if prepared is not None else []

        def mutate(doc: Document) -> Change:
            record = self._check_expected(doc.find(id), id, expected)
            before = record.view()
            ops = []
            if prepared is not None and prepared[0] != record.text:
                new_text, new_flags = prepared[0], prepared[1]
                if values:  # a secret of the new text is redacted in the source too; no keyword holds part of it
                    refuse_fragments([], record.keywords if new_keywords is None else (), values)
                    record.source = redact_values(record.source, values)
                record.set_text(new_text, new_flags)
                ops.append("edit")
            if new_kind is not None and new_kind is not record.kind:
                record.kind = new_kind
                ops.append("reclassify")
            keywords_note = None
            if new_keywords is not None and new_keywords != record.keywords:
                keywords_note = "keywords: " + (", ".join(new_keywords) or "(none)")
                record.keywords = new_keywords
            if refresh_ts:
                record.ts = self._now()
            if not ops and not refresh_ts and keywords_note is None:
                return Change([], record)
            op = ops[0] if ops else "edit"
            notes = ["text and kind changed"] if len(ops) == 2 else []
            if keywords_note is not None:
                notes.append(keywords_note)
            elif not ops:
                notes.append("timestamp refreshed")
            event = {"op": op, "id": id, "before": before, "after": record.view(), "note": "; ".join(notes) or None}
            return Change([event], record)

        return _entry(self._write(mutate))

    def delete(self, id: str, expected: Any = None) -> Entry:
        def mutate(doc: Document) -> Change:
            record = self._check_expected(doc.find(id), id, expected)
            doc.items.remove(record)
            return Change([{"op": "delete", "id": id, "before": record.view(), "after": None}], record)

        return _entry(self._write(mutate))

    def approve(self, id: str, expected: Any = None) -> Entry:
        """Let a blocked entry be injected. The approval holds only for the text as it is now."""
        def mutate(doc: Document) -> Change:
            record = self._check_expected(doc.find(id), id, expected)
            before = record.view()
            if not record.blocked or not record.approve(self._storage.approval_key(create=True)):
                return Change([], record)
            return Change([{"op": "approve", "id": id, "before": before, "after": record.view()}], record)

        return _entry(self._write(mutate))

    def bulk(self, op: str, ids: list[str], kind: Kind | str | None = None,
             expected: dict[str, Any] | None = None) -> list[Entry]:
        """Delete, reclassify (to `kind`) or approve many entries in one write.

        One backup is taken before the write (restoring it takes the whole batch back) and each
        entry gets its own audit event. All or nothing: an id that is missing, or an entry that no
        longer matches `expected[id]`, raises before anything is written. Returns the entries as
        they are after the change (for a delete, as they were).
        """
        if op not in ("delete", "reclassify", "approve"):
            raise InvalidInput(f"bulk takes delete, reclassify or approve, not {op!r}")
        new_kind = Kind.require(kind) if op == "reclassify" else None
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return []

        def mutate(doc: Document) -> Change:
            records = [self._check_expected(doc.find(i), i, (expected or {}).get(i)) for i in wanted]
            events: list[dict] = []
            for record in records:
                before = record.view()
                if op == "delete":
                    doc.items.remove(record)
                    events.append({"op": "delete", "id": record.id, "before": before, "after": None})
                elif op == "reclassify" and record.kind is not new_kind:
                    record.kind = new_kind  # type: ignore[assignment]
                    events.append({"op": "reclassify", "id": record.id, "before": before, "after": record.view()})
                elif op == "approve" and record.blocked and record.approve(self._storage.approval_key(create=True)):
                    events.append({"op": "approve", "id": record.id, "before": before, "after": record.view()})
            return Change(events, records)

        return [_entry(record) for record in self._write(mutate)]

    def undo(self, event: Any) -> Entry:
        """Take back one change from an entry's history, as a new audited change (note "undo: ...").

        `event` is an `AuditEvent` (or its dict) of this store that names an entry: an edit,
        reclassify, approve or refresh puts the entry's text and kind back as they were before it
        (the threat scan judges the text again; an approval comes back only if it was for exactly
        that text); a delete or evict brings the entry back with its id, kind, text, source and time
        (blocked again until approved if the scan flags it); an add deletes the entry it added. If
        the entry changed after that event (or is back already), nothing is written: ConflictError
        says what is there now.
        """
        data = event.model_dump(mode="json") if hasattr(event, "model_dump") else event
        if not isinstance(data, dict):
            raise InvalidInput("undo takes an audit event")
        op, entry_id, before, after = data.get("op"), data.get("id"), data.get("before"), data.get("after")
        if isinstance(entry_id, str) and before is None and op == "add" and isinstance(after, dict):
            return self.delete(entry_id, expected=after)  # undoing an add is a delete, if nothing changed since
        if not isinstance(entry_id, str) or not isinstance(before, dict):
            raise InvalidInput(f"a {op or 'this'} event cannot be undone: it has no entry before it")
        if op in ("pin", "unpin") and isinstance(after, dict):
            return self._undo_pin(data, entry_id, before, after)
        old_kind = Kind.require(before.get("kind"))
        old_text, old_flags, _cut = self._prepare_text(before.get("text"))
        note = f"undo: {op} of {_stamp(data.get('at'))} by {data.get('actor') or '?'}"

        def mutate(doc: Document) -> Change:
            current = doc.find(entry_id)
            if after is None:  # a delete or an evict: bring the entry back
                if current is not None:
                    raise ConflictError(entry_id, _entry(current), None)
                ts = before.get("ts")
                ts = read_ts(ts) if isinstance(ts, (int, float)) and not isinstance(ts, bool) and ts == ts else 0
                record = Record(entry_id, old_kind, old_text, str(before.get("source") or ""), ts, list(old_flags))
                if isinstance(before.get("pinned"), bool):  # back in the core, at its place in the order if named
                    record.pin = before["pinned"]
                record.judge()
                doc.items.append(record)
                events = [{"op": "add", "id": entry_id, "before": None, "after": record.view(), "note": note}]
                evicted = self._evict(doc)
                events += [{"op": "evict", "id": r.id, "before": r.view(), "after": None, "note": "store full"}
                           for r in evicted]
                return Change(events, record)
            record = self._check_expected(current, entry_id, after)
            previous = record.view()
            record.kind = old_kind
            if old_text != record.text or "blocked" not in record.flags and "blocked" in old_flags:
                record.set_text(old_text, list(old_flags))
            if record.view() == previous:
                return Change([], record)
            new_op = "edit" if previous.get("text") != record.text or previous.get("kind") == record.kind.value \
                else "reclassify"
            return Change([{"op": new_op, "id": entry_id, "before": previous, "after": record.view(), "note": note}],
                          record)

        return _entry(self._write(mutate))


def clean_source(source: str, limits: Limits, strict: bool = True) -> tuple[str, str | None]:
    """The source a write stores, and why it was changed (None: it was not). It is shown to people
    and, through the MCP resource, to models, so it is read like the text (docs/threat-scan.md#every-field):
    one the threat scan flags is refused (`strict`, a write) or dropped (an import: the caller
    gives its own), and one longer than max_source_chars refused or cut."""
    source = " ".join(strip_controls(source).split())
    if len(source) > limits.max_source_chars:
        if strict:
            raise InvalidInput(f"source is {len(source):,} characters; at most {limits.max_source_chars} (it names "
                               "where the entry came from)")
        return source[: limits.max_source_chars].rstrip(), f"source cut to {limits.max_source_chars} characters"
    found = intent_findings(source)
    if found:
        why = f"source was flagged by the threat scan ({found[0].category}: {found[0].reason})"
        if strict:
            raise InvalidInput(why + "; a source names where the entry came from")
        return "", why
    return source, None


def _eviction_order(records: list[Record]) -> list[Record]:
    """Highest eviction rank first (facts), then the oldest, then the earliest in store order."""
    order = sorted(range(len(records)), key=lambda i: (-records[i].kind.eviction_rank, records[i].ts, i))
    return [records[i] for i in order]


def _as_view(expected: Any) -> dict:
    if hasattr(expected, "model_dump"):
        data = expected.model_dump(mode="json")
    elif isinstance(expected, dict):
        data = dict(expected)
    else:
        raise InvalidInput("expected must be an Entry or a dict")
    for optional in ("flags", "keywords"):
        if not data.get(optional):
            data.pop(optional, None)
    return _pin_as_entry({key: (value.value if isinstance(value, Kind) else value) for key, value in data.items()})


def _pin_as_entry(view: dict) -> dict:
    """A view with `pinned` as the Entry model has it: present only when pinned (kept out by hand
    and not pinned both read as not pinned)."""
    if view.get("pinned") is not True:
        view.pop("pinned", None)
    return view
