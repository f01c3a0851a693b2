"""Probes: retrieval regression tests a person keeps, in `<dir>/probes.json`.

A probe is a query and what retrieval must do with it: inject every one of some entries, or
inject nothing at all. Running the probes asks the store's own `explain`, so a failing probe says
why in the words explain uses (the status and the reason of the expected entry, or of each entry
injected when nothing was expected).

The file gets the care memory.json gets: written atomically (0600) under the store's lock, read
without following a symbolic link, secrets in a query redacted before it is stored, and a file
that cannot be read as probes moved aside to `probes.json.broken-<stamp>` and reported, never
emptied in place. Items of the file that are not valid probes are kept exactly as they were.

This module is loaded only by the commands and screens that use probes, never on the per-turn path.

    {"probes": [
      {"id": "3f09a1c2", "query": "部署怎么跑", "expect": ["0123456789ab"], "ts": 1764540000},
      {"id": "77be01d4", "query": "What is the capital of Australia?", "expect": "nothing", "ts": 1764540060}
    ]}
"""

from __future__ import annotations

import errno
import os
import re
import time
from pathlib import Path
from typing import Any

import orjson
from pydantic import BaseModel, Field

from ..errors import InvalidInput, MemtuiError
from ..model import EntryExplanation, Explanation, Status
from ..store.records import Corrupt, Document, dumps, parse_document
from ..store.fileio import SymlinkRefused, atomic_write, free_name, fsync_dir, read_file, utc_stamp
from ..memory import MemoryStore, _Snapshot
from ..safety.threats import redact

__all__ = [
    "NOTHING", "PROBES_NAME", "PROBES_BROKEN_PREFIX", "MAX_QUERY", "Probe", "ProbeFile", "ProbeMiss",
    "ProbeNotFound", "ProbeResult", "ProbeRun", "ProbeWouldBreak", "ProbesUnreadable", "add_probe",
    "load_probes", "probes_path", "probes_state", "remove_probe", "run_probes", "would_break",
]

PROBES_NAME = "probes.json"
PROBES_BROKEN_PREFIX = PROBES_NAME + ".broken-"
NOTHING = "nothing"
MAX_QUERY = 2000  # a user message, not a document: explain builds a row per term and entry
_ENTRY_ID = re.compile(r"[0-9a-f]{12}\Z")
_PROBE_ID = re.compile(r"[0-9a-f]{4,32}\Z")
_KNOWN = ("id", "query", "expect", "ts")


class ProbeNotFound(MemtuiError, KeyError):
    def __init__(self, probe_id: object) -> None:
        super().__init__(f"no probe with id {probe_id!r} (`memtui probe list` shows them)")
        self.id = probe_id


class ProbesUnreadable(MemtuiError):
    """probes.json cannot be read (a symbolic link, or corrupt and impossible to move aside)."""


# ---------------------------------------------------------------------------- models


class Probe(BaseModel):
    """A query and what it must inject: `expect` lists entry ids; empty means "nothing"."""

    id: str
    query: str
    expect: list[str] = Field(default_factory=list)
    ts: int = 0

    @property
    def expects_nothing(self) -> bool:
        return not self.expect


class InvalidProbe(BaseModel):
    """An item of probes.json that is not a probe: kept as it is, never run."""

    index: int
    raw: Any
    error: str


class ProbeFile(BaseModel):
    """What probes.json holds, and what happened reading it."""

    path: str
    probes: list[Probe] = Field(default_factory=list)
    invalid: list[InvalidProbe] = Field(default_factory=list)
    quarantined: str | None = None  # the name a corrupt file was moved to by this read
    error: str | None = None  # why it was moved
    broken: list[str] = Field(default_factory=list)  # every probes.json.broken-* still in the store


