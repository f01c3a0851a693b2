"""The explain screen's summary line: the query's terms, the counts per status, and what is being tried."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from memtui_core.model import Explanation, Status

from .fmt import STATUS_LOOK, status_badge
from .palette import P

__all__ = ["ExplainSummary"]

MAX_TERMS = 12  # terms shown as chips; the rest are counted


NARROW = 100  # below this width the legend is the badges alone (the app's -narrow breakpoint)
SHORT = 32  # below this height the summary is one line, cut with an ellipsis (the -short breakpoint)


class ExplainSummary(Static):
    """One or two lines above the ranking: the status legend before a query, the ranking's summary after."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._last: tuple | None = None  # what was shown, to show again at another size

    def on_resize(self) -> None:
        if self._last is not None:
            method, args = self._last
            method(*args)

    def _fit(self, text: Text) -> Text:
        """One line with an ellipsis on a short terminal; else as many lines as it takes (two at most)."""
        if self.app.size.height < SHORT:
            text.no_wrap = True
            text.overflow = "ellipsis"
        return text

    def show_legend(self) -> None:
        self._last = (self.show_legend, ())
        legend = Text(no_wrap=False)
        narrow = self.app.size.width < NARROW
        if narrow:  # every status's meaning did not fit: the badges alone name them, the why pane says more
            legend.append("statuses ", style=P.muted)
        for status, (_label, _style, meaning) in STATUS_LOOK.items():
            legend.append_text(status_badge(status))
            legend.append(" " if narrow else f" {meaning}   ", style=P.muted)
        self.update(self._fit(legend))

    def show_error(self, message: str) -> None:
        self._last = (self.show_error, (message,))
        self.update(self._fit(Text(message, style=f"bold {P.error}")))

    def show(self, explanation: Explanation, trial: str, core_seconds: float | None, hidden: int) -> None:
        """`trial`: the top-k/budget being tried instead of the store's; `hidden`: rows without a query term not listed."""
        self._last = (self.show, (explanation, trial, core_seconds, hidden))
        text = Text(no_wrap=False)
        if trial:  # first: the summary is cut at two lines on a narrow terminal
            text.append(f"trying {trial}, r resets │ ", style=f"bold {P.warning}")
        if explanation.semantic_note:  # the profile's semantic floor could not be applied
            text.append(f"{explanation.semantic_note} │ ", style=f"bold {P.warning}")
        if explanation.n == 0:
            text.append("The store is empty: nothing to rank. Add memories on the browse screen (m, then n).",
                        style=f"bold {P.warning}")
        elif not explanation.tokens:
            text.append("No searchable terms in this query", style=f"bold {P.warning}")
            text.append(" — only words of 2+ letters/digits and CJK characters count; nothing is injected.",
                        style=P.warning)
        else:
            # The counts first: they are what a glance needs, and a two-word badge such as "no match"
            # placed after a long row of terms was split across the two lines of a narrow terminal.
            counts: dict[Status, int] = {}
            for row in explanation.entries:
                counts[row.status] = counts.get(row.status, 0) + 1
            for status in Status:
                if counts.get(status):
                    text.append_text(status_badge(status))
                    text.append(f"{counts[status]} ", style="bold")
            if explanation.profile != "default":
                text.append(f"│ profile {explanation.profile} ", style=f"bold {P.pin}")
            text.append("│ ", style=P.muted)
            _append_terms(text, explanation)
            text.append(f"│ n={explanation.n} avg_len={explanation.avg_len:.1f}", style=P.muted)
        if core_seconds is not None:
            text.append(f" │ {core_seconds * 1000:.1f} ms", style=P.muted)
        if hidden:
            text.append(f" │ {hidden} more without a query term not listed", style=P.muted)
        self.update(self._fit(text))


def _append_terms(text: Text, explanation: Explanation) -> None:
    """The query's distinct terms as chips; a function word struck through, as it is not scored."""
    text.append("terms ", style=P.muted)
    seen = list(dict.fromkeys(explanation.tokens))
    for token in seen[:MAX_TERMS]:
        if token in explanation.ignored:
            text.append(f" {token} ", style=f"strike {P.muted}")
        else:
            text.append(f" {token} ", style=f"bold {P.chip}")
        text.append(" ")
    if len(seen) > MAX_TERMS:
        text.append(f"+{len(seen) - MAX_TERMS} ", style=P.muted)
