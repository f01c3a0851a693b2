"""Explain a query: how every entry ranks, why it is or is not injected, and the block the agent gets.

The screen takes the query and the top-k/budget boxes (`QueryInputs`), ranks in a worker and handles the keys; the
ranking (`RankedPane`), the why pane (`WhyPane`), the summary line (`ExplainSummary`) and the block
(`BlockView`) render what it brings, and `curation` keeps what the person teaches from here.
"""

from __future__ import annotations

import time

from textual import events, getters, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Input

from memtui_core.model import EntryExplanation, Explanation

from ..debounce import Debounce
from ..messages import ExplainFailed, ExplainReady
from ..widgets.block_view import BlockView
from ..widgets.explain_summary import ExplainSummary
from ..widgets.fmt import one_line
from ..widgets.key_footer import KeyFooter
from ..widgets.query_inputs import QueryInputs
from ..widgets.ranked_pane import RankedPane
from ..widgets.status_bar import StatusBar
from ..widgets.virtual_table import VirtualTable
from ..widgets.why_pane import WhyPane
from . import curation
from .base import ModeScreen

EXPLAIN_DELAY = 0.15
SHORT = 32  # the app's -short breakpoint: below it the block is folded to its meter line (B opens it)


class ExplainScreen(ModeScreen):
    """Type a query; the table, the breakdown and the block follow as you type."""
    ranked_pane = getters.query_one(RankedPane)
    ranked = getters.query_one("#ranked", VirtualTable)
    query_input = getters.query_one("#query", Input)
    find_input = getters.query_one("#ranked-find", Input)
    inputs = getters.query_one(QueryInputs)
    summary = getters.query_one(ExplainSummary)
    why = getters.query_one(WhyPane)
    block_view = getters.query_one(BlockView)

    BINDINGS = [
        Binding("escape", "back", "Back", id="explain.back", tooltip="Back to the entries"),
        Binding("slash", "focus_query", "Query", id="explain.query", tooltip="Edit the query"),
        Binding("space,p", "pin", "Pin", id="explain.pin",
                tooltip="Pin the selected entry to compare others with it (again to unpin)"),
        Binding("t", "focus_limits", "Top-k/budget", id="explain.limits", tooltip="Try other top-k and budget values"),
        Binding("K", "add_keywords", "Keywords", id="explain.keywords",
                tooltip="Add the query's terms the selected entry lacks (or words you type) to its keywords"),
        Binding("s", "save_probe", "Probe", id="explain.probe", show=False,
                tooltip="Keep this query as a probe that expects the selected entry to be injected"),
        Binding("S", "save_probe(True)", "Probe: nothing", id="explain.probe_nothing", show=False,
                tooltip="Keep this query as a probe that expects nothing to be injected"),
        Binding("r", "reset_limits", "Reset top-k/budget", id="explain.reset", show=False,
                tooltip="Put top-k and budget back to the store's values"),
        Binding("f", "find", "Find", id="explain.find",
                tooltip="Find entries in the ranked list by text or id (the ranks stay as they are)"),
        Binding("T", "tokens", "Terms", id="explain.tokens",
                tooltip="Show the terms the selected entry is indexed by (CJK text is indexed as bigrams)"),
        Binding("B", "toggle_block", "Block", id="explain.block",
                tooltip="On a short terminal: show the rendered block in the why pane's place, or the why pane again"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.explanation: Explanation | None = None
        self._rank_later = Debounce(self, EXPLAIN_DELAY, self.refresh_explain)
        self._requested_at = 0.0
        self._generation = 0  # the newest explain request (see refresh_explain)
        self._select_after: str | None = None  # the entry pinned from Browse, selected when a ranking shows it
        self.show_tokens = False
        self.last_refresh: tuple[float, float] | None = None  # (core seconds, keystroke-to-screen seconds)
        self.refreshes = 0

    def compose(self) -> ComposeResult:
        yield StatusBar("Explain")
        yield QueryInputs(self.app.store.limits, id="explain-inputs")
        yield ExplainSummary(id="explain-summary")
        with Horizontal(id="explain-main"):
            yield RankedPane(id="ranked-pane")
            yield WhyPane(id="why")
        yield BlockView(id="block")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_input.focus()
        self.watch(self.app, "snapshot", self._snapshot_changed, init=False)
        self._show_intro()
        self.block_view.folded = self.app.size.height < SHORT
        self.block_view.show(None)

    @property
    def pinned(self) -> str | None:
        """The entry the others are compared with (◆ in the ranking)."""
        return self.ranked_pane.pinned

    @pinned.setter
    def pinned(self, entry_id: str | None) -> None:
        self.ranked_pane.pin(entry_id)

    def arrive(self, entry_id: str | None = None) -> None:
        """Every visit starts in the query box with its text selected: typing replaces the old query;
        the find box of the last visit is cleared, so every ranked entry shows."""
        if self.find_input.value:
            self.find_input.value = ""
        self.query_input.focus()
        if entry_id:
            self._pin_from_browse(entry_id)

    def open_query(self, query: str, select: str | None = None) -> None:
        """Rank `query` now and select `select` in the ranking, with the keys on the ranking (probes
        open a probe's query here)."""
        self._rank_later.cancel()
        with self.query_input.prevent(Input.Changed):  # ranked right here, not again after the typing delay
            self.query_input.value = query
        self.refresh_explain(select=select)
        self.ranked.focus()  # the keys (K, s, space) act on the ranking

    def _pin_from_browse(self, entry_id: str) -> None:
        """Open on the entry that was selected in Browse: pinned, and selected once the query ranks it."""
        self.pinned = entry_id
        self._select_after = entry_id
        if not self.ranked.select_key(entry_id):
            self._show_pinned_intro()
        else:
            self._show_why()

    def _show_pinned_intro(self) -> None:
        snapshot = self.app.snapshot
        entry = snapshot.by_id(self.pinned) if snapshot is not None and self.pinned else None
        if entry is not None:
            self.why.show_pinned_intro(entry)

    def _show_intro(self) -> None:
        self.summary.show_legend()
        self.why.show_intro()

    # ------------------------------------------------------------------ running

    @on(Input.Changed)
    def _input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "ranked-find":
            if self.explanation is not None:
                self.apply(self.explanation)
            return
        self._rank_later.poke()

    @on(Input.Submitted)
    def _input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "ranked-find":
            self.ranked.focus()
            return
        self._to_ranked()

    def on_key(self, event: events.Key) -> None:
        if event.key == "down" and isinstance(self.focused, Input):  # from a box down into the ranking
            event.stop()
            self._to_ranked()

    def _to_ranked(self) -> None:
        self._rank_later.now()
        self.ranked.focus()

    def refresh_explain(self, select: str | None = None) -> None:
        """Rank the query in a worker; `select`: the entry to select in the ranking it brings."""
        limits = self.inputs.limits(self.app.store.limits)
        if limits is None:
            self.summary.show_error("top-k and budget must be whole numbers ≥ 0")
            return
        query = self.query_input.value
        if not query.strip():
            self.explanation = None
            self.ranked_pane.clear()
            self._show_intro()
            self.why.clear_terms()
            self.block_view.show(None)
            return
        self._requested_at = time.perf_counter()
        # Explains are thread workers: a newer one does not stop an older one, which still reports,
        # maybe last (the same query, asked again because an agent wrote meanwhile). Only the newest
        # request's answer is shown.
        self._generation += 1
        self._explain(query, *limits, select, self._generation)

    @work(thread=True, exclusive=True, group="explain", exit_on_error=False)
    def _explain(self, query: str, top_k: int, budget: int, select: str | None, generation: int) -> None:
        started = time.perf_counter()
        try:
            # with a project store open, both stores as one candidate set (each row names its scope)
            explanation = (self.app.scoped or self.app.store).explain(query, top_k=top_k, budget=budget)
        except Exception as exc:
            self.post_message(ExplainFailed(one_line(str(exc)), generation))
            return
        self.post_message(ExplainReady(explanation, time.perf_counter() - started, select, generation))

    def on_explain_failed(self, message: ExplainFailed) -> None:
        if message.generation == self._generation:
            self.summary.show_error(message.error)

    def on_explain_ready(self, message: ExplainReady) -> None:
        if message.generation != self._generation or message.explanation.query != self.query_input.value:
            return  # overtaken by a newer request, or a newer keystroke is on its way
        self.apply(message.explanation, select=message.select)
        total = time.perf_counter() - self._requested_at
        self.last_refresh = (message.seconds, total)
        self.refreshes += 1
        self._show_summary()

    def _snapshot_changed(self, _snapshot: object) -> None:
        if self.query_input.value.strip():
            self.refresh_explain()

    # ------------------------------------------------------------------ showing

    def apply(self, explanation: Explanation, select: str | None = None) -> None:
        self.explanation = explanation
        self.ranked_pane.show(explanation)
        table = self.ranked
        if select is not None:
            table.select_key(select)
        elif self._select_after is not None and table.select_key(self._select_after):
            self._select_after = None
        self.block_view.show(explanation)
        self._show_why()

    def _show_summary(self) -> None:
        if self.explanation is not None:
            core_seconds = self.last_refresh[0] if self.last_refresh is not None else None
            self.summary.show(self.explanation, self.inputs.trial(self.app.store.limits), core_seconds, self.ranked_pane.hidden_unmatched)

    def selected_row(self) -> EntryExplanation | None:
        return self.ranked_pane.selected_row()

    def _show_why(self) -> None:
        explanation = self.explanation
        row = self.selected_row()
        if explanation is None or row is None:
            self.why.clear_terms()
            return
        tokens = None
        if self.show_tokens:
            from memtui_core.text.tokenize import tokenize

            tokens = tokenize(row.text)
        self.why.show(row, explanation, self.ranked_pane.row(self.pinned), tokens)

    @on(VirtualTable.Highlighted, "#ranked")
    def _row_highlighted(self) -> None:
        self._show_why()

    # ------------------------------------------------------------------ actions

    def action_back(self) -> None:
        find = self.find_input
        if find.value and self.focused is find:
            find.value = ""  # escape in the search clears it first
            return
        self.app.action_show("browse")

    def action_find(self) -> None:
        self.find_input.focus()

    def action_focus_query(self) -> None:
        self.query_input.focus()

    def action_focus_limits(self) -> None:
        self.inputs.top_k_input.focus()

    def action_reset_limits(self) -> None:
        limits = self.app.store.limits
        self.inputs.reset(limits)
        self.refresh_explain()
        self.notify(f"top-k {limits.top_k}, budget {limits.char_budget}: the store's values", title="Reset", timeout=3)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "toggle_block":  # the block is folded only on a short terminal
            return self.app.size.height < SHORT
        return True

    def on_resize(self) -> None:
        self._show_why()  # the pane's order follows the width
        self.block_view.folded = self.app.size.height < SHORT and not self.has_class("-block-open")
        self.refresh_bindings()

    def action_toggle_block(self) -> None:
        self.toggle_class("-block-open")
        self.block_view.folded = not self.has_class("-block-open")

    def action_tokens(self) -> None:
        self.show_tokens = not self.show_tokens
        self._show_why()

    def action_pin(self) -> None:
        row = self.selected_row()
        if row is None:
            return
        self.pinned = None if self.pinned == row.id else row.id
        self._show_why()

    # ------------------------------------------------------------------ curation: keywords and probes

    def action_add_keywords(self) -> None:
        curation.add_keywords(self, self.selected_row(), self.explanation)

    def action_save_probe(self, nothing: bool = False) -> None:
        curation.save_probe(self, self.selected_row(), self.explanation, nothing)
