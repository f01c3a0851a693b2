"""Which entries Browse lists, and in what order: the kind view, the text filter, the usage order and the sort."""

from __future__ import annotations

from dataclasses import dataclass

from memtui_core.kinds import Kind
from memtui_core.model import Entry

from ..messages import StoreSnapshot

__all__ = ["SORTS", "USAGE_ORDERS", "EntryFilter", "sort_entries"]

SORTS: list[tuple[str, str]] = [
    ("stored", "as stored"),
    ("newest", "newest first"),
    ("oldest", "oldest first"),
    ("kind", "by kind"),
    ("longest", "longest first"),
]
USAGE_ORDERS = ("store", "least", "never")  # store order, least injected first, never injected in the window


def sort_entries(entries: list[Entry], order: str) -> list[Entry]:
    if order == "newest":
        return sorted(entries, key=lambda e: e.ts, reverse=True)
    if order == "oldest":
        return sorted(entries, key=lambda e: e.ts)
    if order == "kind":
        kinds = list(Kind)
        return sorted(entries, key=lambda e: (kinds.index(e.kind), -e.ts))
    if order == "longest":
        return sorted(entries, key=lambda e: (-len(e.text), -e.ts))
    return entries


@dataclass
class EntryFilter:
    """What Browse shows of a snapshot."""

    view: Kind | None = None  # None: every kind
    text: str = ""  # matched in the text and the source, and as the start of the id
    usage_order: str = "store"  # one of USAGE_ORDERS
    sort: str = "stored"  # one of SORTS
    scope: str | None = None  # with two stores: only the project's or the global's (None: both)

    def matching(self, snapshot: StoreSnapshot | None) -> list[Entry]:
        """The entries the text filter (and the usage order) lets through, of every kind."""
        if snapshot is None:
            return []
        entries = snapshot.entries
        if self.scope is not None and snapshot.scopes:
            entries = [e for e in entries if snapshot.scopes.get(e.id) == self.scope]
        needle = self.text.strip().lower()
        if needle:
            entries = [
                e for e in entries if needle in e.text.lower() or e.id.startswith(needle) or needle in e.source.lower()
            ]
        return self._by_usage(entries, snapshot)

    def visible(self, snapshot: StoreSnapshot | None) -> list[Entry]:
        """The rows: the matching entries of the view's kind, sorted, the usage order on top of the sort."""
        entries = self.matching(snapshot)
        if self.view is not None:
            entries = [e for e in entries if e.kind is self.view]
        entries = sort_entries(entries, self.sort)
        return self._by_usage(entries, snapshot) if snapshot is not None else entries

    def _by_usage(self, entries: list[Entry], snapshot: StoreSnapshot) -> list[Entry]:
        usage = snapshot.usage
        if self.usage_order == "least":  # fewest injections first, then the longest since the last one
            return sorted(entries, key=lambda e: usage.get(e.id, (0, 0.0)))
        if self.usage_order == "never":
            return [e for e in entries if e.id not in usage]
        return entries

    def next_scope(self) -> str:
        """Move to the next scope shown (both, project, global); its label."""
        order = (None, "project", "global")
        self.scope = order[(order.index(self.scope) + 1) % len(order)]
        return {None: "Both stores", "project": "Only the project store", "global": "Only the global store"}[
            self.scope]

    def next_usage_order(self, days: int) -> str:
        """Move to the next usage order; its label (`days`: the window the usage is counted over)."""
        self.usage_order = USAGE_ORDERS[(USAGE_ORDERS.index(self.usage_order) + 1) % len(USAGE_ORDERS)]
        return {"store": "Store order", "least": "Least injected first",
                "never": f"Only entries never injected in {days} days"}[self.usage_order]

    def nothing_shown(self) -> str:
        """Why no row shows although the store has entries."""
        what = f"{self.view.label} {self.view.value} entries" if self.view else "entries"
        hint = f" matching “{self.text}”" if self.text else ""
        return f"No {what}{hint}."

    def next_sort(self) -> str:
        """Move to the next sort; its label."""
        names = [name for name, _ in SORTS]
        self.sort = names[(names.index(self.sort) + 1) % len(names)]
        return dict(SORTS)[self.sort]
