"""Project and global scopes: which stores a command reads, and which one a write goes to.

A project store is a `.memtui/` folder at a project's root, found by walking up from the folder a
command runs in (`find_project`). The global store is the one every command used before scopes
(`$MEMTUI_DIR`, else the platform data dir). `store_locations` turns a working folder and an
optional `--dir` into the list of (scope, location) to open, and nothing else: how a location is
opened stays MemoryStore's business.

`Scoped` holds those stores (one or two MemoryStores, never changed inside) and reads them as ONE
candidate set: the entries of both, each labelled with its scope, ranked by one BM25 index over
their union, through one gate, one top-k, one budget, one pinned core. An entry held by both
stores (the same text) counts once, the project's copy. A read takes no lock; a write takes the
lock of the one store it writes. docs/scopes.md says all of it for a user.

Writes: `scope="project"|"global"`, else preferences go to the global store and every other kind
to the project store when there is one (`default_scope`). A move between scopes is an audited add
in the target, then an audited delete in the source: a crash between them leaves a copy in both,
which reads show once and `duplicates()` (the doctor) names. The moved entry keeps its id (unless
the target holds it), its pin and place in the core, and, moved by a person, its approval.
"""

from __future__ import annotations

import os
from pathlib import Path

from .errors import EntryNotFound, IndexDamaged, InvalidInput, StoreUnwritable
from .kinds import Kind

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .limits import Limits
    from .memory import MemoryStore
    from .model import Entry, Explanation, Hit, RememberResult
    from .store.receiving import Received

__all__ = ["PROJECT_FOLDER", "SCOPES", "ScopeError", "Scoped", "default_scope", "find_project", "git_root",
           "offers_scopes", "project_for_write", "store_locations"]

PROJECT_FOLDER = ".memtui"
SCOPES = ("project", "global")


class ScopeError(InvalidInput):
    """A scope that names no store, a working folder that does not exist, a project store that
    cannot be made: one line saying what to do."""


# ---------------------------------------------------------------------------- where the stores are


def working_folder(cwd: str | os.PathLike[str] | None) -> Path:
    """`cwd` (else the process's own) as an absolute path; ScopeError when it is not a folder."""
    if cwd is None:
        try:
            return Path(os.getcwd())
        except OSError:  # the folder was removed under the process
            raise ScopeError("the current folder no longer exists; cd into a project or pass --dir") from None
    if not isinstance(cwd, (str, os.PathLike)) or not str(cwd).strip():
        raise ScopeError(f"the working folder {cwd!r} is not a folder name")
    path = Path(os.path.abspath(os.path.expanduser(os.fspath(cwd))))
    if not path.is_dir():
        raise ScopeError(f"the working folder {path} does not exist or is not a folder")
    return path


def find_project(cwd: str | os.PathLike[str] | None = None) -> Path | None:
    """The nearest `.memtui/` folder from `cwd` upward (the project store), or None."""
    folder = working_folder(cwd)
    for place in (folder, *folder.parents):
        candidate = place / PROJECT_FOLDER
        if os.path.isdir(candidate):
            return candidate
    return None


def git_root(cwd: str | os.PathLike[str] | None = None) -> Path | None:
    """The nearest folder from `cwd` upward holding `.git` (a folder, or a worktree's file)."""
    folder = working_folder(cwd)
    for place in (folder, *folder.parents):
        if os.path.lexists(place / ".git"):
            return place
    return None


def _same(a: object, b: object) -> bool:
    try:
        return os.path.realpath(os.fspath(a)) == os.path.realpath(os.fspath(b))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


