"""The explain screen's ranking: every entry in rank order, with a find box above it.

Every entry with a query term is listed; those without one only up to `MAX_UNMATCHED_ROWS` (the
pinned one always). Finding narrows the rows by text or id and keeps the ranks as they are.
"""

from __future__ import annotations

from rich.text import Text
from textual import getters
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input

from memtui_core.model import EntryExplanation, Explanation, Status

from .fmt import kind_badge, one_line, status_badge
from .palette import P
from .virtual_table import Column, VirtualTable

__all__ = ["MAX_UNMATCHED_ROWS", "RankedPane", "TYPE_A_QUERY"]

TYPE_A_QUERY = "Type a query to rank the entries."
MAX_UNMATCHED_ROWS = 500  # every hit is listed; entries without a query term only up to this many
RANKED_COLUMNS = [
    Column("rank", "#", 4),
    Column("status", "status", 12),
    Column("score", "score", 7, justify="right"),
    Column("kind", "kind", 4),
    Column("text", "text", None),
]


class RankedPane(Vertical):
    """The find box and the ranked rows; `show()` fills them from an explanation."""

    table = getters.query_one("#ranked", VirtualTable)
    find_input = getters.query_one("#ranked-find", Input)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._rows: dict[str, EntryExplanation] = {}
        self._shown: list[EntryExplanation] = []
        self.hidden_unmatched = 0  # entries without a query term beyond MAX_UNMATCHED_ROWS
        self.pinned: str | None = None  # marked ◆ in the rank column

    def compose(self) -> ComposeResult:
        yield Input(placeholder="f find in the ranking by text or id", id="ranked-find", compact=True)
        yield VirtualTable(RANKED_COLUMNS, empty=TYPE_A_QUERY, id="ranked")

    def clear(self) -> None:
        """No query: no rows."""
        self._rows = {}
        self._shown = []
        self.hidden_unmatched = 0
        table = self.table
        table.empty_message = TYPE_A_QUERY
        table.set_rows([], lambda index: ())

    def show(self, explanation: Explanation) -> None:
        """The explanation's rows that the find box lets through; the pin is dropped if it is not ranked."""
        self._rows = {row.id: row for row in explanation.entries}
        pinned = self.pinned = self.pinned if self.pinned in self._rows else None
        needle = self.find_input.value.strip().lower()
        shown: list[EntryExplanation] = []
        unmatched = 0
        for row in explanation.entries:
            if needle and needle not in row.text.lower() and not row.id.startswith(needle):
                continue
            if row.score <= 0:
                unmatched += 1
                if unmatched > MAX_UNMATCHED_ROWS and row.id != pinned:
                    continue
            shown.append(row)
        self._shown = shown
        self.hidden_unmatched = max(0, unmatched - MAX_UNMATCHED_ROWS)
        table = self.table
        table.empty_message = (
            "No entries to rank: the store is empty." if explanation.n == 0
            else "No ranked entry contains that text (escape clears the search)." if needle else TYPE_A_QUERY
        )
        table.set_rows([row.id for row in shown], self._cells)

    def has(self, entry_id: str | None) -> bool:
        return entry_id in self._rows

    def row(self, entry_id: str | None) -> EntryExplanation | None:
        return self._rows.get(entry_id) if entry_id else None

    def selected_row(self) -> EntryExplanation | None:
        return self.row(self.table.selected_key())

    def pin(self, entry_id: str | None) -> None:
        """Move the ◆ to `entry_id` (None: no pin), redrawing only the two rows it leaves and lands on."""
        previous = self.pinned
        self.pinned = entry_id
        self.table.refresh_rows([key for key in (previous, entry_id) if key])

    def _cells(self, index: int) -> list[Text]:
        row = self._shown[index]
        faint = row.status in (Status.ZERO_SCORE, Status.BLOCKED)
        marker = "◆" if row.id == self.pinned else " "
        return [
            Text(f"{marker}{row.rank if row.rank else '–'}", style=f"bold {P.pin}" if marker != " " else "bold"),
            status_badge(row.status),
            Text(f"{row.score:.3f}" if row.score else "0",
                 style="bold" if row.status is Status.INJECTED else P.muted if not row.score else ""),
            kind_badge(row.kind, english=False),
            Text.assemble((f"{row.scope} ", P.muted), one_line(row.text), style=P.muted if faint else "")
            if row.scope else Text(one_line(row.text), style=P.muted if faint else ""),
        ]
