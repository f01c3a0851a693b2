"""Explain a query: how every entry ranks, why it is or is not injected, and the block the agent gets."""

from __future__ import annotations

import time

from rich.console import Group
from rich.text import Text
from textual import events, getters, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Input, Label, Static

from memtui_core.model import EntryExplanation, Explanation, Status

from ..debounce import Debounce
from ..messages import ExplainFailed, ExplainReady
from ..widgets.block_view import BlockView
from ..widgets.fmt import STATUS_LOOK, kind_badge, one_line, status_badge
from ..widgets.key_footer import KeyFooter
from ..widgets.status_bar import StatusBar
from ..writes import Edit
from .base import ModeScreen
from ..widgets.term_bars import breakdown, comparison, entry_heading
from ..widgets.virtual_table import Column, VirtualTable
from ..widgets.palette import P

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


class ExplainScreen(ModeScreen):
    """Type a query; the table, the breakdown and the block follow as you type."""
    ranked = getters.query_one("#ranked", VirtualTable)
    query_input = getters.query_one("#query", Input)
    find_input = getters.query_one("#ranked-find", Input)
    summary = getters.query_one("#explain-summary", Static)
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
    ]

    def __init__(self) -> None:
        super().__init__()
        self.explanation: Explanation | None = None
        self.pinned: str | None = None
        self._rows: dict[str, EntryExplanation] = {}
        self._rank_later = Debounce(self, EXPLAIN_DELAY, self.refresh_explain)
        self._shown: list[EntryExplanation] = []
        self._hidden_unmatched = 0
        self._requested_at = 0.0
        self._select_after: str | None = None  # the entry pinned from Browse, selected when a ranking shows it
        self.show_tokens = False
        self.last_refresh: tuple[float, float] | None = None  # (core seconds, keystroke-to-screen seconds)
        self.refreshes = 0

    def compose(self) -> ComposeResult:
        limits = self.app.store.limits
        yield StatusBar("Explain")
        with Horizontal(id="explain-inputs"):
            yield Input(placeholder="type a query as the agent would get it, e.g. 部署 dry-run", id="query")
            yield Label("top-k", classes="input-label")
            yield Input(str(limits.top_k), id="top-k", type="integer", max_length=4)
            yield Label("budget", classes="input-label")
            yield Input(str(limits.char_budget), id="budget", type="integer", max_length=6)
        yield Static(id="explain-summary")
        with Horizontal(id="explain-main"):
            with Vertical(id="ranked-pane"):
                yield Input(placeholder="f find in the ranking by text or id", id="ranked-find", compact=True)
                yield VirtualTable(RANKED_COLUMNS, empty=TYPE_A_QUERY, id="ranked")
            with VerticalScroll(id="why"):
                yield Static(id="why-entry")
                yield Static(id="why-terms")
                yield Static(id="why-compare")
        yield BlockView(id="block")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_input.focus()
        self.watch(self.app, "snapshot", self._snapshot_changed, init=False)
        self._show_intro()
        self.block_view.show(None)

    def arrive(self, entry_id: str | None = None) -> None:
        """Every visit starts in the query box with its text selected: typing replaces the old query."""
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
        previous = self.pinned
        self.pinned = entry_id
        self._select_after = entry_id
        table = self.ranked
        table.refresh_rows([key for key in (previous, entry_id) if key])
        if not table.select_key(entry_id):
            self._show_pinned_intro()
        else:
            self._show_why()

    def _show_pinned_intro(self) -> None:
        snapshot = self.app.snapshot
        entry = snapshot.by_id(self.pinned) if snapshot is not None and self.pinned else None
        if entry is None:
            return
        self.query_one("#why-entry", Static).update(
            Group(
                Text.assemble(("◆ ", "bold " + P.pin), kind_badge(entry.kind), ("  " + entry.id, P.muted)),
                Text(entry.text),
                Text(""),
                Text("Pinned from Browse. Type a query to see where this entry ranks and why; "
                     "space unpins it.", style="dim italic"),
            )
        )

    def _show_intro(self) -> None:
        legend = Text(no_wrap=False)
        for status, (_label, _style, meaning) in STATUS_LOOK.items():
            legend.append_text(status_badge(status))
            legend.append(f" {meaning}   ", style=P.muted)
        self.summary.update(legend)
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

    def _limit(self, widget_id: str, default: int) -> int | None:
        raw = self.query_one(widget_id, Input).value.strip()
        if not raw:
            return default
        try:
            value = int(raw)
        except ValueError:
            return None
        return value if value >= 0 else None

    def refresh_explain(self, select: str | None = None) -> None:
        """Rank the query in a worker; `select`: the entry to select in the ranking it brings."""
        limits = self.app.store.limits
        top_k = self._limit("#top-k", limits.top_k)
        budget = self._limit("#budget", limits.char_budget)
        if top_k is None or budget is None:
            self.summary.update(
                Text("top-k and budget must be whole numbers ≥ 0", style=f"bold {P.error}")
            )
            return
        query = self.query_input.value
        if not query.strip():
            self.explanation = None
            self._rows = {}
            table = self.ranked
            table.empty_message = TYPE_A_QUERY
            table.set_rows([], lambda index: ())
            self._show_intro()
            self.query_one("#why-terms", Static).update("")
            self.query_one("#why-compare", Static).update("")
            self.block_view.show(None)
            return
        self._requested_at = time.perf_counter()
        self._explain(query, top_k, budget, select)

    @work(thread=True, exclusive=True, group="explain", exit_on_error=False)
    def _explain(self, query: str, top_k: int, budget: int, select: str | None) -> None:
        started = time.perf_counter()
        try:
            explanation = self.app.store.explain(query, top_k=top_k, budget=budget)
        except Exception as exc:
            self.post_message(ExplainFailed(one_line(str(exc))))
            return
        self.post_message(ExplainReady(explanation, time.perf_counter() - started, select))

    def on_explain_failed(self, message: ExplainFailed) -> None:
        self.summary.update(Text(message.error, style=f"bold {P.error}"))

    def on_explain_ready(self, message: ExplainReady) -> None:
        if message.explanation.query != self.query_input.value:
            return  # a newer keystroke is on its way
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
        self._rows = {row.id: row for row in explanation.entries}
        if self.pinned not in self._rows:
            self.pinned = None
        shown: list[EntryExplanation] = []
        unmatched = 0
        needle = self.find_input.value.strip().lower()
        for row in explanation.entries:
            if needle and needle not in row.text.lower() and not row.id.startswith(needle):
                continue
            if row.score <= 0:
                unmatched += 1
                if unmatched > MAX_UNMATCHED_ROWS and row.id != self.pinned:
                    continue
            shown.append(row)
        self._shown = shown
        self._hidden_unmatched = max(0, unmatched - MAX_UNMATCHED_ROWS)
        table = self.ranked
        table.empty_message = (
            "No entries to rank: the store is empty." if explanation.n == 0
            else "No ranked entry contains that text (escape clears the search)." if needle else TYPE_A_QUERY
        )
        table.set_rows([row.id for row in shown], self._cells)
        if select is not None:
            table.select_key(select)
        elif self._select_after is not None and table.select_key(self._select_after):
            self._select_after = None
        self.block_view.show(explanation)
        self._show_why()

    def _cells(self, index: int) -> list[Text]:
        row = self._shown[index]
        faint = row.status in (Status.ZERO_SCORE, Status.BLOCKED)
        return [
            self._rank_cell(row),
            status_badge(row.status),
            Text(f"{row.score:.3f}" if row.score else "0",
                 style="bold" if row.status is Status.INJECTED else P.muted if not row.score else ""),
            kind_badge(row.kind, english=False),
            Text(one_line(row.text), style=P.muted if faint else ""),
        ]

    def _rank_cell(self, row: EntryExplanation) -> Text:
        marker = "◆" if row.id == self.pinned else " "
        return Text(f"{marker}{row.rank if row.rank else '–'}", style=f"bold {P.pin}" if marker != " " else "bold")

    def _show_summary(self) -> None:
        explanation = self.explanation
        if explanation is None:
            return
        text = Text(no_wrap=False)
        trial = self._trial_limits()
        if trial:  # first: the summary is cut at two lines on a narrow terminal
            text.append(f"trying {trial}, r resets │ ", style=f"bold {P.warning}")
        if explanation.n == 0:
            text.append("The store is empty: nothing to rank. Add memories on the browse screen (m, then n).",
                        style=f"bold {P.warning}")
        elif not explanation.tokens:
            text.append("No searchable terms in this query", style=f"bold {P.warning}")
            text.append(" — only words of 2+ letters/digits and CJK characters count; nothing is injected.",
                        style=P.warning)
        else:
            text.append("terms ", style=P.muted)
            seen: list[str] = []
            for token in explanation.tokens:
                if token not in seen:
                    seen.append(token)
            for token in seen[:12]:
                if token in explanation.ignored:  # a function word: shown struck through, not scored
                    text.append(f" {token} ", style=f"strike {P.muted}")
                else:
                    text.append(f" {token} ", style=f"bold {P.chip}")
                text.append(" ")
            if len(seen) > 12:
                text.append(f"+{len(seen) - 12} ", style=P.muted)
            counts: dict[Status, int] = {}
            for row in explanation.entries:
                counts[row.status] = counts.get(row.status, 0) + 1
            text.append(f"│ n={explanation.n} avg_len={explanation.avg_len:.1f} │ ", style=P.muted)
            if explanation.profile != "default":
                text.append(f"profile {explanation.profile} │ ", style=f"bold {P.pin}")
            for status in Status:
                if counts.get(status):
                    text.append_text(status_badge(status))
                    text.append(f"{counts[status]} ", style="bold")
        if self.last_refresh is not None:
            core_s, total_s = self.last_refresh
            text.append(f" │ {core_s * 1000:.1f} ms", style=P.muted)
        hidden = self._hidden_unmatched
        if hidden:
            text.append(f" │ {hidden} more without a query term not listed", style=P.muted)
        self.summary.update(text)

    def _selected_id(self) -> str | None:
        return self.ranked.selected_key()

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
            Status.INJECTED: P.success, Status.BLOCKED: P.error, Status.ZERO_SCORE: P.muted,
            Status.BELOW_THRESHOLD: P.pin,
        }.get(row.status, P.warning)
        entry_pane.update(
            Group(
                entry_heading(row),
                Text(row.text),
                Text.assemble(("why: ", "bold"), (row.reason, reason_style)),
                *self._tokens(row),
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
                Text("\n◆ Pinned. Select another entry to see why one ranks above the other.", style=P.pin)
            )
        else:
            compare_pane.update(Group(Text("Why is A above B?", style="bold underline"),
                                      comparison(pinned, row, explanation)))

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
        self.query_one("#top-k", Input).focus()

    def _tokens(self, row: EntryExplanation) -> list[Text]:
        if not self.show_tokens:
            return []
        from memtui_core.tokenize import tokenize

        line = Text("its terms: ", style="bold")
        for token in dict.fromkeys(tokenize(row.text)):
            line.append(f" {token} ", style=P.chip)
            line.append(" ")
        return [line]

    def _trial_limits(self) -> str:
        """`top-k 2 (store 4)` when a box differs from the store's own value, else ``."""
        limits = self.app.store.limits
        out = []
        for widget_id, name, default in (("#top-k", "top-k", limits.top_k), ("#budget", "budget", limits.char_budget)):
            value = self._limit(widget_id, default)
            if value is not None and value != default:
                out.append(f"{name} {value} (store {default})")
        return ", ".join(out)

    def action_reset_limits(self) -> None:
        limits = self.app.store.limits
        self.query_one("#top-k", Input).value = str(limits.top_k)
        self.query_one("#budget", Input).value = str(limits.char_budget)
        self.refresh_explain()
        self.notify(f"top-k {limits.top_k}, budget {limits.char_budget}: the store's values", title="Reset", timeout=3)

    def action_tokens(self) -> None:
        self.show_tokens = not self.show_tokens
        self._show_why()

    def action_pin(self) -> None:
        row = self.selected_row()
        if row is None:
            return
        previous = self.pinned
        self.pinned = None if previous == row.id else row.id
        self.ranked.refresh_rows([key for key in (previous, self.pinned) if key])
        self._show_why()

    # ------------------------------------------------------------------ curation: keywords and probes

    def missing_terms(self, row: EntryExplanation) -> list[str]:
        """The query's scored terms that the entry holds neither in its text nor in its keywords."""
        terms = [term.term for term in row.terms
                 if not term.tf and not getattr(term, "keyword_tf", 0) and not getattr(term, "ignored", None)]
        if not terms and self.explanation is not None and row.score <= 0:
            ignored = set(getattr(self.explanation, "ignored", []) or [])
            terms = [token for token in dict.fromkeys(self.explanation.tokens) if token not in ignored]
        return terms

    def action_add_keywords(self) -> None:
        from ..modals.keywords import KeywordsModal

        row = self.selected_row()
        snapshot = self.app.snapshot
        entry = snapshot.by_id(row.id) if row is not None and snapshot is not None else None
        if row is None or entry is None or self.explanation is None:
            self.notify("Select the entry you expected, then press K.", title="Nothing selected")
            return
        query = self.explanation.query

        def chosen(keywords: list[str] | None) -> None:
            if keywords is None or keywords == list(entry.keywords):
                return
            self.app.submit(Edit(entry.id, entry, keywords=keywords))

        self.app.push_screen(KeywordsModal(entry, self.missing_terms(row), query), chosen)

    def action_save_probe(self, nothing: bool = False) -> None:
        row = self.selected_row()
        if self.explanation is None or not self.explanation.query.strip():
            self.notify("Type a query first; the probe keeps it.", title="No query")
            return
        if not nothing and row is None:
            self.notify("Select the entry this query must inject (S keeps it as expecting nothing).",
                        title="Nothing selected")
            return
        self._save_probe(self.explanation.query, None if nothing or row is None else [row.id])

    @work(thread=True, group="probe-save", exit_on_error=False)
    def _save_probe(self, query: str, expect: list[str] | None) -> None:
        from memtui_core.probes import add_probe, evaluate

        store = self.app.store
        try:
            probe, outcome = add_probe(store, query, expect)
            result = evaluate(probe, store.explain(probe.query))
        except Exception as exc:
            self.app.call_from_thread(self.notify, one_line(str(exc)) or type(exc).__name__,
                                      title="Probe not kept", severity="error", timeout=8, markup=False)
            return
        what = "nothing" if probe.expects_nothing else ", ".join(probe.expect)
        verb = {"added": "Kept", "updated": "Updated", "unchanged": "Already kept"}[outcome]
        state = "it passes now" if result.passed else f"it fails now: {result.misses[0].status}"
        self.app.call_from_thread(self.notify, f"{probe.id}: “{one_line(probe.query)[:40]}” must inject {what}; {state}",
                                  title=f"{verb} probe", timeout=6, markup=False)