def store_locations(cwd: str | os.PathLike[str] | None = None, dir: Any = None,
                    global_location: Any = None) -> list[tuple[str | None, Any]]:
    """The stores a command reads, as (scope, location): with `dir`, exactly that one store and no
    scope (None); else the project store when `cwd` is inside one, then the global store
    (`global_location`, else $MEMTUI_DIR, else the platform data dir). A project folder that is
    the global store itself counts once, as global."""
    if dir is not None:
        return [(None, dir)]
    if global_location is None:
        from .memory import default_dir
        from .store.location import is_database

        env = os.environ.get("MEMTUI_DIR")
        global_location = env if env and is_database(env) else default_dir()  # a URL never as a Path
    found: list[tuple[str | None, Any]] = []
    project = find_project(cwd)
    if project is not None and not _same(project, global_location):
        found.append(("project", project))
    found.append(("global", global_location))
    return found


def project_for_write(cwd: str | os.PathLike[str] | None = None) -> Path:
    """Where a write asking for the project scope goes: the nearest `.memtui/`, else `.memtui/`
    at the git root (made by the store's first write, 0700). ScopeError when there is neither."""
    found = find_project(cwd)
    if found is not None:
        return found
    root = git_root(cwd)
    if root is not None:
        return root / PROJECT_FOLDER
    raise ScopeError(f"no project store for {working_folder(cwd)}: no {PROJECT_FOLDER}/ here or above, and no git "
                     f"repository; run `memtui init-project` in the project's root folder, or write with "
                     f"--scope global")


def offers_scopes(scoped: Any) -> bool:
    """Whether a write may name a scope here: a project store is read beside the global one, or
    none exists yet but a project write would make one (`Scoped.open` without `--dir`, inside a
    git repository: `.memtui/` at its root, as `project_for_write` says)."""
    if scoped.scoped:
        return True
    if scoped._make_store is None or scoped.stores[0][0] != "global":
        return False
    try:
        return git_root(scoped.cwd) is not None
    except ScopeError:  # the working folder is gone
        return False


def default_scope(kind: Kind | str, has_project: bool) -> str:
    """Where a write goes when it names no scope: a preference is about the user, so global; any
    other kind is about the work at hand, so the project store when there is one."""
    parsed = Kind.require(kind)
    if parsed is Kind.PREFERENCE or not has_project:
        return "global"
    return "project"


def text_key(text: str) -> str:
    """What makes two entries "the same entry" across stores: their text, whitespace and case aside."""
    return " ".join(text.split()).casefold()


# ---------------------------------------------------------------------------- one candidate set


class ScopedRecord:
    """A record of one store, seen in the union: every attribute is the record's, plus `scope`
    (the block's line carries it: ranking/inject.py)."""

    __slots__ = ("record", "scope")

    def __init__(self, record: Any, scope: str) -> None:
        self.record = record
        self.scope = scope

    def __getattr__(self, name: str) -> Any:
        return getattr(self.record, name)

    @property
    def plain(self) -> Any:
        return self.record.plain

    @plain.setter
    def plain(self, value: Any) -> None:
        self.record.plain = value


class _Union:
    """The records of every store as one list (duplicates across stores left out), with the index,
    the blocked set and the pinned core built over that list; made once per pair of file states."""

    __slots__ = ("key", "records", "duplicates", "order", "limits", "snaps", "where", "_index", "_state", "_cores")

    def __init__(self, parts: list[tuple[str, Any]], limits: Limits) -> None:
        self.key = tuple(id(snap.doc) for _scope, snap in parts)
        self.limits = limits
        records: list[ScopedRecord] = []
        seen: dict[str, ScopedRecord] = {}
        self.duplicates: list[tuple[ScopedRecord, ScopedRecord]] = []  # (the one kept, the one left out)
        order: list[str] = []
        self.snaps = [snap for _scope, snap in parts]
        self.where: list[tuple[int, int]] = []  # each record's (part, position in its store): its vector
        for part, (scope, snap) in enumerate(parts):
            for local, record in enumerate(snap.records):
                key = text_key(record.text)
                kept = seen.get(key)
                if kept is not None:
                    if kept.scope != scope:
                        self.duplicates.append((kept, ScopedRecord(record, scope)))
                        continue
                scoped = ScopedRecord(record, scope)
                seen.setdefault(key, scoped)
                records.append(scoped)
                self.where.append((part, local))
            order += list(getattr(snap.doc, "core_order", None) or ())
        self.records = records
        self.order = order
        self._index = None
        self._state = bytearray(len(records))
        self._cores: dict[str, Any] = {}

    @property
    def index(self):
        if self._index is None:
            from .ranking.index import Index, document_tokens
            from .text.tokenize import tokenize

            limits = self.limits
            weight = limits.keyword_weight
            records = self.records
            self._index = Index(
                (document_tokens(r.text, r.kind.label, r.kind.value) for r in records), limits.k1, limits.b,
                keywords=([tokenize(k) for k in r.keywords] for r in records) if weight else None,
                keyword_weight=weight, keyword_only_terms=limits.keyword_only_terms,
                keyword_part_weight=limits.keyword_part_weight, general_words=limits.general_words,
            )
        return self._index

    def blocked(self):
        from .memory import _Blocked

        return _Blocked(self.records, self._state)  # type: ignore[arg-type]

    def core(self, lang: str, complete: bool = False):
        key = lang + ("+" if complete else "")
        found = self._cores.get(key)
        if found is None:
            from .ranking.pinned import candidates, pick_core

            pins, recent = candidates(self.records, self.order)
            found = pick_core(self.records, pins, recent, self.limits, lang, self.blocked(), complete)
            self._cores[key] = found
        return found


