"""The explain screen's input row: the query, and the top-k and budget to try it with.

The two numbers start at the store's own values; changing them ranks the query as if the store
had other limits, without changing the store. An empty box means the store's value.
"""

from __future__ import annotations

from textual import getters
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Input, Label

from memtui_core.limits import Limits

__all__ = ["QueryInputs"]


class QueryInputs(Horizontal):
    """The query box, then the top-k and budget boxes."""

    query_input = getters.query_one("#query", Input)
    top_k_input = getters.query_one("#top-k", Input)
    budget_input = getters.query_one("#budget", Input)

    def __init__(self, limits: Limits, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.store_limits = limits

    def compose(self) -> ComposeResult:
        limits = self.store_limits
        yield Input(placeholder="the user's message, e.g. 部署 dry-run", id="query")
        yield Label("top-k", classes="input-label")
        yield Input(str(limits.top_k), id="top-k", type="integer", max_length=4)
        yield Label("budget", classes="input-label")
        yield Input(str(limits.char_budget), id="budget", type="integer", max_length=6)

    @staticmethod
    def _number(box: Input, default: int) -> int | None:
        """The box's whole number ≥ 0, `default` when empty, None when it is neither."""
        raw = box.value.strip()
        if not raw:
            return default
        try:
            value = int(raw)
        except ValueError:
            return None
        return value if value >= 0 else None

    def _boxes(self, limits: Limits) -> tuple[tuple[Input, str, int], ...]:
        return ((self.top_k_input, "top-k", limits.top_k), (self.budget_input, "budget", limits.char_budget))

    def limits(self, limits: Limits) -> tuple[int, int] | None:
        """(top-k, budget) to rank with, the store's `limits` for an empty box; None if a box is not a number ≥ 0."""
        top_k, budget = (self._number(box, default) for box, _name, default in self._boxes(limits))
        return None if top_k is None or budget is None else (top_k, budget)

    def trial(self, limits: Limits) -> str:
        """`top-k 2 (store 4)` when a box differs from the store's own value, else ``."""
        out = []
        for box, name, default in self._boxes(limits):
            value = self._number(box, default)
            if value is not None and value != default:
                out.append(f"{name} {value} (store {default})")
        return ", ".join(out)

    def reset(self, limits: Limits) -> None:
        """Put the store's values back in the boxes."""
        self.top_k_input.value = str(limits.top_k)
        self.budget_input.value = str(limits.char_budget)