class ProbeMiss(BaseModel):
    """One reason a probe fails: an expected entry that was not injected, or an entry injected
    when nothing was expected. `status` and `reason` are explain's; `missing` when the entry is gone."""

    id: str
    status: str
    reason: str
    rank: int | None = None
    score: float = 0.0
    text: str | None = None


class ProbeResult(BaseModel):
    probe: Probe
    passed: bool
    injected: list[str] = Field(default_factory=list)  # every entry the query injects now, the pinned core first
    misses: list[ProbeMiss] = Field(default_factory=list)
    # of `injected`, the pinned core's: in every block, so a hit when expected and never a recall
    pinned: list[str] = Field(default_factory=list)
    # run over a project store and the global one (core/scopes.py): the store each expected (and each
    # injected) entry is in
    scopes: dict[str, str] = Field(default_factory=dict)

    @property
    def retrieved(self) -> list[str]:
        """The injected entries that the query retrieved (not the pinned core's)."""
        return [entry_id for entry_id in self.injected if entry_id not in self.pinned]

    @property
    def hits(self) -> int:
        return sum(1 for entry_id in self.probe.expect if entry_id in self.injected)


class ProbeRun(BaseModel):
    """Every probe run once against the store as it is."""

    results: list[ProbeResult] = Field(default_factory=list)
    invalid: list[InvalidProbe] = Field(default_factory=list)
    quarantined: str | None = None
    error: str | None = None
    broken: list[str] = Field(default_factory=list)  # corrupt probes files set aside, still in the store
    passed: int = 0
    failed: int = 0
    expected: int = 0  # expected entries over all probes that expect some
    hits: int = 0  # of those, how many were injected
    hit_rate: float | None = None  # hits / expected; None without such probes
    nothing_probes: int = 0
    recalled: int = 0  # probes expecting nothing that injected something
    false_recall: float | None = None  # recalled / nothing_probes; None without such probes
    others: int = 0  # entries injected beside the expected ones, over all probes that expect some
    others_per_probe: float | None = None  # others / probes that expect some; None without such probes

    @property
    def ok(self) -> bool:
        return self.failed == 0 and not self.invalid and self.quarantined is None


class ProbeWouldBreak(BaseModel):
    """A probe that passes now and would fail after a change being typed."""

    probe: Probe
    after: ProbeResult


# ---------------------------------------------------------------------------- the file


def probes_path(store: MemoryStore) -> Path:
    return store.dir / PROBES_NAME


def probes_state(store: MemoryStore) -> object:
    """A cheap token that changes when any process changes the store's probes (a screen looks at it
    every second): the file's state in a folder; in a database, a count of the notifications of
    changes to its shared files (no query)."""
    shared = _shared(store)
    if shared is not None:
        return shared.change_token()
    try:
        st = os.lstat(probes_path(store))
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _shared(store: MemoryStore):
    """A database store's shared files (pg_storage.PgFiles), where its probes live; None for a folder."""
    return store.storage.files if store.location is not None else None


