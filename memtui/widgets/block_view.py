"""The rendered block exactly as the agent would receive it, with a `used/budget` meter."""

from __future__ import annotations

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from memtui_core.model import Explanation

from .fmt import meter
from .palette import P


class BlockView(VerticalScroll):
    """Title line with the meter, then the block verbatim (or why it is empty)."""

    can_focus = True

    def compose(self):
        yield Static(id="block-meter")
        yield Static(id="block-text")

    def show(self, explanation: Explanation | None) -> None:
        meter_line = self.query_one("#block-meter", Static)
        body = self.query_one("#block-text", Static)
        if explanation is None:
            meter_line.update(Text("Rendered block", style="bold"))
            body.update(Text("The block the agent would get appears here.", style="dim italic"))
            return
        injected = sum(1 for row in explanation.entries if row.status == "injected")
        head = Text.assemble(("Rendered block  ", "bold"), meter(explanation.used_chars, explanation.budget, 24))
        head.append(f"  characters of entry lines · {injected} entr{'y' if injected == 1 else 'ies'}", style=P.muted)
        meter_line.update(head)
        if explanation.block:
            body.update(Text(explanation.block, style=P.text))
        elif not explanation.tokens:
            body.update(Text("(empty: the query has no searchable terms, so nothing is injected)", style="dim italic"))
        else:
            body.update(Text("(empty: no entry matched, so nothing is injected)", style="dim italic"))