class _Concat:
    """The records of several stores as one read-only sequence, each seen as a ScopedRecord, made
    (and the store's own record parsed) only when reached: a turn meets only its hits and the core."""

    __slots__ = ("parts", "starts", "n", "made")

    def __init__(self, parts: list[tuple[str, Any]]) -> None:
        self.parts = parts
        self.starts: list[int] = []
        n = 0
        for _scope, records in parts:
            self.starts.append(n)
            n += len(records)
        self.n = n
        self.made: dict[int, ScopedRecord] = {}

    def __len__(self) -> int:
        return self.n

    def __bool__(self) -> bool:
        return self.n > 0

    def __getitem__(self, position: int) -> ScopedRecord:
        found = self.made.get(position)
        if found is None:
            if not 0 <= position < self.n:
                raise IndexError(position)
            from bisect import bisect_right

            part = bisect_right(self.starts, position) - 1
            scope, records = self.parts[part]
            found = self.made[position] = ScopedRecord(records[position - self.starts[part]], scope)
        return found

    def __iter__(self):
        return (self[i] for i in range(self.n))


class _LeanUnion:
    """The per-turn union: each store's saved derived index (store/derived.py) joined for the terms
    of one query only, so a turn over two stores parses, like a turn over one, only the entries it
    meets. Entries held by both stores are left out of the hits and the core as they are met."""

    __slots__ = ("key", "records", "snaps", "offsets", "limits", "_state", "_cores", "_lens", "_keywords",
                 "learnt")

    def __init__(self, parts: list[tuple[str, Any]], limits: Limits) -> None:
        self.key = tuple(id(snap.doc) for _scope, snap in parts)
        self.limits = limits
        self.snaps = [snap for _scope, snap in parts]
        self.records = _Concat([(scope, snap.records) for scope, snap in parts])
        self.offsets = self.records.starts
        self._state = bytearray(len(self.records))
        self._cores: dict[str, Any] = {}
        self.learnt: list[int] = []  # positions judged or rendered: kept in each store's derived index
        from itertools import chain

        founds = [snap.doc.derived for snap in self.snaps]
        self._lens = list(chain.from_iterable(found.doc_lens for found in founds))
        self._keywords = list(chain.from_iterable(found.keywords for found in founds)) if limits.keyword_weight \
            else None

    @staticmethod
    def possible(parts: list[tuple[str, Any]]) -> bool:
        """Whether every store has a derived index of its current file state (else: the full union)."""
        for _scope, snap in parts:
            snap.index  # derives and saves the store's index when it has none yet (as a turn over one store does)
            found = snap.doc.derived
            if found is None or len(found.doc_lens) != len(snap.records):
                return False
        return True

    def index_for(self, tokens: list[str]):
        """An index of the union holding the postings of `tokens` (and the stored forms they fold
        to), with the statistics of every entry of both stores: n, lengths, keywords."""
        from array import array

        from .ranking.index import Index, fold_inflections

        limits = self.limits
        indexes = [snap.index for snap in self.snaps]
        wanted = dict.fromkeys(tokens)
        if limits.fold_inflections:
            folded: dict[str, str] = {}
            fold_inflections(tokens, _UnionVocabulary(indexes), limits.stopwords, folded)
            wanted.update(dict.fromkeys(folded.values()))
        terms: list[str] = []
        starts = array("i", [0])
        ids = array("i")
        for term in wanted:
            before = len(ids)
            for index, offset in zip(indexes, self.offsets):
                slot = index._slot.get(term)
                if slot is not None:
                    run = index._ids[index._starts[slot]:index._starts[slot + 1]]
                    if len(run) and (min(run) < 0 or max(run) >= index.n):  # would name another store's entry
                        raise IndexDamaged("a saved index's postings name entries its store does not hold")
                    ids.extend(doc_id + offset for doc_id in run)
            if len(ids) > before:
                terms.append(term)
                starts.append(len(ids))
        return Index((), limits.k1, limits.b, keywords=self._keywords, keyword_weight=limits.keyword_weight,
                     keyword_only_terms=limits.keyword_only_terms, parts=(terms, starts, ids, self._lens),
                     keyword_part_weight=limits.keyword_part_weight, general_words=limits.general_words)

    def blocked(self):
        from .memory import _Blocked

        found = _Blocked(self.records, self._state)  # type: ignore[arg-type]
        found.judged = self.learnt  # what is judged here is kept (`keep`)
        return found

    def keep(self, stores: list, positions: list[int]) -> None:
        """Save what this turn learnt of each store's entries (their threat verdicts, whether their
        text is plain: `positions` and what was judged) in that store's derived index, as a turn
        over one store does (MemoryStore._keep_verdicts), so the next turn does not scan them again."""
        from bisect import bisect_right

        by_part: dict[int, list[int]] = {}
        judged = set(self.learnt)
        for position in dict.fromkeys([*self.learnt, *positions]):
            part = bisect_right(self.offsets, position) - 1
            local = position - self.offsets[part]
            saved = self.snaps[part].doc.derived
            if position in judged or (saved is not None and saved.plain[local] is None):  # new to the index
                by_part.setdefault(part, []).append(local)
        for part, local in by_part.items():
            snap = self.snaps[part]
            if not snap.verdicts_kept:
                snap.verdicts_kept = True  # once per file state, as for one store
                stores[part][1]._keep_verdicts(snap, local)

    def core(self, lang: str, complete: bool = False):
        key = lang + ("+" if complete else "")
        found = self._cores.get(key)
        if found is None:
            from heapq import merge

            from .ranking.pinned import pick_core

            records = self.records
            pins: list[int] = []
            recents: dict[str, list[list[int]]] = {}
            for snap, offset in zip(self.snaps, self.offsets):
                own_pins, own_recent = snap._core_candidates()
                pins += [p + offset for p in own_pins]
                for kind, positions in own_recent.items():
                    recents.setdefault(kind, []).append([p + offset for p in positions])
            recent = {kind: merge(*lists, key=lambda p: (-records[p].ts, -p)) for kind, lists in recents.items()}
            found = _without_copies(pick_core(records, pins, recent, self.limits, lang, self.blocked(), complete,
                                              self.learnt))
            self._cores[key] = found
        return found


