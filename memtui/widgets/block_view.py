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

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._folded = False  # only the meter line shows (a short terminal): it says how to open the block
        self._explanation: Explanation | None = None

    @property
    def folded(self) -> bool:
        return self._folded

    @folded.setter
    def folded(self, value: bool) -> None:
        if value != self._folded:
            self._folded = value
            if self.is_mounted:
                self.show(self._explanation)

    def compose(self):
        yield Static(id="block-meter")
        yield Static(id="block-text")

    def show(self, explanation: Explanation | None) -> None:
        self._explanation = explanation
        meter_line = self.query_one("#block-meter", Static)
        body = self.query_one("#block-text", Static)
        # folded, the hint comes first: the rest of the line may be cut at the terminal's edge
        head = Text.assemble(("Rendered block", "bold"), (" (B shows it)" if self._folded else "", P.muted), "  ",
                             no_wrap=True, overflow="ellipsis")
        if explanation is None:
            head.rstrip()
            meter_line.update(head)
            body.update(Text("The block the agent would get appears here.", style="dim italic"))
            return
        injected = sum(1 for row in explanation.entries if row.status == "injected")
        head.append_text(meter(explanation.used_chars, explanation.budget, 12 if self._folded else 24))
        head.append(f"  characters of entry lines · {injected} entr{'y' if injected == 1 else 'ies'}", style=P.muted)
        meter_line.update(head)
        if explanation.block:
            body.update(Text(explanation.block, style=P.text))
        elif not explanation.tokens:
            body.update(Text("(empty: the query has no searchable terms, so nothing is injected)", style="dim italic"))
        else:
            body.update(Text("(empty: no entry matched, so nothing is injected)", style="dim italic"))
