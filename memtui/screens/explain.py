"""Explain a query: how every entry ranks, why it is or is not injected, and the block the agent gets."""

from __future__ import annotations

import time

from rich.console import Group
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Input, Label, Static

from memtui_core.model import EntryExplanation, Explanation, Status

from ..messages import ExplainFailed, ExplainReady
from ..widgets.block_view import BlockView
from ..widgets.fmt import STATUS_LOOK, kind_badge, one_line, status_badge
from ..widgets.status_bar import StatusBar
from ..widgets.term_bars import breakdown, comparison, entry_heading
from ..widgets.virtual_table import Column, VirtualTable

EXPLAIN_DELAY = 0.15
TYPE_A_QUERY = "Type a query to rank the entries."
MAX_UNMATCHED_ROWS = 500  # every hit is listed; entries without a query term only up to this many
RANKED_COLUMNS = [
    Column("rank", "#", 4),
    Column("status", "status", 12),
    Column("score", "score", 7, justify="right"),
    Column("kind", "kind", 4),
    Column("text", "text", None),
]


class ExplainScreen(Screen):
    """Type a query; the table, the breakdown and the block follow as you type."""

    BINDINGS = [
        Binding("escape", "back", "Back", id="explain.back", tooltip="Back to the entries"),
        Binding("slash", "focus_query", "Query", id="explain.query", tooltip="Edit the query"),
        Binding("space,p", "pin", "Pin", id="explain.pin",
                tooltip="Pin the selected entry to compare others with it (again to unpin)"),
        Binding("t", "focus_limits", "Top-k/budget", id="explain.limits", tooltip="Try other top-k and budget values"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.explanation: Explanation | None = None
        self.pinned: str | None = None
        self._rows: dict[str, EntryExplanation] = {}
        self._timer: Timer | None = None
        self._shown: list[EntryExplanation] = []
        self._hidden_unmatched = 0
        self._requested_at = 0.0
        self.last_refresh: tuple[float, float] | None = None  # (core seconds, keystroke-to-screen seconds)
        self.refreshes = 0

    def compose(self) -> ComposeResult:
        limits = self.app.store.limits  # type: ignore[attr-defined]
        yield StatusBar("Explain")
        with Horizontal(id="explain-inputs"):
            yield Input(placeholder="type a query as the agent would get it, e.g. 部署 dry-run", id="query")
            yield Label("top-k", classes="input-label")
            yield Input(str(limits.top_k), id="top-k", type="integer", max_length=4)
            yield Label("budget", classes="input-label")
            yield Input(str(limits.char_budget), id="budget", type="integer", max_length=6)
        yield Static(id="explain-summary")
        with Horizontal(id="explain-main"):
            yield VirtualTable(RANKED_COLUMNS, empty=TYPE_A_QUERY, id="ranked")
            with VerticalScroll(id="why"):
                yield Static(id="why-entry")
                yield Static(id="why-terms")
                yield Static(id="why-compare")
        yield BlockView(id="block")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#query", Input).focus()
        self.watch(self.app, "snapshot", self._snapshot_changed, init=False)
        self._show_intro()
        self.query_one(BlockView).show(None)

    def _show_intro(self) -> None:
        legend = Text(no_wrap=False)
        for status, (_label, _style, meaning) in STATUS_LOOK.items():
            legend.append_text(status_badge(status))
            legend.append(f" {meaning}   ", style="#8a8a8a")
        self.query_one("#explain-summary", Static).update(legend)
        self.query_one("#why-entry", Static).update(
            Text(
                "Type a query above. Every entry is scored with BM25 as the agent's retrieval would score it; "
                "select one to see each query term's share of its score and why it is or is not injected.",
                style="dim italic",
            )
        )

    # ------------------------------------------------------------------ running

    @on(Input.Changed)
    def _input_changed(self, event: Input.Changed) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(EXPLAIN_DELAY, self.refresh_explain)

    @on(Input.Submitted)
    def _input_submitted(self) -> None:
        self._to_ranked()

    def on_key(self, event: events.Key) -> None:
        if event.key == "down" and isinstance(self.focused, Input):  # from a box down into the ranking
            event.stop()
            self._to_ranked()

    def _to_ranked(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        self.refresh_explain()
        self.query_one("#ranked", VirtualTable).focus()

    def _limit(self, widget_id: str, default: int) -> int | None:
        raw = self.query_one(widget_id, Input).value.strip()
        if not raw:
            return default
        try:
            value = int(raw)
        except ValueError:
            return None
        return value if value >= 0 else None

    def refresh_explain(self) -> None:
        limits = self.app.store.limits  # type: ignore[attr-defined]
        top_k = self._limit("#top-k", limits.top_k)
        budget = self._limit("#budget", limits.char_budget)
        if top_k is None or budget is None:
            self.query_one("#explain-summary", Static).update(
                Text("top-k and budget must be whole numbers ≥ 0", style="bold #ff5f5f")
            )
            return
        query = self.query_one("#query", Input).value
        if not query.strip():
            self.explanation = None
            self._rows = {}
            table = self.query_one("#ranked", VirtualTable)
            table.empty_message = TYPE_A_QUERY
            table.set_rows([], lambda index: ())
            self._show_intro()
            self.query_one("#why-terms", Static).update("")
            self.query_one("#why-compare", Static).update("")
            self.query_one(BlockView).show(None)
            return
        self._requested_at = time.perf_counter()
        self._explain(query, top_k, budget)

    @work(thread=True, exclusive=True, group="explain", exit_on_error=False)
    def _explain(self, query: str, top_k: int, budget: int) -> None:
        started = time.perf_counter()
        try:
            explanation = self.app.store.explain(query, top_k=top_k, budget=budget)  # type: ignore[attr-defined]
        except Exception as exc:
            self.post_message(ExplainFailed(one_line(str(exc))))
            return
        self.post_message(ExplainReady(explanation, time.perf_counter() - started))

    def on_explain_failed(self, message: ExplainFailed) -> None:
        self.query_one("#explain-summary", Static).update(Text(message.error, style="bold #ff5f5f"))

    def on_explain_ready(self, message: ExplainReady) -> None:
        if message.explanation.query != self.query_one("#query", Input).value:
            return  # a newer keystroke is on its way
        self.apply(message.explanation)
        total = time.perf_counter() - self._requested_at
        self.last_refresh = (message.seconds, total)
        self.refreshes += 1
        self._show_summary()

    def _snapshot_changed(self, _snapshot: object) -> None:
        if self.query_one("#query", Input).value.strip():
            self.refresh_explain()

    # ------------------------------------------------------------------ showing

    def apply(self, explanation: Explanation) -> None:
        self.explanation = explanation
        self._rows = {row.id: row for row in explanation.entries}
        if self.pinned not in self._rows:
            self.pinned = None
        shown: list[EntryExplanation] = []
        unmatched = 0
        for row in explanation.entries:
            if row.score <= 0:
                unmatched += 1
                if unmatched > MAX_UNMATCHED_ROWS:
                    continue
            shown.append(row)
        self._shown = shown
        self._hidden_unmatched = max(0, unmatched - MAX_UNMATCHED_ROWS)
        table = self.query_one("#ranked", VirtualTable)
        table.empty_message = "No entries to rank: the store is empty." if explanation.n == 0 else TYPE_A_QUERY
        table.set_rows([row.id for row in shown], self._cells)
        self.query_one(BlockView).show(explanation)
        self._show_why()

    def _cells(self, index: int) -> list[Text]:
        row = self._shown[index]
        faint = row.status in (Status.ZERO_SCORE, Status.BLOCKED)
        return [
            self._rank_cell(row),
            status_badge(row.status),
            Text(f"{row.score:.3f}" if row.score else "0",
                 style="bold" if row.status is Status.INJECTED else "#8a8a8a" if not row.score else ""),
            kind_badge(row.kind, english=False),
            Text(one_line(row.text), style="#8a8a8a" if faint else ""),
        ]

    def _rank_cell(self, row: EntryExplanation) -> Text:
        marker = "◆" if row.id == self.pinned else " "
        return Text(f"{marker}{row.rank if row.rank else '–'}", style="bold #d7afff" if marker != " " else "bold")

    def _show_summary(self) -> None:
        explanation = self.explanation
        if explanation is None:
            return
        text = Text(no_wrap=False)
        if explanation.n == 0:
            text.append("The store is empty: nothing to rank. Add memories on the browse screen (m, then n).",
                        style="bold #ffd75f")
        elif not explanation.tokens:
            text.append("No searchable terms in this query", style="bold #ffd75f")
            text.append(" — only words of 2+ letters/digits and CJK characters count; nothing is injected.",
                        style="#ffd75f")
        else:
            text.append("terms ", style="#8a8a8a")
            seen: list[str] = []
            for token in explanation.tokens:
                if token not in seen:
                    seen.append(token)
            for token in seen[:12]:
                if token in explanation.ignored:  # a function word: shown struck through, not scored
                    text.append(f" {token} ", style="strike #6c6c6c on #262626")
                else:
                    text.append(f" {token} ", style="bold on #303030")
                text.append(" ")
            if len(seen) > 12:
                text.append(f"+{len(seen) - 12} ", style="#8a8a8a")
            counts: dict[Status, int] = {}
            for row in explanation.entries:
                counts[row.status] = counts.get(row.status, 0) + 1
            text.append(f"│ n={explanation.n} avg_len={explanation.avg_len:.1f} │ ", style="#8a8a8a")
            if explanation.profile != "default":
                text.append(f"profile {explanation.profile} │ ", style="bold #d7afff")
            for status in Status:
                if counts.get(status):
                    text.append_text(status_badge(status))
                    text.append(f"{counts[status]} ", style="bold")
        if self.last_refresh is not None:
            core_s, total_s = self.last_refresh
            text.append(f" │ {core_s * 1000:.1f} ms", style="#8a8a8a")
        hidden = self._hidden_unmatched
        if hidden:
            text.append(f" │ {hidden} more without a query term not listed", style="#8a8a8a")
        self.query_one("#explain-summary", Static).update(text)

    def _selected_id(self) -> str | None:
        return self.query_one("#ranked", VirtualTable).selected_key()

    def selected_row(self) -> EntryExplanation | None:
        entry_id = self._selected_id()
        return self._rows.get(entry_id) if entry_id else None

    def _show_why(self) -> None:
        explanation = self.explanation
        row = self.selected_row()
        entry_pane = self.query_one("#why-entry", Static)
        terms_pane = self.query_one("#why-terms", Static)
        compare_pane = self.query_one("#why-compare", Static)
        if explanation is None or row is None:
            terms_pane.update("")
            compare_pane.update("")
            return
        reason_style = {
            Status.INJECTED: "#87d787", Status.BLOCKED: "#ff5f87", Status.ZERO_SCORE: "#8a8a8a",
            Status.BELOW_THRESHOLD: "#d7afff",
        }.get(row.status, "#ffd75f")
        entry_pane.update(
            Group(
                entry_heading(row),
                Text(row.text),
                Text.assemble(("why: ", "bold"), (row.reason, reason_style)),
                Text(""),
            )
        )
        pinned = self._rows.get(self.pinned) if self.pinned else None
        comparing = pinned is not None and pinned.id != row.id
        terms_pane.update(breakdown(row, explanation) if explanation.tokens and not comparing else Text(""))
        if pinned is None:
            compare_pane.update(
                Text("\nPress space to pin this entry, then select another to compare them term by term.",
                     style="dim italic")
            )
        elif pinned.id == row.id:
            compare_pane.update(
                Text("\n◆ Pinned. Select another entry to see why one ranks above the other.", style="#d7afff")
            )
        else:
            compare_pane.update(Group(Text("Why is A above B?", style="bold underline"),
                                      comparison(pinned, row, explanation)))

    @on(VirtualTable.Highlighted, "#ranked")
    def _row_highlighted(self) -> None:
        self._show_why()

    # ------------------------------------------------------------------ actions

    def action_back(self) -> None:
        self.app.action_show("browse")  # type: ignore[attr-defined]

    def action_focus_query(self) -> None:
        self.query_one("#query", Input).focus()

    def action_focus_limits(self) -> None:
        self.query_one("#top-k", Input).focus()

    def action_pin(self) -> None:
        row = self.selected_row()
        if row is None:
            return
        previous = self.pinned
        self.pinned = None if previous == row.id else row.id
        self.query_one("#ranked", VirtualTable).refresh_rows([key for key in (previous, self.pinned) if key])
        self._show_why()
