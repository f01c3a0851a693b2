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
from .errors import EntryNotFound, IndexDamaged, InvalidInput
from .ranking.inject import core_line, render_core_block, render_lines
from .lang import configured_lang, resolve_lang
from .limits import DEFAULT_LIMITS, Limits
from .ranking.index import Index, document_tokens
from .ranking.pick import pick
from .store.records import Document, Record, normalize
from .store.storage import Storage
from .store.location import parse_location
from .text.tokenize import tokenize
from .store.history import History
from .store.vectors import Meaning
from .store.writing import Writing, _entry, _eviction_order

if TYPE_CHECKING:
    from typing import Any

    from .store.location import PgLocation

    from .ranking.pinned import Core
    from .model import (
        CoreReport,
        Entry,
        Explanation,
        Hit,
        InvalidEntry,
        RememberResult,
        TextCheck,
    )

__all__ = ["MemoryStore", "default_dir", "normalize"]  # normalize: re-exported for callers of 0.1

def default_dir() -> Path:
    """The folder of the store when none is named: $MEMTUI_DIR, else the platform's data folder
    (a $MEMTUI_DIR that is a database URL: `default_location`)."""
    env = os.environ.get("MEMTUI_DIR")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("memtui"))


def _open_storage(dir, limits: Limits, actor: str):
    """(location, storage): a folder's Storage, or for a postgresql:// URL (store/location.py) its
    location and a PgStorage, whose `dir` is the store's local cache folder."""
    where = dir if dir is not None else os.environ.get("MEMTUI_DIR") or None
    location = parse_location(where) if where is not None else None
    if location is None:
        return None, Storage(Path(dir).expanduser() if dir is not None else default_dir(), limits, actor)
    from .store.pg_storage import PgStorage

    return location, PgStorage(location, limits, actor)


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

    __slots__ = ("doc", "records", "_index", "_entries", "limits", "storage", "verdicts_kept", "_blocked", "_cores",
                 "core_learnt", "meaning")

    def __init__(self, doc: Document, limits: Limits, storage: Storage | None = None) -> None:
        self.doc = doc
        self.storage = storage
        self.verdicts_kept = False
        self.records = doc.records
        self.limits = limits
        self._index: Index | None = None
        self._entries: list[Entry] | None = None
        self._blocked: bytearray | None = None
        self._cores: dict[str, Core] = {}  # the pinned core per language (its labels have their own lengths)
        self.core_learnt: list[int] = []  # positions the core judged or rendered, until they are kept
        self.meaning = None  # the entries' vectors, when meaning ranks (store/vectors.py: Rows)

    def core(self, lang: str, complete: bool = False) -> Core:
        """The pinned core of this file state in `lang` (ranking/pinned.py); `complete` names every
        entry left out (a walk through all the candidates), else it is what a turn needs."""
        key = lang + ("+" if complete else "")
        found = self._cores.get(key)
        if found is None:
            from .ranking.pinned import pick_core

            pins, recent = self._core_candidates()
            blocked = self.blocked()
            found = pick_core(self.records, pins, recent, self.limits, lang, blocked, complete, self.core_learnt)
            self.core_learnt += blocked.judged
            self._cores[key] = found
        return found

    def _core_candidates(self) -> tuple[list[int], dict]:
        found = self.doc.derived
        if found is None and self.storage is not None and self.limits.core_budget > 0:
            try:
                found = derived.ensure(self.storage, self.doc)
            except Exception:  # an optimisation only
                found = None
        if found is not None and found.pins is not None and found.recent is not None and len(
                found.doc_lens) == len(self.records):
            return found.pins, found.recent
        from .ranking.pinned import candidates

        return candidates(self.records, getattr(self.doc, "core_order", []))

    def blocked(self) -> _Blocked:
        """The blocked entries, judged as queries meet them (what is learnt stays for this file state)."""
        if self._blocked is None:
            self._blocked = bytearray(len(self.records))
        return _Blocked(self.records, self._blocked)

    @property
    def entries(self) -> list[Entry]:
        if self._entries is None:
            # with the cyclic collector paused: building an Entry per record (and judging each the
            # first time) makes no cycles, and its passes over the growing heap were 15 of the 51 s
            # of a 100,000-entry store's first listing
            self._entries = derived.without_gc(_entries, self.records)
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


def _entries(records: list[Record]) -> list[Entry]:
    return [_entry(r) for r in records]


def _floor_candidates(k: int) -> int:
    """How many of the gate's hits meaning may judge for `k` slots (semantic_floor.pool_size)."""
    from .ranking.semantic_floor import pool_size

    return pool_size(k)


def _by_meaning(store: MemoryStore, snap: _Snapshot, query: str, hits: list[tuple[int, float]], k: int,
                blocked: _Blocked, core) -> list[tuple[int, float]]:
    """The words' hits judged by meaning (store/vectors.py, `judge`); the words' first `k` when it cannot judge."""
    from .store.vectors import judge

    return judge(store, snap, query, hits, k, blocked, core)[0] if k > 0 else []