class _UnionVocabulary:
    """The terms of several indexes, as `fold_inflections` asks about them."""

    __slots__ = ("indexes",)

    def __init__(self, indexes: list) -> None:
        self.indexes = indexes

    def __contains__(self, term: object) -> bool:
        return any(term in index.vocabulary for index in self.indexes)

    def df(self, term: str) -> int:
        return sum(index.df(term) for index in self.indexes)


def _without_copies(core: Any) -> Any:
    """The core with a second entry of the same text (one in each store) left out."""
    seen: set[str] = set()
    keep = []
    for i, record in enumerate(core.records):
        key = text_key(record.text)
        if key not in seen:
            seen.add(key)
            keep.append(i)
    if len(keep) != len(core.records):
        core.picked = [core.picked[i] for i in keep]
        core.records = [core.records[i] for i in keep]
        core.lines = [core.lines[i] for i in keep]
        core.used = sum(len(line) for line in core.lines)
    return core


class Scoped:
    """One or two stores read as one (see the module's docstring). `stores` is [(scope, store)],
    the project store first; a scope of None is the one store `--dir` named."""

    def __init__(self, stores: list[tuple[str | None, MemoryStore]], cwd: str | os.PathLike[str] | None = None,
                 make_store: Any = None) -> None:
        if not stores:
            raise ValueError("Scoped needs a store")
        self.stores = list(stores)
        self.cwd = cwd
        self._make_store = make_store  # opens a new project store for a write asking for one
        self._union: _Union | None = None

    @classmethod
    def open(cls, dir: Any = None, *, cwd: str | os.PathLike[str] | None = None, actor: str = "api",
             lang: str | None = None, limits: Limits | None = None, global_store: MemoryStore | None = None,
             ) -> Scoped:
        """The stores a command in `cwd` reads (`store_locations`), opened; `global_store`, when
        given, is the global one (a host's own store: a Hermes profile's)."""
        from .memory import MemoryStore

        def make(location: Any) -> MemoryStore:
            return MemoryStore(location, limits=limits, actor=actor, lang=lang)

        if dir is None:
            working_folder(cwd)  # a folder that does not exist says so, whatever the store
        where = (global_store.location or global_store.dir) if global_store is not None else None
        opened = [(scope, global_store if scope == "global" and global_store is not None else make(location))
                  for scope, location in store_locations(cwd, dir, where)]
        return cls(opened, cwd, make if dir is None else None)

    # ------------------------------------------------------------------ which store

    @property
    def scoped(self) -> bool:
        """Whether more than one store is read (the block's lines and explain then name the scope)."""
        return len(self.stores) > 1

    @property
    def scopes(self) -> list[str | None]:
        return [scope for scope, _store in self.stores]

    @property
    def main(self) -> MemoryStore:
        """The global store (or the one `--dir` named): its limits and language govern the combined read."""
        return self.stores[-1][1]

    @property
    def project(self) -> MemoryStore | None:
        return self.stores[0][1] if self.stores[0][0] == "project" else None

    @property
    def lang(self) -> str:
        return self.main.lang

    @property
    def limits(self) -> Limits:
        return self.main.limits

    def language(self, text: object = None, lang: str | None = None) -> str:
        return self.main.language(text, lang)

    def store(self, scope: str | None) -> MemoryStore:
        """The store of `scope` (None: the main one). ScopeError for a scope that names no store."""
        if scope is None:
            return self.main
        if scope not in SCOPES:
            raise ScopeError(f"unknown scope {scope!r}: use project or global")
        for name, store in self.stores:
            if name == scope:
                return store
        if self.stores[0][0] is None:
            raise ScopeError(f"--dir names one store, which has no scopes; leave out --scope {scope} or --dir")
        if scope == "global":  # only the project store was opened (--scope project)
            raise ScopeError("only the project store is open here (--scope project): leave it out to reach the "
                             "global store")
        raise ScopeError(f"no {scope} store here (no {PROJECT_FOLDER}/ in this folder or above): run `memtui "
                         f"init-project` in the project's root folder, or use the global scope")

    def write_store(self, kind: Kind | str, scope: str | None = None) -> tuple[str | None, MemoryStore]:
        """The store a new entry of `kind` goes to: `scope` when given, else `default_scope`. A
        project write where no project store exists yet opens one at the git root."""
        if self.stores[0][0] is None:
            if scope is not None:
                self.store(scope)  # says --dir has no scopes
            return None, self.main
        if scope is None:
            if self._make_store is None and len(self.stores) == 1:  # one scope opened on its own: that one
                return self.stores[0][0], self.main
            scope = default_scope(kind, self.project is not None)
        elif scope not in SCOPES:
            raise ScopeError(f"unknown scope {scope!r}: use project or global")
        if scope == "project" and self.project is None and self._make_store is not None:
            location = project_for_write(self.cwd)
            store = self._make_store(location)
            self.stores.insert(0, ("project", store))
            self._union = None
        return scope, self.store(scope)

    def remember(self, kind: Kind | str, text: str, source: str = "tool", *, scope: str | None = None,
                 **options: Any) -> tuple[str | None, RememberResult]:
        """`MemoryStore.remember` in the store `write_store` picks; (scope, its result)."""
        where, store = self.write_store(kind, scope)
        try:
            return where, store.remember(kind, text, source, **options)
        except StoreUnwritable as error:
            if where == "project":
                raise StoreUnwritable(f"the project store cannot be written ({error}); write with --scope "
                                      f"global, or make the folder writable") from None
            raise

    def locate(self, entry_id: str) -> tuple[str | None, MemoryStore]:
        """The store holding `entry_id` (the project's first). EntryNotFound when none does."""
        for scope, store in self.stores:
            try:
                store.get(entry_id)
            except EntryNotFound:
                continue
            return scope, store
        raise EntryNotFound(entry_id)

    # ------------------------------------------------------------------ listing

    def entries(self) -> list[tuple[str | None, Entry]]:
        """Every entry with its scope, project first; one held by both stores is listed once (the
        project's copy: `duplicates` names the other)."""
        if not self.scoped:
            return [(self.stores[0][0], entry) for entry in self.main.entries()]
        found: list[tuple[str | None, Entry]] = []
        earlier: set[str] = set()  # the texts of the stores listed before this one
        for scope, store in self.stores:
            own = store.entries()
            found += [(scope, entry) for entry in own if text_key(entry.text) not in earlier]
            earlier.update(text_key(entry.text) for entry in own)
        return found

    def duplicates(self) -> list[tuple[Entry, Entry]]:
        """Entries held by both stores (the same text): (the project's, the global's). What a move
        cut short by a crash leaves; deleting either copy (or moving again) fixes it."""
        if not self.scoped:
            return []
        project = {text_key(e.text): e for e in self.stores[0][1].entries()}
        return [(project[text_key(e.text)], e) for e in self.main.entries() if text_key(e.text) in project]

    def __len__(self) -> int:
        return len(self.entries()) if self.scoped else len(self.main)

    def move(self, entry_id: str, to: str, *, person: bool = False) -> Received:
        """Move an entry to the store of scope `to`: an audited add there (store/receiving.py: its
        id unless that store holds it, its kind, text, source, keywords and time, its pin and place
        in the core), then an audited delete where it was. A crash between the two leaves it in
        both, never in neither. `person`: a person moves it (the app, the CLI), so an approval it
        had is made again by the target store (`approve` event); an agent's move leaves it blocked
        there (`Received.approved` is False). Returns what the target did (`Received.entry`)."""
        from .store.pinning import pinned_order

        source_scope, source = self.locate(entry_id)
        if to == source_scope:
            raise ScopeError(f"entry {entry_id} is already in the {to} store")
        _where, target = self.write_store(Kind.FACT, to)
        entry = source.get(entry_id)
        order = pinned_order(source._snap().doc) if entry.pinned else []
        note = f"moved from the {source_scope} store" + (f" (id {entry_id} there)" if source_scope else "")
        received = target.receive(entry, core_position=order.index(entry_id) if entry_id in order else None,
                                  approve=person, note=note)
        source.delete(entry_id)
        self._union = None
        return received

    # ------------------------------------------------------------------ reading both as one

    def _combined(self, lean: bool) -> _Union | _LeanUnion:
        """The union of this file state of each store: a turn's (`lean`) joins the stores' derived
        indexes when they all have one; explain, search and a store without one index the union."""
        parts = [(scope, store._snap(lean=lean)) for scope, store in self.stores]
        key = tuple(id(snap.doc) for _scope, snap in parts)
        if self._union is None or self._union.key != key or isinstance(self._union, _LeanUnion) != lean:
            try:
                usable = lean and _LeanUnion.possible(parts)
            except Exception:  # an optimisation only
                usable = False
            self._union = _LeanUnion(parts, self.limits) if usable else _Union(parts, self.limits)  # type: ignore
        return self._union

    def _turn(self, query: Any, top_k: int | None, core_lang: str | None):
        """The hits of `query` over the union and, with `core_lang`, its pinned core (`_ranked`). A
        saved index that does not add up is derived again, and the turn answered from every entry."""
        try:
            return _ranked(self.stores, self._combined(lean=True), self.limits, query, top_k, core_lang)
        except IndexDamaged:
            for _scope, store in self.stores:
                store._index_damaged()
            self._union = _Union([(scope, store._snap()) for scope, store in self.stores], self.limits)
            return _ranked(self.stores, self._union, self.limits, query, top_k, core_lang)

    def retrieve_block(self, query: str, lang: str | None = None, *, core: bool = True) -> str:
        """`MemoryStore.retrieve_block` over both stores: each line names its scope. Logged in the
        injection log of each store that gave it an entry. Never raises."""
        if not self.scoped:
            return self.main.retrieve_block(query, lang=lang, core=core)
        from .ranking.inject import render_lines

        try:
            lang = self.language(query, lang)
            hits, picked = self._turn(query, None, lang)
            lines = picked.lines if picked is not None and core else ()
            block = render_lines([record for record, _ in hits], self.limits.char_budget, lang, lines).block
        except Exception:
            return ""
        union = self._union
        if isinstance(union, _LeanUnion):
            try:
                union.keep(self.stores, [position for position, record in union.records.made.items()
                                         if record.plain is not None])
            except Exception:  # an optimisation only
                pass
        _log(self.stores, query, hits, block, lang, picked.records if lines else ())
        return block

    def core_block(self, lang: str | None = None) -> str:
        """The pinned core of both stores as one fenced block ("" when empty). Never raises."""
        if not self.scoped:
            return self.main.core_block(lang=lang)
        from .ranking.inject import render_core_block

        try:
            lang = self.language(None, lang)
            picked = self._turn(None, None, lang)[1]
            return render_core_block(picked.lines, lang) if picked is not None else ""
        except Exception:
            return ""

    def search(self, query: str, top_k: int | None = None) -> list[tuple[str | None, Hit]]:
        """The best entries for `query` over both stores, each with its scope."""
        if not self.scoped:
            return [(self.stores[0][0], hit) for hit in self.main.search(query, top_k)]
        from .model import Hit
        from .store.entries import _entry

        if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 0):
            raise InvalidInput(f"top_k must be a non-negative whole number, got {top_k!r}")
        hits = self._turn(query, top_k, None)[0]
        return [(r.scope, Hit(entry=_entry(r.record), score=s)) for r, s in hits]

    def explain(self, query: str, top_k: int | None = None, budget: int | None = None,
                lang: str | None = None) -> Explanation:
        """`MemoryStore.explain` over the one candidate set of both stores: each row's `scope` says
        which store the entry came from (None when one store is read)."""
        if not self.scoped:  # one store: no scope to tell apart (`scope` stays None)
            return self.main.explain(query, top_k=top_k, budget=budget, lang=lang)
        from .ranking.explain import explain

        from .memory import check_explain_args

        check_explain_args(query, top_k, budget)
        lang = self.language(query, lang)
        limits = self.limits
        for attempt in (1, 2):
            union = self._combined(lean=False)
            records = union.records
            try:
                core = union.core(lang) if records and limits.core_budget > 0 else None
                found = explain(records, union.index if records else None, query,  # type: ignore[arg-type]
                                limits.top_k if top_k is None else top_k,
                                limits.char_budget if budget is None else budget, lang, limits, core,
                                self._judge(union, query, core.picked if core is not None else ()))
            except IndexDamaged:
                if attempt == 2:
                    raise
                for _scope, store in self.stores:
                    store._index_damaged()
                self._union = None
                continue
            scope_of = {r.id: r.scope for r in reversed(records)}
            for row in found.entries:
                row.scope = scope_of.get(row.id)
            return found
        raise AssertionError("unreachable")

    def _judge(self, union: _Union, query: str, core: Any):
        """explain's judge over both stores (`MemoryStore._meaning_judge`), or None when the
        profile does not rank by meaning."""
        limits = self.limits
        if not (limits.semantic_floor or limits.semantic_admit):
            return None
        from .store.vectors import judge_parts

        parts = [(store, snap) for (_scope, store), snap in zip(self.stores, union.snaps)]
        return lambda hits, k: judge_parts(parts, union.where, union.index, limits, query, hits, k, union.blocked(),
                                           core)

    def __repr__(self) -> str:
        return "Scoped(" + ", ".join(f"{scope}={store.where}" for scope, store in self.stores) + ")"


