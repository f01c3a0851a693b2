"""Browse's tabs: one view per kind, each labelled with how many entries it shows.

The counts change on every load and every filter keystroke. Textual's tabs slide the underline to
a relabelled tab over 0.3 s; here it moves with the label at once, so a new count is no motion on
screen (and the first screen is done when its rows are). Choosing another view still slides it.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Tab, Tabs

from memtui_core.kinds import Kind
from memtui_core.model import Entry

from ..messages import StoreSnapshot
from .fmt import KIND_COLOURS
from .palette import P

__all__ = ["VIEWS", "ViewTabs", "view_label"]

VIEWS: list[tuple[str, Kind | None]] = [("all", None)] + [(kind.value, kind) for kind in Kind]


def view_label(kind: Kind | None, count: int, total: int | None = None, *, compact: bool = False) -> Text:
    """`All 42`, or `All 2/42` while a filter hides some. `compact` leaves out a kind's English
    name (`偏好 9` for `偏好 preference 9`), for when the full labels do not fit the width."""
    shown = str(count) if total is None or total == count else f"{count}/{total}"
    if kind is None:
        return Text.assemble(("All ", "bold"), (shown, P.muted))
    english = "" if compact else " " + kind.value
    return Text.assemble(
        (kind.label, f"bold {KIND_COLOURS[kind]}"), (english, KIND_COLOURS[kind]), (f" {shown}", P.muted)
    )


# Each tab's label has one cell of padding on either side.
TAB_PADDING = 2


class ViewTabs(Tabs):
    """`All` and a tab per kind; the counts follow the filter."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(*[Tab(view_label(kind, 0), id=f"view-{name}") for name, kind in VIEWS], id=id)
        self._counts: list[tuple[int, int]] = [(0, 0) for _ in VIEWS]

    @staticmethod
    def kind_of(tab: Tab) -> Kind | None:
        name = (tab.id or "view-all").removeprefix("view-")
        return Kind(name) if name != "all" else None

    def select_view(self, name: str) -> None:
        """Activate the view `name` (`all` or a kind's value)."""
        self.active = f"view-{name}"

    def count(self, matching: list[Entry], snapshot: StoreSnapshot) -> None:
        """Label each tab with the entries the filter lets through of its kind, out of the store's."""
        self._counts = [
            (len(matching) if kind is None else sum(1 for e in matching if e.kind is kind), snapshot.count(kind))
            for _, kind in VIEWS
        ]
        self._label()

    def on_resize(self) -> None:
        self._label()

    def on_tab_relabelled(self, event: Tab.Relabelled) -> None:
        """A count changed: the underline keeps under the active tab at once, without Tabs' slide."""
        event.stop()
        event.prevent_default()  # Tabs' own handler would animate the underline to its new width
        self._highlight_active(animate=False)

    def _label(self) -> None:
        """Full labels when every tab fits the width, else compact ones (so the last count is never cut)."""
        labels = [view_label(kind, shown, total) for (_, kind), (shown, total) in zip(VIEWS, self._counts)]
        if sum(label.cell_len + TAB_PADDING for label in labels) > self.size.width:
            labels = [view_label(kind, shown, total, compact=True)
                      for (_, kind), (shown, total) in zip(VIEWS, self._counts)]
        for (name, _), label in zip(VIEWS, labels):
            self.query_one(f"#view-{name}", Tab).label = label
