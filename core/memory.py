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

from .store import derived
from .errors import EntryNotFound, InvalidInput
from .ranking.inject import render_lines
from .lang import configured_lang, resolve_lang
from .limits import DEFAULT_LIMITS, Limits
from .ranking.index import Index, document_tokens, pick
from .store.records import Document, Record, normalize
from .store.storage import Storage
from .text.tokenize import tokenize
from .store.writing import Writing, _entry, _eviction_order

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

__all__ = ["MemoryStore", "default_dir", "normalize"]  # normalize: re-exported for callers of 0.1

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

    __slots__ = ("records", "judged", "state")

    def __init__(self, records: list[Record], state: bytearray) -> None:
        self.records = records
        self.judged: list[int] = []  # positions judged (scanned) while answering, for the derived index
        # per position, what is known of this file state: 0 not judged yet, 1 open, 2 blocked (read in
        # bulk by vector_pick; the snapshot keeps it, so an entry is judged once per file state)
        self.state = state

    def __contains__(self, doc_id: object) -> bool:
        known = self.state[doc_id]  # type: ignore[index]
        if known:
            return known == 2
        record = self.records[doc_id]  # type: ignore[index]
        if record.scanned is None:
            self.judged.append(doc_id)  # type: ignore[arg-type]
        blocked = record.blocked
        self.state[doc_id] = 2 if blocked else 1  # type: ignore[index]
        return blocked


class _Snapshot:
    """A document plus what is derived from it, built once per file state."""

    __slots__ = ("doc", "records", "_index", "_entries", "limits", "storage", "verdicts_kept", "_blocked", "meaning")

    def __init__(self, doc: Document, limits: Limits, storage: Storage | None = None) -> None:
        self.doc = doc
        self.storage = storage
        self.verdicts_kept = False
        self.records = doc.records
        self.limits = limits
        self._index: Index | None = None
        self._entries: list[Entry] | None = None
        self._blocked: bytearray | None = None
        self.meaning = None  # the entries' vectors, when meaning ranks (store/vectors.py: Rows)

    def blocked(self) -> _Blocked:
        """The blocked entries, judged as queries meet them (what is learnt stays for this file state)."""
        if self._blocked is None:
            self._blocked = bytearray(len(self.records))
        return _Blocked(self.records, self._blocked)

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
                keyword_part_weight=self.limits.keyword_part_weight,
                general_words=self.limits.general_words,
            )
        return self._index


def _floor_candidates(k: int) -> int:
    """How many of the gate's hits meaning may judge for `k` slots (semantic_floor.pool_size)."""
    from .ranking.semantic_floor import pool_size

    return pool_size(k)