def _read_bytes(path: Path) -> bytes | None:
    """The file's bytes, None if it does not exist. A symbolic link is refused, not followed."""
    try:
        return read_file(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if isinstance(exc, SymlinkRefused) or exc.errno == errno.ELOOP or os.path.islink(path):
            raise ProbesUnreadable(
                f"{path} is a symbolic link; memtui does not follow it (put the file itself there)"
            ) from None
        raise ProbesUnreadable(f"cannot read {path}: {exc.strerror or exc}") from None


def _parse(data: bytes) -> tuple[dict, list[Probe | InvalidProbe]]:
    """The top-level object and its items in file order; `Corrupt` if it is not a probes file."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        top = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        if not data.strip():
            raise Corrupt("empty file") from None
        raise Corrupt(f"not JSON: {exc}") from None
    if not isinstance(top, dict):
        raise Corrupt("top level is not an object with a probes list")
    if not isinstance(top.get("probes"), list):
        raise Corrupt("no probes list" if "probes" not in top else "probes is not a list")
    items: list[Probe | InvalidProbe] = []
    taken: set[str] = set()
    for index, raw in enumerate(top["probes"]):
        probe, error = _check(raw, taken)
        if probe is None:
            items.append(InvalidProbe(index=index, raw=raw, error=error))
        else:
            taken.add(probe.id)
            items.append(probe)
    return top, items


def _check(raw: object, taken: set[str]) -> tuple[Probe | None, str]:
    if not isinstance(raw, dict):
        return None, "not an object"
    query = raw.get("query")
    if not isinstance(query, str) or not query.strip():
        return None, "missing query" if query is None else "query is not a non-empty string"
    expect = raw.get("expect")
    if expect == NOTHING:
        ids: list[str] = []
    elif isinstance(expect, list) and expect and all(isinstance(i, str) and _ENTRY_ID.match(i) for i in expect):
        ids = list(dict.fromkeys(expect))
    else:
        return None, 'expect is neither "nothing" nor a non-empty list of entry ids'
    probe_id = raw.get("id")
    if probe_id is None:
        probe_id = _derived_id(query, taken)
    elif not isinstance(probe_id, str) or not _PROBE_ID.match(probe_id):
        return None, "id is not 4 to 32 lowercase hex characters"
    elif probe_id in taken:
        return None, f"id {probe_id} is used by an earlier probe"
    ts = raw.get("ts", 0)
    if isinstance(ts, bool) or not isinstance(ts, (int, float)) or ts != ts or abs(ts) == float("inf"):
        return None, "ts is not a number"
    return Probe(id=probe_id, query=query, expect=ids, ts=int(ts)), ""


def _derived_id(query: str, taken: set[str]) -> str:
    import hashlib

    salt = 0
    while True:
        candidate = hashlib.sha256(f"{query}\n{salt}".encode("utf-8", "surrogatepass")).hexdigest()[:8]
        if candidate not in taken:
            return candidate
        salt += 1


def _to_json(probe: Probe, extra: dict | None = None) -> dict:
    out: dict = {"id": probe.id, "query": probe.query, "expect": list(probe.expect) or NOTHING, "ts": probe.ts}
    for key, value in (extra or {}).items():
        if key not in out:
            out[key] = value
    return out


class _Loaded:
    """The file as read: its top-level object, its items, and the unknown fields of each probe."""

    def __init__(self, top: dict, items: list[Probe | InvalidProbe], raws: list[object]) -> None:
        self.top = top
        self.items = items
        self.raws = raws

    def to_bytes(self) -> bytes:
        probes = []
        for item, raw in zip(self.items, self.raws):
            if isinstance(item, InvalidProbe):
                probes.append(item.raw)
            else:
                extra = {k: v for k, v in raw.items() if k not in _KNOWN} if isinstance(raw, dict) else None
                probes.append(_to_json(item, extra))
        top = {key: (probes if key == "probes" else value) for key, value in self.top.items()}
        if "probes" not in top:
            top = {"probes": probes, **top}
        return dumps(top, indent=True) + b"\n"


def _quarantine(path: Path) -> Path:
    broken = free_name(path.parent, f"{PROBES_BROKEN_PREFIX}{utc_stamp()}")
    os.rename(path, broken)
    fsync_dir(path.parent)
    return broken


def _broken_files(directory: Path) -> list[str]:
    try:
        return sorted(name for name in os.listdir(directory) if name.startswith(PROBES_BROKEN_PREFIX))
    except OSError:
        return []


def _read(store: MemoryStore, locked: bool) -> tuple[_Loaded, str | None, str | None]:
    """The file (empty if there is none) plus, when it was corrupt, where it went and why.
    Outside the lock a corrupt file is moved aside under it, unless it changed meanwhile."""
    path = probes_path(store)
    shared = _shared(store)
    data = shared.read(PROBES_NAME) if shared is not None else _read_bytes(path)
    if data is None:
        return _Loaded({"probes": []}, [], []), None, None
    try:
        top, items = _parse(data)
    except Corrupt as exc:
        error = str(exc)
        if not locked:
            try:
                return _with_lock(store, lambda: _read(store, True))
            except ProbesUnreadable:
                raise
            except MemtuiError as why:
                raise ProbesUnreadable(f"{path} is corrupt ({error}) and could not be moved aside: {why}") from None
        if shared is not None:
            broken_name = f"{PROBES_BROKEN_PREFIX}{utc_stamp()}"
            shared.rename(PROBES_NAME, broken_name)
            return _Loaded({"probes": []}, [], []), broken_name, error
        try:
            broken = _quarantine(path)
        except OSError as why:
            raise ProbesUnreadable(
                f"{path} is corrupt ({error}) and could not be moved aside: {why.strerror or why}"
            ) from None
        return _Loaded({"probes": []}, [], []), broken.name, error
    return _Loaded(top, items, list(top["probes"])), None, None


def _with_lock(store: MemoryStore, work):
    """Run `work` holding the store's lock (the one memory.json writers take)."""
    from filelock import Timeout

    from ..errors import LockTimeout, StoreUnwritable

    shared = _shared(store)
    if shared is not None:
        return shared.locked(PROBES_NAME, work)
    storage = store.storage
    storage.ensure_dir()
    try:
        with storage._lock(storage.limits.lock_timeout):
            return work()
    except Timeout:
        raise LockTimeout(
            f"store is locked by another writer (waited {storage.limits.lock_timeout:g}s); "
            f"nothing was written: {storage.lock_path}"
        ) from None
    except OSError as exc:
        where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
        raise StoreUnwritable(f"cannot write to {storage.dir}: {exc.strerror or exc}{where}") from None


def load_probes(store: MemoryStore) -> ProbeFile:
    """Every probe in file order. A corrupt file is moved aside (and said so), never emptied."""
    loaded, quarantined, error = _read(store, locked=False)
    shared = _shared(store)
    return ProbeFile(
        path=f"{store.where} {PROBES_NAME}" if shared is not None else str(probes_path(store)),
        probes=[item for item in loaded.items if isinstance(item, Probe)],
        invalid=[item for item in loaded.items if isinstance(item, InvalidProbe)],
        quarantined=quarantined,
        error=error,
        broken=shared.names(PROBES_BROKEN_PREFIX) if shared is not None else _broken_files(store.dir),
    )


def _clean_query(query: object) -> str:
    if not isinstance(query, str):
        raise InvalidInput(f"a probe's query must be a string, got {type(query).__name__}")
    text = query.lstrip("\ufeff").strip()
    if not text:
        raise InvalidInput("a probe's query is empty")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInput(f"the query is not valid Unicode: lone surrogate at position {exc.start}") from None
    if len(text) > MAX_QUERY:
        raise InvalidInput(f"the query is {len(text)} characters; a probe's query is at most {MAX_QUERY}")
    text, _secrets = redact(text)
    return text


def add_probe(store: MemoryStore, query: str, expect: list[str] | None, *, scoped: Any = None
              ) -> tuple[Probe, str]:
    """Keep a probe: `expect` is the entry ids the query must inject, or None/[] for nothing.
    A probe with the same query is replaced. Returns the probe and "added", "updated" or
    "unchanged". Every expected id must name an entry in the store now (with `scoped`, a project
    store and the global one read as one: in either; the probe is kept in `store`'s file)."""
    text = _clean_query(query)
    ids: list[str] = []
    for entry_id in expect or ():
        if not isinstance(entry_id, str) or not entry_id.strip():
            raise InvalidInput("an expected entry id is empty")
        entry_id = entry_id.strip().lower()
        if not _ENTRY_ID.match(entry_id):
            raise InvalidInput(f"{entry_id!r} is not an entry id (12 hex characters, as `memtui list` shows)")
        if entry_id not in ids:
            ids.append(entry_id)
    if ids:
        known = _known(store, scoped)
        unknown = [entry_id for entry_id in ids if entry_id not in known]
        if unknown:
            which = ", ".join(unknown)
            raise InvalidInput(f"no entry with id {which}: a probe can only expect entries in the store")

    def write() -> tuple[Probe, str]:
        loaded, _quarantined, _error = _read(store, locked=True)
        taken = {item.id for item in loaded.items if isinstance(item, Probe)}
        for position, item in enumerate(loaded.items):
            if isinstance(item, Probe) and item.query == text:
                if item.expect == ids:
                    return item, "unchanged"
                updated = item.model_copy(update={"expect": ids, "ts": int(time.time())})
                loaded.items[position] = updated
                _save(store, loaded)
                return updated, "updated"
        probe = Probe(id=_new_probe_id(taken), query=text, expect=ids, ts=int(time.time()))
        loaded.items.append(probe)
        loaded.raws.append(None)
        _save(store, loaded)
        return probe, "added"

    return _with_lock(store, write)


def remove_probe(store: MemoryStore, probe_id: str) -> Probe:
    if not isinstance(probe_id, str):
        raise ProbeNotFound(probe_id)
    wanted = probe_id.strip().lower()
    shared = _shared(store)
    if (shared.read(PROBES_NAME) is None) if shared is not None else not os.path.lexists(probes_path(store)):
        raise ProbeNotFound(probe_id)  # nothing to lock, and no store directory to create

    def write() -> Probe:
        loaded, _quarantined, _error = _read(store, locked=True)
        for position, item in enumerate(loaded.items):
            if isinstance(item, Probe) and item.id == wanted:
                del loaded.items[position]
                del loaded.raws[position]
                _save(store, loaded)
                return item
        raise ProbeNotFound(probe_id)

    return _with_lock(store, write)


def _new_probe_id(taken: set[str]) -> str:
    import secrets

    while True:
        candidate = secrets.token_hex(4)
        if candidate not in taken:
            return candidate


def _save(store: MemoryStore, loaded: _Loaded) -> None:
    shared = _shared(store)
    if shared is not None:
        shared.write(PROBES_NAME, loaded.to_bytes())  # inside the transaction `_with_lock` holds
    else:
        atomic_write(probes_path(store), loaded.to_bytes())


# ---------------------------------------------------------------------------- running


def evaluate(probe: Probe, explanation: Explanation, gone: dict[str, str] | None = None) -> ProbeResult:
    """Whether `explanation` (of the probe's query) satisfies the probe, and why not."""
    rows = {row.id: row for row in explanation.entries}
    pinned = [entry_id for entry_id in explanation.core if entry_id in rows]
    injected = pinned + [row.id for row in explanation.entries if row.status is Status.INJECTED]
    misses: list[ProbeMiss] = []
    if probe.expects_nothing:  # the pinned core is in every block: never a recall
        misses = [_miss(rows[entry_id]) for entry_id in injected if entry_id not in pinned]
    else:
        for entry_id in probe.expect:
            row = rows.get(entry_id)
            if row is None:
                why = (gone or {}).get(entry_id) or "it is no longer in the store"
                misses.append(ProbeMiss(id=entry_id, status="missing", reason=why))
            elif row.status not in (Status.INJECTED, Status.PINNED):
                misses.append(_miss(row))
    return ProbeResult(probe=probe, passed=not misses, injected=injected, misses=misses, pinned=pinned)


def injected_ids(store: MemoryStore, query: str) -> list[str]:
    """The entries `query` injects, as `retrieve_block` picks them (the pinned core, then the
    retrieved entries: top-k, gate, then the budget): the cheap question. Only a probe that fails
    pays for `explain`, to say why."""
    return sum(_block_ids(store, query), [])


def _block_ids(store: MemoryStore, query: str) -> tuple[list[str], list[str]]:
    """The ids of the pinned core and of the retrieved entries that fit, as the block holds them."""
    from ..ranking.inject import render_lines

    lang = store.language(query)
    hits, core = store._turn(query, None, core_lang=lang)
    picked = [record for record, _score in hits]
    fitted = render_lines(picked, store.limits.char_budget, lang).fitted
    return [record.id for record in core.records] if core is not None else [], [r.id for r in picked[:fitted]]


def _passes(probe: Probe, injected: list[str], pinned: list[str] | tuple[str, ...] = ()) -> bool:
    if probe.expects_nothing:
        return not [entry_id for entry_id in injected if entry_id not in pinned]
    return all(entry_id in injected for entry_id in probe.expect)


def check(store: MemoryStore, probe: Probe, gone: dict[str, str] | None = None) -> ProbeResult:
    """Run one probe: a passing one costs one retrieval, a failing one also an explain for its reasons.
    `store` may be a Scoped (core/scopes.py) of two stores: it ranks, and explains, as one set."""
    pinned, retrieved = _block_ids(store, probe.query)
    injected = pinned + retrieved
    if _passes(probe, injected, pinned):
        return ProbeResult(probe=probe, passed=True, injected=injected, pinned=pinned)
    return evaluate(probe, store.explain(probe.query), gone)


def _miss(row: EntryExplanation) -> ProbeMiss:
    return ProbeMiss(id=row.id, status=str(row.status), reason=row.reason, rank=row.rank, score=row.score,
                     text=row.text)


def _gone_reasons(store: MemoryStore, ids: set[str]) -> dict[str, str]:
    """For entries no longer in the store: what the audit log says removed them."""
    if not ids:
        return {}
    from datetime import datetime, timezone

    out: dict[str, str] = {}
    for event in store.storage.audit_lines():
        entry_id = event.get("id")
        if entry_id in ids and event.get("op") in ("delete", "evict") and event.get("after") is None:
            at = event.get("at")
            when = ""
            if isinstance(at, (int, float)):
                when = " on " + datetime.fromtimestamp(at, tz=timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
            actor = event.get("actor") if isinstance(event.get("actor"), str) else "someone"
            verb = "deleted by " + actor if event["op"] == "delete" else "evicted (the store was full)"
            out[entry_id] = f"the entry was {verb}{when}; it is no longer in the store"
    return out


def run_probes(store: MemoryStore, probes: ProbeFile | None = None, *, scoped: Any = None) -> ProbeRun:
    """Run every probe with the store's explain and sum up: hit rate, false recall, failures. With
    `scoped` (a project store beside the global one, core/scopes.py), the probes of `store`'s file
    rank over both stores as one candidate set, as a turn there does, and each result names the
    store each expected or injected entry is in (`ProbeResult.scopes`)."""
    probe_file = probes if probes is not None else load_probes(store)
    both = scoped is not None and scoped.scoped
    ranker: Any = scoped if both else store
    holder = {entry.id: scope for scope, one in scoped.stores for entry in one.entries()} if both else {}
    known = set(holder) if both else _known(store, None)
    missing = {entry_id for probe in probe_file.probes for entry_id in probe.expect if entry_id not in known}
    gone: dict[str, str] = {}
    for one in ([one for _scope, one in reversed(scoped.stores)] if both else [store]):
        gone.update(_gone_reasons(one, missing))
    results = [check(ranker, probe, gone) for probe in probe_file.probes]
    if both:
        for result in results:
            result.scopes = {entry_id: holder[entry_id] for entry_id in (*result.probe.expect, *result.injected)
                             if entry_id in holder}
    return summarize(results, probe_file)


def _known(store: MemoryStore, scoped: Any) -> set[str]:
    """The ids a probe may expect: the store's, or with `scoped` of two stores, both stores'."""
    if scoped is not None and scoped.scoped:
        return {entry.id for _scope, one in scoped.stores for entry in one.entries()}
    return {entry.id for entry in store.entries()}


def summarize(results: list[ProbeResult], probe_file: ProbeFile | None = None) -> ProbeRun:
    run = ProbeRun(results=results)
    if probe_file is not None:
        run.invalid, run.quarantined, run.error = probe_file.invalid, probe_file.quarantined, probe_file.error
        run.broken = probe_file.broken
    for result in results:
        if result.passed:
            run.passed += 1
        else:
            run.failed += 1
        if result.probe.expects_nothing:
            run.nothing_probes += 1
            run.recalled += 1 if result.retrieved else 0
        else:
            run.expected += len(result.probe.expect)
            run.hits += result.hits
            run.others += sum(1 for entry_id in result.retrieved if entry_id not in result.probe.expect)
    run.hit_rate = run.hits / run.expected if run.expected else None
    expecting = sum(1 for result in results if not result.probe.expects_nothing)
    run.others_per_probe = run.others / expecting if expecting else None
    run.false_recall = run.recalled / run.nothing_probes if run.nothing_probes else None
    return run


# ---------------------------------------------------------------------------- what a change would do


def would_break(
    store: MemoryStore,
    entry_id: str | None,
    probes: list[Probe],
    *,
    text: str | None = None,
    kind: object = None,
    fields: dict | None = None,
) -> list[ProbeWouldBreak]:
    """The probes that pass now and would fail if entry `entry_id` had this text, kind or other
    stored fields (e.g. keywords) -- or, with `entry_id` None, if a new entry with them were added.
    Ranked by the store's own explain over the changed entries, so whatever the engine weighs is
    weighed here too; nothing is written."""
    if not probes:
        return []
    changed = _changed_document(store, entry_id, text, kind, fields or {})
    if changed is None:
        return []
    after_store = _WhatIf(store, changed)
    out = []
    for probe in probes:
        pinned, retrieved = _block_ids(store, probe.query)
        if not _passes(probe, pinned + retrieved, pinned):
            continue
        after = check(after_store, probe)
        if not after.passed:
            out.append(ProbeWouldBreak(probe=probe, after=after))
    return out


def _changed_document(store: MemoryStore, entry_id: str, text: str | None, kind: object,
                      fields: dict) -> Document | None:
    from ..kinds import Kind
    from ..store.records import new_id

    doc = store.storage.load()
    if entry_id is None:
        if text is None or kind is None:
            return None
        clean = store._clean_text(text)[0]
        if not clean:
            return None
        raw = {"id": new_id(doc.ids()), "kind": Kind.require(kind).value, "text": clean, "source": "", "ts": 0,
               **fields}
        try:
            [record] = parse_document(dumps({"entries": [raw]})).records
        except (Corrupt, ValueError):
            return None
        return Document(doc.top, [*doc.items, record])
    for position, item in enumerate(doc.items):
        if getattr(item, "id", None) != entry_id:
            continue
        raw = item.to_json()  # type: ignore[union-attr]
        if text is not None:
            clean = store._clean_text(text)[0]
            if not clean:
                return None
            raw["text"] = clean
        if kind is not None:
            raw["kind"] = Kind.require(kind).value
        raw.update(fields)
        try:
            [record] = parse_document(dumps({"entries": [raw]})).records
        except (Corrupt, ValueError):
            return None
        items = list(doc.items)
        items[position] = record
        return Document(doc.top, items)
    return None


class _WhatIf(MemoryStore):
    """The store as it would be with `doc`: explain runs on it exactly as on the real one."""

    def __init__(self, base: MemoryStore, doc: Document) -> None:
        super().__init__(base.location or base.dir, base.limits, actor=base.actor, lang=base.lang)
        self._what_if = _Snapshot(doc, self.limits)

    def _snap(self, lean: bool = False) -> _Snapshot:  # type: ignore[override]
        return self._what_if
