"""The explain screen's right pane: why the selected entry ranks where it does.

Three parts, top to bottom: the entry and the one-line reason for its status (with the terms it is
indexed by, on demand); each query term's share of its score; and, when another entry is pinned,
why one ranks above the other term by term. On a narrow terminal the entry's text comes after its
terms' shares (the ranking shows its start already), so the breakdown is in view at 80×24.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text
from textual import getters
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from memtui_core.model import Entry, EntryExplanation, Explanation, Status

from .fmt import kind_badge
from .palette import P
from .term_bars import breakdown, comparison, entry_heading
from .wrap import Wrapped

__all__ = ["WhyPane"]

NARROW = 100  # the app's -narrow breakpoint: the pane is under the ranking, a few lines high


class WhyPane(VerticalScroll):
    """The selected entry, its score by term, and its comparison with the pinned entry."""

    entry_part = getters.query_one("#why-entry", Static)
    terms_part = getters.query_one("#why-terms", Static)
    compare_part = getters.query_one("#why-compare", Static)

    def compose(self) -> ComposeResult:
        yield Static(id="why-entry")
        yield Static(id="why-terms")
        yield Static(id="why-compare")

    def show_intro(self) -> None:
        """What the pane is for, before there is a query."""
        self.entry_part.update(
            Text(
                "Type a query above. Every entry is scored with BM25 as the agent's retrieval would score it; "
                "select one to see each query term's share of its score and why it is or is not injected.",
                style="dim italic",
            )
        )

    def show_pinned_intro(self, entry: Entry) -> None:
        """The entry pinned from Browse, before a query ranks it."""
        self.entry_part.update(
            Group(
                Text.assemble(("◆ ", "bold " + P.pin), kind_badge(entry.kind), ("  " + entry.id, P.muted)),
                Text(entry.text),
                Text(""),
                Text("Pinned from Browse. Type a query to see where this entry ranks and why; "
                     "space unpins it.", style="dim italic"),
            )
        )

    def clear_terms(self) -> None:
        """Empty the term shares and the comparison (the entry part keeps what it shows)."""
        self.terms_part.update("")
        self.compare_part.update("")

    def show(self, row: EntryExplanation, explanation: Explanation, pinned: EntryExplanation | None,
             tokens: list[str] | None = None) -> None:
        """`row` in full; `pinned`: the entry it is compared with; `tokens`: its index terms, when asked for."""
        reason_style = {
            Status.INJECTED: P.success, Status.BLOCKED: P.error, Status.ZERO_SCORE: P.muted,
            Status.BELOW_THRESHOLD: P.pin,
        }.get(row.status, P.warning)
        compact = self.app.size.width < NARROW
        head: list[RenderableType] = [
            entry_heading(row),
            *([] if compact else [Wrapped(row.text)]),
            Text.assemble(("why: ", "bold"), (row.reason, reason_style)),
            # the rule of meaning that kept, held back or admitted it (a profile ranking by meaning)
            *([Text.assemble(("meaning: ", "bold"), (row.meaning, P.primary))] if row.meaning else []),
            *([_token_line(tokens)] if tokens is not None else []),
        ]
        comparing = pinned is not None and pinned.id != row.id
        width = self.scrollable_content_region.width - 1  # a scroll bar may come
        if comparing and pinned is not None:
            analysis: RenderableType = Group(Text("Why is A above B?", style="bold underline"),
                                             comparison(pinned, row, explanation, width))
        else:
            analysis = breakdown(row, explanation, width) if explanation.tokens else Text("")
        if pinned is None:
            hint = Text("\nPress space to pin this entry, then select another to compare them term by term.",
                        style="dim italic")
        elif pinned.id == row.id:
            hint = Text("\n◆ Pinned. Select another entry to see why one ranks above the other.", style=P.pin)
        else:
            hint = Text("")
        if compact:  # under the ranking, a few lines high: the terms first, the text (its start is above) after
            self.entry_part.update(Group(*head))
            self.terms_part.update(analysis)
            self.compare_part.update(Group(Text(""), Wrapped(row.text), hint))
        else:
            self.entry_part.update(Group(*head, Text("")))
            self.terms_part.update(Text("") if comparing else analysis)
            self.compare_part.update(analysis if comparing else hint)


def _token_line(tokens: list[str]) -> Text:
    line = Text("its terms: ", style="bold")
    for token in dict.fromkeys(tokens):
        line.append(f" {token} ", style=P.chip)
        line.append(" ")
    return line