class MemoryStore(Writing):
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
        self._vectors = None  # store/vectors.Table, made when meaning first ranks

    def _now(self) -> int:
        """The Unix time a write stamps (one place, so a test can set the clock)."""
        return int(time.time())

    def __repr__(self) -> str:
        return f"MemoryStore({str(self.dir)!r}, actor={self.actor!r})"

    @property
    def path(self) -> Path:
        return self._storage.path

    @property
    def storage(self) -> Storage:
        return self._storage

    # ------------------------------------------------------------------ reading

    def _snap(self, lean: bool = False) -> _Snapshot:
        """The snapshot of the current file state; `lean`: only to answer a query (Storage.load)."""
        doc = self._storage.load(lean)
        if self._snapshot is None or self._snapshot.doc is not doc:
            self._snapshot = _Snapshot(doc, self.limits, self._storage)
        return self._snapshot

    def state(self) -> tuple | None:
        return self._storage.state()

    def entries(self) -> list[Entry]:
        snap = self._snap()
        first = snap._entries is None
        entries = snap.entries  # the first listing judges every entry: the scan of each text not yet known
        if first:
            self._keep_all_verdicts(snap)
        return list(entries)

    def _keep_all_verdicts(self, snap: _Snapshot) -> None:
        """Save every entry's verdict, now all are known, in the derived index of this file state
        (made now if there is none), so the next process that lists the store (the app, `list`,
        `doctor`) reads them instead of scanning every text again."""
        try:
            found = derived.ensure(self._storage, snap.doc)
        except Exception:  # an optimisation only
            return
        if found is None or len(found.verdicts) != len(snap.records):
            return
        unknown = [i for i, verdict in enumerate(found.verdicts) if verdict is None]
        if unknown:
            self._keep_verdicts(snap, unknown)

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
        """Valid entries in the order eviction would remove them: first is next.

        The same Entry objects as `entries()` (built once per file state): the app asks for both on
        every load, and building every entry a second time took as long as the listing."""
        snap = self._snap()
        entries = snap.entries
        position = {id(record): i for i, record in enumerate(snap.records)}
        return [entries[position[id(record)]] for record in _eviction_order(snap.records)]

    def _top(self, query: str, top_k: int | None, render: bool = False) -> list[tuple[Record, float]]:
        """The hits of `query`; with `render`, each hit's `plain` is worked out too (the block is
        made of them), so what this turn learnt is kept for the next in one save."""
        snap = self._snap(lean=True)
        if not isinstance(query, str) or not snap.records:
            return []
        limits = self.limits
        k = limits.top_k if top_k is None else top_k
        blocked = snap.blocked()
        meaning = limits.semantic_floor or limits.semantic_admit
        tokens = tokenize(query)
        hits = pick(snap.index, tokens, k if not meaning else _floor_candidates(k), blocked, limits.stopwords,
                    limits.min_coverage, limits.relative_floor, bool(limits.fold_inflections), limits.general_words,
                    bool(limits.language_stopwords))
        if meaning and k > 0:
            hits = self._by_meaning(snap, query, hits, k, blocked)[0]
        learnt = blocked.judged
        if render:
            from .ranking.inject import clean_text

            for doc_id, _score in hits:
                record = snap.records[doc_id]
                if record.plain is None:
                    clean_text(record)
                    learnt.append(doc_id)
        if learnt and not snap.verdicts_kept:
            snap.verdicts_kept = True  # once per file state: a long-running process keeps them in memory
            self._keep_verdicts(snap, learnt)
        return [(snap.records[doc_id], score) for doc_id, score in hits]

    def _by_meaning(self, snap: _Snapshot, query: str, hits: list[tuple[int, float]], k: int, blocked):
        """The words' hits judged by meaning (ranking/meaning.py): (picked, the Choice or None, a
        note or None). Without the model, the words' first `k` and a note saying why."""
        from .ranking.index import split_query
        from .store.vectors import judge

        limits = self.limits
        terms, _ = split_query(tokenize(query), limits.stopwords, snap.index.vocabulary if limits.fold_inflections else None,
                               None, bool(limits.language_stopwords), limits.general_words)
        return judge(self, snap, query, hits, k, blocked, terms)

    def warm(self, wait: bool = True) -> str:
        """Ready this store to rank by meaning (a profile with `semantic_floor` or `semantic_admit`):
        load the sentence model and every entry's vector, embedding those missing (here with `wait`,
        else in the background). A long-running process may call it at start; a turn then pays one
        embedding. Returns "ok", or why meaning is unavailable (the words rank alone)."""
        if not (self.limits.semantic_floor or self.limits.semantic_admit):
            return "ok"
        from .store.vectors import warm

        return warm(self, wait)

    def _keep_verdicts(self, snap: _Snapshot, learnt: list[int]) -> None:
        """Add what this query learnt about entries (the verdicts of those it had scanned, whether
        the texts of its hits are plain) to the saved derived index, so the next turn (a new
        process) does not work it out again: the index fills turn by turn."""
        found = snap.doc.derived
        if found is None or len(found.verdicts) != len(snap.records):
            return
        for doc_id in learnt:
            record = snap.records[doc_id]
            if record.scanned is not None:
                found.verdicts[doc_id] = list(record.scanned)
            if record.plain is not None:
                found.plain[doc_id] = record.plain
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
            hits = self._top(query, None, render=True)
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
            from .store.injections import InjectionLog

            self._injection_log = InjectionLog(self.dir, self.limits, self.actor)
        return self._injection_log

    def explain(
        self, query: str, top_k: int | None = None, budget: int | None = None, lang: str | None = None
    ) -> Explanation:
        from .ranking.explain import explain

        if not isinstance(query, str):
            raise InvalidInput("query must be a string")
        for name, value in (("top_k", top_k), ("budget", budget)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise InvalidInput(f"{name} must be a non-negative whole number, got {value!r}")
        snap = self._snap()
        judge = None
        if self.limits.semantic_floor or self.limits.semantic_admit:
            def judge(hits, k):  # the very judgement retrieve_block makes
                return self._by_meaning(snap, query, hits, k, snap.blocked())
        return explain(
            snap.records,
            snap.index if snap.records else None,
            query,
            self.limits.top_k if top_k is None else top_k,
            self.limits.char_budget if budget is None else budget,
            self.language(query, lang),
            self.limits,
            judge,
        )

    # ------------------------------------------------------------------ backups, audit, health

    def backups(self) -> list[Backup]:
        from .store.backups import list_backups

        return list_backups(self._storage)

    def backup_entries(self, name: str) -> list[Entry]:
        from .store.backups import read_backup

        return [_entry(r) for r in read_backup(self._storage, name).records]

    def preview_restore(self, name: str) -> RestoreResult:
        from .store.backups import diff_documents, read_backup

        return diff_documents(name, self._storage.load(), read_backup(self._storage, name))

    def restore(self, name: str) -> RestoreResult:
        from .store.backups import restore

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
        from .store.health import health

        return health(self._storage, self.limits, self.injection_log)