def check_explain_args(query: object, top_k: object, budget: object) -> None:
    """InvalidInput (one line) for explain's arguments: a query that is not text, a top-k or budget
    that is not a non-negative whole number (MemoryStore.explain and Scoped.explain)."""
    if not isinstance(query, str):
        raise InvalidInput("query must be a string")
    for name, value in (("top_k", top_k), ("budget", budget)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise InvalidInput(f"{name} must be a non-negative whole number, got {value!r}")


class MemoryStore(History, Writing, Meaning):
    """Long-term memory in `<dir>/memory.json`. docs/agents.md gives the contract of each method."""

    def __init__(
        self,
        dir: str | os.PathLike[str] | PgLocation | None = None,
        limits: Limits | None = None,
        actor: str = "api",
        lang: str | None = None,
    ) -> None:
        base = limits or DEFAULT_LIMITS
        self.actor = actor
        # zh, en or auto (docs/injection.md): `lang`, else $MEMTUI_LANG, else auto (the user's language)
        # The nanohermes profile keeps the original block byte for byte, so $MEMTUI_LANG does not
        # change it; an explicit `lang` still does.
        original = lang is None and base.profile_name == "nanohermes"
        self.lang = "zh" if original else configured_lang(lang)
        self.location, self._storage = _open_storage(dir, base, actor)
        self.dir = self._storage.dir
        self._snapshot: _Snapshot | None = None
        self._injection_log = None

    @property
    def limits(self) -> Limits:
        """The limits in force: the ones given (`limits=`), with the store's own in place of every
        field left at its default (store_limits.py). Read from the file as last loaded (the first
        use loads it)."""
        storage = self._storage
        if storage._adopted is None:
            storage.load(lean=True)
        return storage.limits

    @limits.setter
    def limits(self, value: Limits) -> None:
        self._storage.set_base_limits(value)
        self._snapshot = None

    def store_limits(self) -> tuple[dict, list[str]]:
        """The limits the store itself carries (valid ones, as stored) and what it carries that is
        not a valid limit, one line each."""
        self._storage.load(lean=True)
        return dict(self._storage.carried), list(self._storage.carried_errors)

    def set_limits(self, changes: dict | None = None, unset: list[str] | tuple[str, ...] = ()) -> Limits:
        """Change the limits the store carries (memory.json's top-level `limits`): set each of
        `changes` (name: value), remove each of `unset` (back to the default). One audited write
        (op `limits`); InvalidInput, and nothing written, for an unknown name or a bad value.
        Returns the limits in force after it. Lowering max_entries evicts nothing by itself."""
        from .store.limits_write import change

        change(self._storage, dict(changes or {}), tuple(unset), self.actor)
        self._snapshot = None
        return self.limits

    def _now(self) -> int:
        """The Unix time a write stamps (one place, so a test can set the clock)."""
        return int(time.time())

    def __repr__(self) -> str:
        return f"MemoryStore({self.where!r}, actor={self.actor!r})"

    @property
    def where(self) -> str:
        """The store's folder, or its database URL without the password: what messages show."""
        return self.location.display if self.location is not None else str(self.dir)

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
        """The hits of `query` (the pinned core left aside: `search` ranks every entry)."""
        return self._turn(query, top_k, render)[0]

    def _turn(self, query: str, top_k: int | None, render: bool = False,
              core_lang: str | None = None) -> tuple[list[tuple[Record, float]], Core | None]:
        """The hits of `query` and, with `core_lang`, the pinned core in that language: the hits
        then never repeat a core entry and are `top_k` beside it. With `render`, each hit's `plain`
        is worked out too (the block is made of them), so what this turn learnt is kept for the
        next in one save. A saved derived index that turns out not to add up is derived again,
        and the query answered from that."""
        try:
            return self._turn_once(query, top_k, render, core_lang)
        except IndexDamaged:
            self._index_damaged()
            return self._turn_once(query, top_k, render, core_lang)

    def _index_damaged(self) -> None:
        self._storage.drop_index()
        self._snapshot = None

    def _turn_once(self, query: str, top_k: int | None, render: bool,
                   core_lang: str | None) -> tuple[list[tuple[Record, float]], Core | None]:
        snap = self._snap(lean=True)
        if not snap.records:
            return [], None
        limits = self.limits
        core = snap.core(core_lang) if core_lang is not None and limits.core_budget > 0 else None
        if not isinstance(query, str):
            return [], core
        k = limits.top_k if top_k is None else top_k
        in_core = core.picked if core is not None else ()
        blocked = snap.blocked()
        meaning = limits.semantic_floor or limits.semantic_admit  # a profile that ranks by meaning too
        wanted = k + len(in_core)  # the core's entries are ranked too, then set aside: they are in the block already
        hits = pick(snap.index, tokenize(query), wanted if not meaning else _floor_candidates(wanted), blocked,
                    limits.stopwords, limits.min_coverage, limits.relative_floor, bool(limits.fold_inflections),
                    limits.general_words, bool(limits.language_stopwords))
        if in_core:
            hits = [(doc_id, score) for doc_id, score in hits if doc_id not in in_core]
            if not meaning:
                hits = hits[:k]
        if meaning:
            hits = _by_meaning(self, snap, query, hits, k, blocked, in_core)
        learnt = blocked.judged
        if snap.core_learnt:
            learnt += snap.core_learnt
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
        return [(snap.records[doc_id], score) for doc_id, score in hits], core

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

    def retrieve_block(self, query: str, lang: str | None = None, *, core: bool = True) -> str:
        """The block to put in the system prompt for this turn; "" if nothing fits or on any error.
        Its header and labels follow `lang` (zh, en or auto), else the store's language. It carries
        the pinned core first, in a section of its own (`Limits.core_budget`, beside `top_k`),
        then the entries retrieved for `query`, which never repeat a core entry; `core=False`
        gives the retrieved part only, for a caller that hands the core over once per session
        (`core_block`). Each call is logged to `injections.jsonl` (see `injections.py`); logging
        never fails it."""
        try:
            lang = self.language(query, lang)
            hits, picked = self._turn(query, None, render=True, core_lang=lang)
            lines = picked.lines if picked is not None and core else ()
            block = render_lines([record for record, _ in hits], self.limits.char_budget, lang, lines).block
        except Exception:
            return ""
        try:
            # A read never writes into a folder that is not a store: another program's, or one with
            # no memory.json (nothing was injected from it; the query is not left there).
            if not self._storage.not_a_store and self._storage.loaded_state() is not None:
                self.injection_log.record(query, hits, block, lang, core=picked.records if lines else ())
        except Exception:  # logging never costs the agent its memories
            pass
        return block

    def core_block(self, lang: str | None = None) -> str:
        """The pinned core on its own, as a fenced block with its own markers (`set_block` keeps it
        apart from the retrieved block): "" when the core is empty. Never raises."""
        try:
            lang = self.language(None, lang)
            picked = self._turn(None, None, core_lang=lang)[1]
            return render_core_block(picked.lines, lang) if picked is not None else ""
        except Exception:
            return ""

    def core(self, lang: str | None = None) -> CoreReport:
        """Which entries are in the pinned core, in order, with each line's characters; which were
        left out for the budget (every one of them); the pinned ones blocked by the threat scan;
        and those kept out by hand (docs/injection.md#the-pinned-core)."""
        return _core_report(self._snap(), self.limits, self.language(None, lang))

    @property
    def injection_log(self):
        if self._injection_log is None:
            from .store.injections import log_for

            self._injection_log = log_for(self._storage, self.limits, self.actor)
        return self._injection_log

    def explain(
        self, query: str, top_k: int | None = None, budget: int | None = None, lang: str | None = None
    ) -> Explanation:
        from .ranking.explain import explain

        check_explain_args(query, top_k, budget)
        lang = self.language(query, lang)
        for attempt in (1, 2):
            snap = self._snap()
            try:
                return explain(
                    snap.records,
                    snap.index if snap.records else None,
                    query,
                    self.limits.top_k if top_k is None else top_k,
                    self.limits.char_budget if budget is None else budget,
                    lang,
                    self.limits,
                    (core := snap.core(lang) if snap.records and self.limits.core_budget > 0 else None),
                    self._meaning_judge(snap, query, core.picked if core is not None else ()),
                )
            except IndexDamaged:
                if attempt == 2:
                    raise
                self._index_damaged()
        raise AssertionError("unreachable")

    # ------------------------------------------------------------------ backups, audit, health


def _core_report(snap: _Snapshot, limits: Limits, lang: str) -> CoreReport:
    """`MemoryStore.core`: the core of this file state, every entry it leaves out named."""
    from .model import CoreMember, CoreReport

    picked = snap.core(lang, complete=True) if limits.core_budget > 0 and snap.records else None
    entries = snap.entries

    def member(position: int, chars: int | None = None) -> CoreMember:
        record = snap.records[position]
        how = "pinned" if record.pin is True else "kind"
        size = chars if chars is not None else len(core_line(record, lang))
        return CoreMember(entry=entries[position], how=how, chars=size)

    if picked is None:
        members, left_out, blocked = [], [], []
    else:
        members = [member(p, len(line)) for p, line in zip(picked.picked, picked.lines)]
        left_out = [member(p) for p in picked.left_out]
        blocked = [entries[p] for p in picked.blocked]
    kept_out = [entries[i] for i, record in enumerate(snap.records) if record.pin is False]
    return CoreReport(budget=limits.core_budget, used=picked.used if picked else 0, kinds=list(limits.core_kinds),
                      lang=lang, entries=members, left_out=left_out, blocked=blocked, kept_out=kept_out)
