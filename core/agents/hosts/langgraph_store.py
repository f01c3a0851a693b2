"""LangGraph: a memtui store behind LangGraph's long-term memory interface (`BaseStore`).

    from memtui_core.agents.hosts.langgraph_store import MemtuiStore
    graph = builder.compile(store=MemtuiStore())          # nodes use runtime.store.put/search/get

How LangGraph's items map onto memtui's entries:

- namespace: `(kind,)`, one of `("preference",)`, `("correction",)`, `("lesson",)`, `("fact",)`;
  with scopes (a project store beside the global one, docs/scopes.md) also `(scope, kind)`, as in
  `("project", "fact")`: `(kind,)` reads both stores and writes where memtui's rule says
  (preferences global, the rest to the project), `(scope, kind)` that scope's store. A search's
  prefix is `()`, a kind, a scope, or both. Items come back under `(scope, kind)` when there are
  scopes. Inside a git repository with no project store yet, `("project", kind)` is taken too
  (a put there makes `.memtui/` at the git root, as the CLI's `--scope project` does); with
  neither, it is refused. Any other namespace is refused with `InvalidNamespaceError`, also in ops passed
  straight to `batch`.
- value: `{"text": str, "keywords": [str, ...]}` (keywords optional). Other fields are refused
  rather than dropped: memtui would not keep them.
- key: the entry's id, or the key a `put` gave it (kept as the entry's source, `langgraph:<key>`).
  Keys are unique across the store: a `put` under another kind moves the entry to that kind.
- `put` goes through the store's audited path (deduplicated, scanned, secrets redacted); a text the
  store already holds refreshes that entry. `put(..., None)` (`delete`) deletes it.
- `search(prefix, query=...)` is memtui's ranking (the gate included), best first, with the
  score; without a query, the entries in store order. `filter` compares the value's fields
  (`{"text": ...}`, or `$eq $ne $gt $gte $lt $lte`).
- Entries blocked by the threat scan are never returned, by `get`, `search` or `list_namespaces`.
- `index` is ignored (memtui indexes every text); entries do not expire, so `ttl` is refused.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from typing import Any

from langgraph.store.base import (BaseStore, GetOp, InvalidNamespaceError, Item, ListNamespacesOp, Op, PutOp,
                                  Result, SearchItem, SearchOp, validate_op_namespace)

from ...kinds import KIND_NAMES, Kind
from ...scopes import SCOPES, offers_scopes
from . import open_store, open_stores

__all__ = ["MemtuiStore", "ACTOR", "SOURCE_PREFIX"]

ACTOR = "langgraph"
SOURCE_PREFIX = "langgraph:"
VALUE_KEYS = ("text", "keywords")
_OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")


class MemtuiStore(BaseStore):
    """A LangGraph store over memtui: `store` (one MemoryStore), else the stores a command in `cwd`
    reads (the project store there, if any, beside `dir`, else `$MEMTUI_DIR`, else the platform
    data dir; `dir` alone with no scopes when `cwd` is not given and `dir` is), opened with actor
    `langgraph`."""

    __slots__ = ("store", "scoped", "_lock")

    def __init__(self, store: Any = None, *, dir: str | None = None, lang: str | None = None,
                 cwd: str | None = None) -> None:
        from ...scopes import Scoped

        if store is not None:
            self.scoped = Scoped([(None, store)])
        elif dir is not None and cwd is None:
            self.scoped = Scoped([(None, open_store(dir, actor=ACTOR, lang=lang))])
        else:
            self.scoped = open_stores(None, cwd=cwd, actor=ACTOR, lang=lang,
                                      global_store=open_store(dir, actor=ACTOR, lang=lang) if dir else None)
        self.store = self.scoped.main  # the global store (or the one store given)
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ BaseStore

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run the ops in order (a get after a put in the same batch sees the put); one result each."""
        ops = list(ops)
        for op in ops:
            validate_op_namespace(op)
        with self._lock:
            return [self._run(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    def _run(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._get(op)
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, PutOp):
            return self._put(op)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        raise ValueError(f"unknown store operation: {type(op).__name__}")

    # ------------------------------------------------------------------ the ops

    def _get(self, op: GetOp) -> Item | None:
        scope, kind = self._scope_and_kind(op.namespace)
        found = self._find(op.key, scope)
        if found is None or found[1].kind is not kind:
            return None
        return _item(found[1], op.key, self._label(found[0]))

    def _put(self, op: PutOp) -> None:
        scope, kind = self._scope_and_kind(op.namespace)
        if op.ttl is not None:
            raise NotImplementedError("memtui entries do not expire by time: put without ttl")
        found = self._find(op.key, scope)
        if op.value is None:
            if found is not None and found[1].kind is kind:
                self.scoped.store(found[0]).delete(found[1].id)
            return None
        text, keywords = _value(op.value)
        if found is None:
            _where, store = self.scoped.write_store(kind, scope)  # (kind,): preferences global, the rest project
            store.remember(kind, text, source=SOURCE_PREFIX + op.key, keywords=keywords)
        else:
            self.scoped.store(found[0]).update(found[1].id, text=text, kind=kind,
                                               keywords=keywords if keywords is not None else [])
        return None

    def _search(self, op: SearchOp) -> list[SearchItem]:
        scope, kinds = self._under(op.namespace_prefix)
        if op.query is not None and op.query.strip():
            hits = self.scoped.search(op.query, top_k=max(len(self.scoped), 1))
            found = [(where, hit.entry, hit.score) for where, hit in hits]
        else:
            found = [(where, entry, None) for where, entry in self.scoped.entries() if not entry.blocked]
        items = []
        for where, entry, score in found:
            if entry.kind not in kinds or (scope is not None and where != scope):
                continue
            value = _entry_value(entry)
            if op.filter and not _matches(value, op.filter):
                continue
            items.append((where, entry, score))
        window = items[op.offset:op.offset + op.limit]
        return [_search_item(entry, score, self._label(where)) for where, entry, score in window]

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        present = {(self._label(where), entry.kind.value) for where, entry in self.scoped.entries()
                   if not entry.blocked}
        scopes = [self._label(where) for where in self.scoped.scopes]
        namespaces = [(*label, kind.value) for label in scopes for kind in Kind if (label, kind.value) in present]
        for condition in op.match_conditions or ():
            namespaces = [ns for ns in namespaces if _namespace_matches(ns, condition.match_type, condition.path)]
        if op.max_depth is not None:
            namespaces = list(dict.fromkeys(ns[:op.max_depth] for ns in namespaces))
        return namespaces[op.offset:op.offset + op.limit]

    # ------------------------------------------------------------------ scopes and keys

    def _label(self, scope: str | None) -> tuple[str, ...]:
        """What goes before the kind in a namespace: the scope when the stores have scopes."""
        return (scope,) if scope is not None and self.scoped.scopes[0] is not None else ()

    def _scope_and_kind(self, namespace: tuple[str, ...]) -> tuple[str | None, Kind]:
        """`(kind,)`: any scope; `(scope, kind)`: that scope's store (a scope that names no store
        is refused, as is a scope where `dir` named one store)."""
        if len(namespace) == 2:
            scope = namespace[0]
            if scope not in SCOPES or self.scoped.scopes[0] is None:
                raise InvalidNamespaceError(_NAMESPACES + f"; got {namespace!r}")
            if scope == "project" and not offers_scopes(self.scoped):  # no project store, and no git root to make one
                raise InvalidNamespaceError(f"no project store here (no .memtui/ in {self.scoped.cwd or 'this folder'} "
                                            f"or above, and no git repository): use ('global', kind) or (kind,)")
            return scope, _kind_of(namespace[1:])
        return None, _kind_of(namespace)

    def _under(self, prefix: tuple[str, ...]) -> tuple[str | None, set[Kind]]:
        if prefix and prefix[0] in SCOPES and self.scoped.scopes[0] is not None:
            return prefix[0], _kinds_under(prefix[1:])
        return None, _kinds_under(prefix)

    def _find(self, key: str, scope: str | None = None):
        """(scope, the entry a key names): the entry a put gave this key, else the entry with this
        id; None when none, or when the entry is blocked (its text is not for a model to read)."""
        source = SOURCE_PREFIX + key
        by_id = None
        for where, entry in self.scoped.entries():
            if scope is not None and where != scope:
                continue
            if entry.source == source:
                return None if entry.blocked else (where, entry)
            if entry.id == key and by_id is None:
                by_id = (where, entry)
        return None if by_id is None or by_id[1].blocked else by_id


# ---------------------------------------------------------------------------- mapping


_NAMESPACES = f"memtui namespaces are (kind,) or (scope, kind), with scope project or global and kind one of {KIND_NAMES}"


def _kind_of(namespace: tuple[str, ...]) -> Kind:
    """The kind an item's namespace names (the scope, when there is one, is read before it)."""
    if len(namespace) == 1:
        kind = Kind.parse(namespace[0])
        if kind is not None and namespace[0] == kind.value:
            return kind
    raise InvalidNamespaceError(_NAMESPACES + f"; got {namespace!r}")


def _kinds_under(prefix: tuple[str, ...]) -> set[Kind]:
    if not prefix:
        return set(Kind)
    return {_kind_of(prefix)}


def _value(value: Mapping[str, Any]) -> tuple[str, list[str] | None]:
    if not isinstance(value, Mapping):
        raise ValueError(f"a memtui value is a mapping with text (and keywords), not {type(value).__name__}")
    unknown = sorted(str(key) for key in value if key not in VALUE_KEYS)
    if unknown:
        raise ValueError(f"memtui keeps text and keywords only; it would lose {', '.join(unknown)}")
    text = value.get("text")
    if not isinstance(text, str) or not text.strip():
        raise ValueError("a memtui value needs text: a non-empty string")
    keywords = value.get("keywords")
    if keywords is not None and (not isinstance(keywords, list) or not all(isinstance(k, str) for k in keywords)):
        raise ValueError("keywords must be a list of strings")
    return text, keywords


def _entry_value(entry) -> dict[str, Any]:
    return {"text": entry.text, "keywords": list(entry.keywords)}


def _key(entry) -> str:
    source = entry.source
    return source[len(SOURCE_PREFIX):] if source.startswith(SOURCE_PREFIX) and len(source) > len(SOURCE_PREFIX) \
        else entry.id


def _when(entry) -> datetime:
    return datetime.fromtimestamp(entry.ts, tz=timezone.utc)


def _item(entry, key: str | None = None, label: tuple[str, ...] = ()) -> Item:
    when = _when(entry)
    return Item(value=_entry_value(entry), key=key if key is not None else _key(entry),
                namespace=(*label, entry.kind.value), created_at=when, updated_at=when)


def _search_item(entry, score: float | None, label: tuple[str, ...] = ()) -> SearchItem:
    when = _when(entry)
    return SearchItem((*label, entry.kind.value), _key(entry), _entry_value(entry), when, when, score)


def _namespace_matches(namespace: tuple[str, ...], match_type: str, path: tuple[str, ...]) -> bool:
    if len(path) > len(namespace):
        return False
    if match_type == "prefix":
        pairs = zip(namespace, path)
    elif match_type == "suffix":
        pairs = zip(reversed(namespace), reversed(path))
    else:
        raise ValueError(f"unknown namespace match type: {match_type!r}")
    return all(wanted == "*" or label == wanted for label, wanted in pairs)


def _matches(value: Any, wanted: Any) -> bool:
    """Whether a value holds what a filter asks: equal values, a nested mapping field by field, or
    comparison operators (`{"$gte": 2}`)."""
    if isinstance(wanted, Mapping):
        if any(str(key).startswith("$") for key in wanted):
            return all(_compare(value, operator, operand) for operator, operand in wanted.items())
        return isinstance(value, Mapping) and all(_matches(value.get(key), inner) for key, inner in wanted.items())
    if isinstance(wanted, (list, tuple)):
        return isinstance(value, (list, tuple)) and len(value) == len(wanted) and \
            all(_matches(a, b) for a, b in zip(value, wanted))
    return value == wanted


def _compare(value: Any, operator: str, operand: Any) -> bool:
    if operator not in _OPERATORS:
        raise ValueError(f"unknown filter operator {operator!r}: use one of {', '.join(_OPERATORS)}")
    if operator == "$eq":
        return value == operand
    if operator == "$ne":
        return value != operand
    try:
        left, right = float(value), float(operand)
    except (TypeError, ValueError):
        return False
    return {"$gt": left > right, "$gte": left >= right, "$lt": left < right, "$lte": left <= right}[operator]
