"""MemoryStore: the one object agents, the CLI, the MCP server and the app all talk to.

Reads are lock-free and cached per file state; every change is a read-modify-write of the newest
file under the lock (see `storage.py`). Pydantic models are only built when a caller asks for them,
so `retrieve_block` -- the per-turn hot path -- never imports pydantic.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
TYPE_CHECKING = False

from . import derived
from .errors import ConflictError, EntryNotFound, InvalidInput
from .inject import render_lines
from .kinds import Kind
from .lang import configured_lang, resolve_lang
from .limits import DEFAULT_LIMITS, Limits
from .keywords import clean_keywords, merge_keywords
from .ranking import Index, document_tokens, pick
from .records import Document, Record, new_id, normalize
from .storage import Change, Storage
from .threats import redact, redact_secrets, scan_text, strip_controls, threat_flags
from .tokenize import tokenize

if TYPE_CHECKING:
    from typing import Any

    from .model import (
        AuditEvent,
        Backup,
        Entry,
        Explanation,
        Health,
        Hit,
        InvalidEntry,
        RememberResult,
        RestoreResult,
        TextCheck,
    )

__all__ = ["MemoryStore", "default_dir", "normalize"]

def default_dir() -> Path:
    env = os.environ.get("MEMTUI_DIR")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("memtui"))


class _Blocked:
    """The blocked entries' positions, judged only when asked about: whether an entry is blocked
    takes a threat scan, and a query meets only the entries it matches. Deliberately not
    iterable, so nothing can scan the whole store through it by accident."""

    __slots__ = ("records", "judged")

    def __init__(self, records: list[Record]) -> None:
        self.records = records
        self.judged: list[int] = []  # positions judged (scanned) while answering, for the derived index

    def __contains__(self, doc_id: object) -> bool:
        record = self.records[doc_id]  # type: ignore[index]
        if record.scanned is None:
            self.judged.append(doc_id)  # type: ignore[arg-type]
        return record.blocked


class _Snapshot:
    """A document plus what is derived from it, built once per file state."""

    __slots__ = ("doc", "records", "_index", "_entries", "limits", "storage", "verdicts_kept")

    def __init__(self, doc: Document, limits: Limits, storage: Storage | None = None) -> None:
        self.doc = doc
        self.storage = storage
        self.verdicts_kept = False
        self.records = doc.records
        self.limits = limits
        self._index: Index | None = None
        self._entries: list[Entry] | None = None

    @property
    def entries(self) -> list[Entry]:
        if self._entries is None:
            self._entries = [_entry(r) for r in self.records]
        return self._entries

    @property
    def index(self) -> Index:
        if self._index is None:
            weight = self.limits.keyword_weight
            found = derived.ensure(self.storage, self.doc) if self.storage is not None else None
            if found is not None and len(found.doc_lens) == len(self.records):
                parts = (found.terms, found.starts, found.ids, found.doc_lens)
                keywords = found.keywords if weight else None
                docs = ()
            else:
                parts = None
                keywords = ([tokenize(k) for k in r.keywords] for r in self.records) if weight else None
                docs = (document_tokens(r.text, r.kind.label, r.kind.value) for r in self.records)
            self._index = Index(
                docs,
                self.limits.k1,
                self.limits.b,
                keywords=keywords,
                keyword_weight=weight,
                keyword_only_terms=self.limits.keyword_only_terms,
                parts=parts,
            )
        return self._index


class MemoryStore:
    """Long-term memory in `<dir>/memory.json`. docs/agents.md gives the contract of each method."""

    def __init__(
        self,
        dir: str | os.PathLike[str] | None = None,
        limits: Limits | None = None,
        actor: str = "api",
        lang: str | None = None,
    ) -> None:
        self.dir = Path(dir).expanduser() if dir is not None else default_dir()
        self.limits = limits or DEFAULT_LIMITS
        self.actor = actor
        # zh, en or auto (docs/injection.md): `lang`, else $MEMTUI_LANG, else zh
        # The nanohermes profile keeps the original block byte for byte, so $MEMTUI_LANG does not
        # change it; an explicit `lang` still does.
        original = lang is None and self.limits.profile_name == "nanohermes"
        self.lang = "zh" if original else configured_lang(lang)
        self._storage = Storage(self.dir, self.limits, actor)
        self._snapshot: _Snapshot | None = None
        self._injection_log = None

    def __repr__(self) -> str:
        return f"MemoryStore({str(self.dir)!r}, actor={self.actor!r})"

    @property
    def path(self) -> Path:
        return self._storage.path

    @property
    def storage(self) -> Storage:
        return self._storage

    # ------------------------------------------------------------------ reading

    def _snap(self) -> _Snapshot:
        doc = self._storage.load()
        if self._snapshot is None or self._snapshot.doc is not doc:
            self._snapshot = _Snapshot(doc, self.limits, self._storage)
        return self._snapshot

    def state(self) -> tuple | None:
        return self._storage.state()

    def entries(self) -> list[Entry]:
        return list(self._snap().entries)

    def __len__(self) -> int:
        return len(self._snap().records)

    def invalid(self) -> list[InvalidEntry]:
        from .model import InvalidEntry

        return [InvalidEntry(index=i, raw=item.raw, error=item.error) for i, item in self._snap().doc.invalid]

    def get(self, id: str) -> Entry:
        for record in self._snap().records:
            if record.id == id:
                return _entry(record)
        raise EntryNotFound(id)

    def eviction_order(self) -> list[Entry]:
        """Valid entries in the order eviction would remove them: first is next."""
        return [_entry(record) for record in _eviction_order(self._snap().records)]

    def _top(self, query: str, top_k: int | None) -> list[tuple[Record, float]]:
        snap = self._snap()
        if not isinstance(query, str) or not snap.records:
            return []
        limits = self.limits
        k = limits.top_k if top_k is None else top_k
        blocked = _Blocked(snap.records)
        hits = pick(snap.index, tokenize(query), k, blocked, limits.stopwords, limits.min_coverage,
                    limits.relative_floor, bool(limits.fold_inflections), limits.general_words)
        if blocked.judged and not snap.verdicts_kept:
            snap.verdicts_kept = True  # once per file state: a long-running process keeps them in memory
            self._keep_verdicts(snap, blocked.judged)
        return [(snap.records[doc_id], score) for doc_id, score in hits]

    def _keep_verdicts(self, snap: _Snapshot, judged: list[int]) -> None:
        """Add the verdicts of the entries this query had scanned to the saved derived index, so
        the next turn (a new process) does not scan them again: the index fills turn by turn."""
        found = snap.doc.derived
        if found is None or len(found.verdicts) != len(snap.records):
            return
        for doc_id in judged:
            scanned = snap.records[doc_id].scanned
            if scanned is not None:
                found.verdicts[doc_id] = list(scanned)
        try:
            derived.save(self._storage, found)
        except Exception:  # an optimisation only
            pass

    def search(self, query: str, top_k: int | None = None) -> list[Hit]:
        from .model import Hit

        if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 0):
            raise InvalidInput(f"top_k must be a non-negative whole number, got {top_k!r}")
        return [Hit(entry=_entry(r), score=s) for r, s in self._top(query, top_k)]

    def language(self, text: object = None, lang: str | None = None) -> str:
        """`zh` or `en`: `lang` (else the store's setting), with `auto` decided by `text`."""
        return resolve_lang(self.lang if lang is None else configured_lang(lang), text)

    def retrieve_block(self, query: str, lang: str | None = None) -> str:
        """The block to put in the system prompt for this turn; "" if nothing fits or on any error.
        Its header and labels follow `lang` (zh, en or auto), else the store's language. Each call
        is logged to `injections.jsonl` (see `injections.py`); logging never fails it."""
        try:
            hits = self._top(query, None)
            lang = self.language(query, lang)
            block = render_lines([record for record, _ in hits], self.limits.char_budget, lang).block
        except Exception:
            return ""
        try:
            if not self._storage.not_a_store:  # another program's folder is never written to
                self.injection_log.record(query, hits, block, lang)
        except Exception:  # logging never costs the agent its memories
            pass
        return block

    @property
    def injection_log(self):
        if self._injection_log is None:
            from .injections import InjectionLog

            self._injection_log = InjectionLog(self.dir, self.limits, self.actor)
        return self._injection_log

    def explain(
        self, query: str, top_k: int | None = None, budget: int | None = None, lang: str | None = None
    ) -> Explanation:
        from .explain import explain

        if not isinstance(query, str):
            raise InvalidInput("query must be a string")
        for name, value in (("top_k", top_k), ("budget", budget)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise InvalidInput(f"{name} must be a non-negative whole number, got {value!r}")
        snap = self._snap()
        return explain(
            snap.records,
            snap.index if snap.records else None,
            query,
            self.limits.top_k if top_k is None else top_k,
            self.limits.char_budget if budget is None else budget,
            self.language(query, lang),
            self.limits,
        )

    def check_text(self, text: str, exclude_id: str | None = None) -> TextCheck:
        """What a write of `text` would do: its stored length, whether it is cut, which entry it
        would be deduped against, and what the threat scan finds. Used for live warnings."""
        from .model import TextCheck

        stored, secrets_found, cut_from = self._clean_text(text)
        duplicate = None
        if stored:
            match = self._find_duplicate(self._snap().records, normalize(stored), exclude_id)
            duplicate = _entry(match) if match else None
        findings = [f.as_dict() for f in secrets_found + [f for f in scan_text(stored) if f.category != "secret"]]
        return TextCheck(length=len(stored), cut=cut_from is not None, original_length=cut_from, duplicate_of=duplicate, findings=findings)

    # ------------------------------------------------------------------ writing

    def _clean_text(self, text: str) -> tuple[str, list, int | None]:
        """The text a write would store: stripped, secrets redacted, cut to max_text. Returns it,
        the secrets found, and the length before the cut (None when it was not cut)."""
        text = text.lstrip("\ufeff").strip()  # a byte-order mark pasted in front is noise, not a threat
        text = strip_controls(text)  # NUL, ESC, backspace...: never stored, so never printed raw
        text, secrets_found = redact(text)
        cut_from = len(text) if len(text) > self.limits.max_text else None
        return text[: self.limits.max_text].strip(), secrets_found, cut_from

    def _prepare_text(self, text: object) -> tuple[str, list[str], int | None]:
        """The text a write stores, its threat flags, and its length before it was cut to
        max_text (None when it was not cut); bad text is an InvalidInput."""
        if not isinstance(text, str):
            raise InvalidInput(f"text must be a string, got {type(text).__name__}")
        if not text.lstrip("\ufeff").strip():
            raise InvalidInput("text is empty")
        text, secrets_found, cut_from = self._clean_text(text)
        if not text:
            raise InvalidInput("text is empty once control characters are removed")
        _require_unicode(text, "text")
        flags = ["secret-redacted"] if secrets_found else []
        flags += threat_flags(scan_text(text))
        return text, flags, cut_from

    def _find_duplicate(self, records: list[Record], key: str, exclude_id: str | None = None) -> Record | None:
        min_bytes = self.limits.dedupe_min_bytes
        key_long = len(key.encode("utf-8", "surrogatepass")) >= min_bytes
        for record in records:
            if record.id == exclude_id:
                continue
            old = record.norm
            if old == key or (key_long and key in old) or (
                old in key and len(old.encode("utf-8", "surrogatepass")) >= min_bytes
            ):
                return record
        return None

    def _write(self, mutate):
        """Run `mutate` under the lock; returns what it returned as its `Change.result`."""
        return self._storage.transact(mutate, self.actor).result

    def remember(
        self, kind: Kind | str, text: str, source: str = "tool", *, keywords: list[str] | None = None
    ) -> RememberResult:
        from .model import RememberResult

        parsed_kind = Kind.require(kind)
        new_keywords = clean_keywords(keywords, self.limits)[0] if keywords is not None else []
        if not isinstance(source, str):
            raise InvalidInput(f"source must be a string, got {type(source).__name__}")
        _require_unicode(source, "source")
        source = redact_secrets(strip_controls(source))
        clean, flags, cut_from = self._prepare_text(text)
        key = normalize(clean)

        def mutate(doc: Document) -> Change:
            records = doc.records
            now = int(time.time())
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
        if expected is not None and _as_view(expected) != record.view():
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
        prepared = self._prepare_text(text) if text is not None else None

        def mutate(doc: Document) -> Change:
            record = self._check_expected(doc.find(id), id, expected)
            before = record.view()
            ops = []
            if prepared is not None and prepared[0] != record.text:
                new_text, new_flags, _cut_from = prepared
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
                record.ts = int(time.time())
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
        old_kind = Kind.require(before.get("kind"))
        old_text, old_flags, _cut = self._prepare_text(before.get("text"))
        note = f"undo: {op} of {_stamp(data.get('at'))} by {data.get('actor') or '?'}"

        def mutate(doc: Document) -> Change:
            current = doc.find(entry_id)
            if after is None:  # a delete or an evict: bring the entry back
                if current is not None:
                    raise ConflictError(entry_id, _entry(current), None)
                record = Record(entry_id, old_kind, old_text, str(before.get("source") or ""),
                                int(before.get("ts") or 0), list(old_flags))
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

    # ------------------------------------------------------------------ backups, audit, health

    def backups(self) -> list[Backup]:
        from .backups import list_backups

        return list_backups(self._storage)

    def backup_entries(self, name: str) -> list[Entry]:
        from .backups import read_backup

        return [_entry(r) for r in read_backup(self._storage, name).records]

    def preview_restore(self, name: str) -> RestoreResult:
        from .backups import diff_documents, read_backup

        return diff_documents(name, self._storage.load(), read_backup(self._storage, name))

    def restore(self, name: str) -> RestoreResult:
        from .backups import restore

        return restore(self._storage, name, self.actor)

    def audit(self, id: str | None = None, op: str | None = None) -> list[AuditEvent]:
        """Audit events, oldest first. With `id`, that entry's history -- including restores
        that brought it back, removed it or changed it."""
        from .model import AuditEvent

        events = []
        for raw in self._storage.audit_lines():
            event = AuditEvent.parse(raw)
            if event is None or (op is not None and event.op != op) or (id is not None and id not in event.touched_ids()):
                continue
            events.append(event)
        return events

    def health(self) -> Health:
        from .health import health

        return health(self._storage, self.limits, self.injection_log)


def _eviction_order(records: list[Record]) -> list[Record]:
    """Highest eviction rank first (facts), then the oldest, then the earliest in store order."""
    order = sorted(range(len(records)), key=lambda i: (-records[i].kind.eviction_rank, records[i].ts, i))
    return [records[i] for i in order]


def _require_unicode(value: str, what: str) -> None:
    """A lone UTF-16 surrogate (half of an emoji, say) cannot be written as UTF-8: refuse it here
    rather than fail inside the write."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInput(
            f"{what} is not valid Unicode: lone surrogate U+{ord(value[exc.start]):04X} at position {exc.start}"
        ) from None


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
    return {key: (value.value if isinstance(value, Kind) else value) for key, value in data.items()}


def _entry(record: Record) -> Entry:
    from .model import Entry

    return Entry.model_construct(
        id=record.id,
        kind=record.kind,
        text=record.text,
        source=record.source,
        ts=record.ts,
        flags=record.effective_flags,
        keywords=record.keywords,
        **{key: value for key, value in record.extra.items() if key != "keywords"},
    )


def _stamp(at: object) -> str:
    """An event's time as UTC, to name it in a note."""
    import datetime as _dt

    if not isinstance(at, (int, float)):
        return "an unknown time"
    return _dt.datetime.fromtimestamp(at, _dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