def _log(stores: list, query: str, hits: list, block: str, lang: str, core: Any) -> None:
    """Each store logs the turn with the entries it gave (the block as a whole); a turn nothing
    came from is logged by the first store that exists (the project's)."""
    logged = False
    for scope, store in stores:
        mine = [(r.record, s) for r, s in hits if r.scope == scope]
        own_core = [r.record for r in core if r.scope == scope]
        if not mine and not own_core and (logged or scope != stores[0][0]):
            continue
        try:
            storage = store.storage
            if storage.not_a_store or storage.state() is None:
                continue
            store.injection_log.record(query, mine, block, lang, core=own_core)
            logged = True
        except Exception:  # logging never costs the agent its memories
            pass


def _ranked(stores: list, union: Any, limits: Limits, query: Any, top_k: int | None, core_lang: str | None):
    """memory.py's `_turn` over one candidate set made of both stores: the hits of `query` and,
    with `core_lang`, the pinned core; the hits never repeat a core entry, nor an entry twice."""
    records = union.records
    if not records:
        return [], None
    core = union.core(core_lang) if core_lang is not None and limits.core_budget > 0 else None
    if not isinstance(query, str):
        return [], core
    from .ranking.pick import pick
    from .text.tokenize import tokenize

    k = limits.top_k if top_k is None else top_k
    in_core = core.picked if core is not None else ()
    meaning = limits.semantic_floor or limits.semantic_admit  # a profile that ranks by meaning too
    lean = isinstance(union, _LeanUnion)
    wanted = (2 * k if lean else k) + len(in_core)  # lean: room for copies met among the hits
    if meaning:
        from .ranking.semantic_floor import pool_size

        wanted = pool_size(wanted)
    tokens = tokenize(query)
    index = union.index_for(tokens) if lean else union.index  # type: ignore[union-attr]
    blocked = union.blocked()
    hits = pick(index, tokens, wanted, blocked, limits.stopwords, limits.min_coverage,
                limits.relative_floor, bool(limits.fold_inflections), limits.general_words,
                bool(limits.language_stopwords))
    if in_core:
        hits = [(doc_id, score) for doc_id, score in hits if doc_id not in in_core]
    if meaning:
        from .store.vectors import judge_parts

        parts = [(store, snap) for (_scope, store), snap in zip(stores, union.snaps)]
        hits = judge_parts(parts, None if lean else union.where, index, limits, query, hits, k, blocked,
                           in_core)[0]
    if lean or meaning:  # the same entry in both stores (or admitted beside its copy): the first met only
        seen = {text_key(record.text) for record in (core.records if core is not None else ())}
        unique = []
        for doc_id, score in hits:
            key = text_key(records[doc_id].text)
            if key not in seen:
                seen.add(key)
                unique.append((doc_id, score))
        hits = unique
    hits = hits[:k]
    return [(records[doc_id], score) for doc_id, score in hits], core
