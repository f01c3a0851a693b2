"""The main screen: every entry, a view per kind, a text filter, and the selected entry in full."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual import events, getters, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Input, Static, Tab, Tabs

from memtui_core.kinds import Kind
from memtui_core.model import Entry

from ..debounce import Debounce
from ..messages import StoreHistory, StoreSnapshot
from ..modals.confirm import ConfirmModal
from ..modals.reclassify import ReclassifyModal
from ..widgets.entry_detail import EntryDetail, flag_reasons
from ..widgets.entry_table import EntryTable
from ..widgets.fmt import KIND_COLOURS, clip, kind_badge
from ..widgets.key_footer import KeyFooter
from ..widgets.status_bar import StatusBar
from ..writes import Approve, BatchApprove, BatchDelete, BatchReclassify, Delete, Draft, Reclassify
from .base import ModeScreen
from ..widgets.palette import P

VIEWS: list[tuple[str, Kind | None]] = [("all", None)] + [(kind.value, kind) for kind in Kind]
FILTER_DELAY = 0.15


SORTS: list[tuple[str, str]] = [
    ("stored", "as stored"),
    ("newest", "newest first"),
    ("oldest", "oldest first"),
    ("kind", "by kind"),
    ("longest", "longest first"),
]


def view_label(kind: Kind | None, count: int, total: int | None = None) -> Text:
    """`All 42`, or `All 2/42` while a filter hides some."""
    shown = str(count) if total is None or total == count else f"{count}/{total}"
    if kind is None:
        return Text.assemble(("All ", "bold"), (shown, P.muted))
    return Text.assemble(
        (kind.label, f"bold {KIND_COLOURS[kind]}"), (" " + kind.value, KIND_COLOURS[kind]), (f" {shown}", P.muted)
    )


def sort_entries(entries: list[Entry], order: str) -> list[Entry]:
    if order == "newest":
        return sorted(entries, key=lambda e: e.ts, reverse=True)
    if order == "oldest":
        return sorted(entries, key=lambda e: e.ts)
    if order == "kind":
        kinds = list(Kind)
        return sorted(entries, key=lambda e: (kinds.index(e.kind), -e.ts))
    if order == "longest":
        return sorted(entries, key=lambda e: (-len(e.text), -e.ts))
    return entries


class BrowseScreen(ModeScreen):
    """Browse and curate. Writes go through the app, which runs them in a worker and reloads."""
    entry_table = getters.query_one(EntryTable)
    filter_input = getters.query_one("#filter", Input)
    detail = getters.query_one(EntryDetail)
    view_tabs = getters.query_one("#views", Tabs)


    BINDINGS = [
        Binding("slash", "filter", "Filter", id="browse.filter", tooltip="Filter entries by text, id or source"),
        Binding("n", "add", "Add", id="browse.add", tooltip="Write a new memory"),
        Binding("e", "edit", "Edit", id="browse.edit", tooltip="Edit the selected entry's text (and kind)"),
        Binding("k", "reclassify", "Kind", id="browse.reclassify", tooltip="Move the selected entry to another kind"),
        Binding("d", "delete", "Delete", id="browse.delete", tooltip="Delete the selected entry (asks first)"),
        Binding("A", "approve", "Approve", id="browse.approve", tooltip="Let a blocked entry be injected (asks first)"),
        Binding("h", "history", "History", id="browse.history", tooltip="The audit log of the selected entry"),
        Binding("u", "usage_order", "Usage", id="browse.usage",
                tooltip="Cycle: store order, least injected first, only entries never injected in 30 days"),
        Binding("space", "mark", "Mark", id="browse.mark", show=False,
                tooltip="Mark the selected entry for a bulk delete (d), reclassify (k) or approve (A)"),
        Binding("s", "sort", "Sort", id="browse.sort", show=False,
                tooltip="Sort the entries: as stored, newest, oldest, by kind, longest"),
        Binding("escape", "back", "Clear filter", id="browse.back", show=False, tooltip="Clear the filter"),
        Binding("1", "view('all')", "All", id="browse.view_all", show=False, tooltip="Show all kinds"),
        Binding("2", "view('preference')", "偏好 preference", id="browse.view_preference", show=False,
                tooltip="Show preferences"),
        Binding("3", "view('correction')", "纠正 correction", id="browse.view_correction", show=False,
                tooltip="Show corrections"),
        Binding("4", "view('lesson')", "经验 lesson", id="browse.view_lesson", show=False, tooltip="Show lessons"),
        Binding("5", "view('fact')", "事实 fact", id="browse.view_fact", show=False, tooltip="Show facts"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.view: Kind | None = None
        self.filter_text = ""
        self.usage_order = "store"  # store | least | never
        self.sort = "stored"
        self._by_id: dict[str, Entry] = {}
        self._filter = Debounce(self, FILTER_DELAY, self._apply_filter)

    def compose(self) -> ComposeResult:
        yield StatusBar("Browse")
        yield Tabs(*[Tab(view_label(kind, 0), id=f"view-{name}") for name, kind in VIEWS], id="views")
        yield Input(placeholder="/ filter by text, id or source", id="filter", compact=True)
        with Horizontal(id="browse-main"):
            yield EntryTable(id="entries")
            yield EntryDetail(id="detail")
        yield Static(id="empty-state")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#empty-state").display = False
        self.entry_table.focus()
        self.watch(self.app, "snapshot", self._snapshot_changed, init=True)
        self.watch(self.app, "history", self._history_changed, init=False)

    def arrive(self, entry_id: str | None = None) -> None:
        self.entry_table.focus()

    # ------------------------------------------------------------------ data

    @property
    def snapshot(self) -> StoreSnapshot | None:
        return self.app.snapshot

    @property
    def history(self) -> StoreHistory | None:
        return self.app.history

    def filtered_entries(self) -> list[Entry]:
        """The entries the text filter lets through, of every kind."""
        snapshot = self.snapshot
        if snapshot is None:
            return []
        entries = snapshot.entries
        needle = self.filter_text.strip().lower()
        if needle:
            entries = [
                e for e in entries if needle in e.text.lower() or e.id.startswith(needle) or needle in e.source.lower()
            ]
        usage = snapshot.usage
        if self.usage_order == "least":  # fewest injections first, then the longest since the last one
            entries = sorted(entries, key=lambda e: usage.get(e.id, (0, 0.0)))
        elif self.usage_order == "never":
            entries = [e for e in entries if e.id not in usage]
        return entries

    def visible_entries(self) -> list[Entry]:
        entries = self.filtered_entries()
        if self.view is not None:
            entries = [e for e in entries if e.kind is self.view]
        entries = sort_entries(entries, self.sort)
        usage = self.snapshot.usage if self.snapshot is not None else {}
        if self.usage_order == "least":  # fewest injections first, then the longest since the last one
            entries = sorted(entries, key=lambda e: usage.get(e.id, (0, 0.0)))
        elif self.usage_order == "never":
            entries = [e for e in entries if e.id not in usage]
        return entries

    def _update_counts(self) -> None:
        """The tab counts follow the filter: `All 2/42` while two of 42 entries match."""
        snapshot = self.snapshot
        if snapshot is None:
            return
        filtered = self.filtered_entries()
        tabs = self.view_tabs
        for name, kind in VIEWS:
            shown = len(filtered) if kind is None else sum(1 for e in filtered if e.kind is kind)
            tabs.query_one(f"#view-{name}", Tab).label = view_label(kind, shown, snapshot.count(kind))

    def selected_entry(self) -> Entry | None:
        entry_id = self.entry_table.selected_id()
        return self._by_id.get(entry_id) if entry_id else None

    def _snapshot_changed(self, snapshot: StoreSnapshot | None) -> None:
        if snapshot is None:
            self.detail.show_message(Text("Reading the store…", style="dim italic"))
            return
        self._by_id = {entry.id: entry for entry in snapshot.entries}
        empty = not snapshot.entries
        main = self.query_one("#browse-main")
        appeared = not empty and not main.display
        self.query_one("#empty-state").display = empty
        main.display = not empty
        if empty:
            self._show_empty_state()
        self.fill()
        if appeared and not isinstance(self.focused, Input):
            self.entry_table.focus()  # the first entries: arrows move through them, not the detail

    def reveal(self, entry_id: str) -> None:
        """Select `entry_id` (the entry a write just touched), first clearing a filter or view that hides it."""
        if entry_id not in self._by_id:
            return
        if entry_id not in {e.id for e in self.visible_entries()}:
            self.filter_text = ""
            self.filter_input.value = ""
            self.view = None  # now, not when the tab's event arrives: the fill below must show it
            self.action_view("all")
        self.fill(keep=entry_id)

    def _history_changed(self, history: StoreHistory | None) -> None:
        self._show_selected()

    def fill(self, keep: str | None = None) -> None:
        table = self.entry_table
        entries = self.visible_entries()
        table.show(entries, keep=keep)
        self._update_counts()
        if entries:
            self.app.rows_shown()
        self._show_selected()
        self.refresh_bindings()

    def _show_selected(self) -> None:
        detail = self.detail
        marked = self.marked()
        if marked:
            detail.show_message(self._bulk_preview(
                marked, f"{len(marked)} marked: d deletes, k reclassifies, A approves the blocked ones; "
                        "space unmarks, escape clears the marks."))
            return
        entry = self.selected_entry()
        if entry is None:
            snapshot = self.snapshot
            if snapshot is not None and snapshot.entries:
                what = f"{self.view.label} {self.view.value} entries" if self.view else "entries"
                hint = f" matching “{self.filter_text}”" if self.filter_text else ""
                detail.show_message(Text(f"No {what}{hint}.", style="dim italic"))
            else:
                detail.show_entry(None, snapshot, self.history)
            return
        detail.show_entry(entry, self.snapshot, self.history)

    def _show_empty_state(self) -> None:
        message = Text(justify="center")
        message.append("No memories yet\n\n", style="bold")
        message.append("Press ", style="")
        message.append(" n ", style="bold reverse")
        message.append(" to add the first one here, or from a shell:\n\n")
        command = self.app.command  # with the --dir the app was opened with
        message.append(f'{command} add preference "回答尽量简短，先给结论"', style=f"bold {P.success}")
        message.append("\n\nAgents add memories with memory_save; they show up here within a second.", style=P.muted)
        self.query_one("#empty-state", Static).update(message)

    # ------------------------------------------------------------------ events

    @on(EntryTable.Highlighted, "#entries")
    def _row_highlighted(self) -> None:
        self._show_selected()
        self.refresh_bindings()

    @on(Tabs.TabActivated, "#views")
    def _tab_activated(self, event: Tabs.TabActivated) -> None:
        name = (event.tab.id or "view-all").removeprefix("view-")
        kind = Kind(name) if name != "all" else None
        if kind is not self.view:
            self.view = kind
            self.fill()

    @on(Input.Changed, "#filter")
    def _filter_changed(self) -> None:
        self._filter.poke()

    def _apply_filter(self) -> None:
        value = self.filter_input.value
        if value != self.filter_text:
            self.filter_text = value
            self.fill()

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self) -> None:
        self._leave_filter()

    def on_key(self, event: events.Key) -> None:
        if event.key == "down" and isinstance(self.focused, Input):  # from the filter down into the rows
            event.stop()
            self._leave_filter()

    def _leave_filter(self) -> None:
        self._filter.now()
        self.entry_table.focus()

    # ------------------------------------------------------------------ actions

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("reclassify", "delete") and self.marked():
            return True
        if action == "approve" and self.marked():
            return True if any(e.blocked for e in self.marked()) else False
        if action in ("edit", "reclassify", "delete", "history"):
            return True if self.selected_entry() is not None else None
        if action == "approve":  # shown only on a blocked entry, which is rare: it keeps the footer short
            entry = self.selected_entry()
            return True if entry is not None and entry.blocked else False
        return True

    def action_usage_order(self) -> None:
        order = {"store": "least", "least": "never", "never": "store"}[self.usage_order]
        self.usage_order = order
        snapshot = self.snapshot
        days = snapshot.usage_days if snapshot else 30
        self.notify({"store": "Store order", "least": "Least injected first",
                     "never": f"Only entries never injected in {days} days"}[order], title="Usage")
        self.fill(keep=self.entry_table.selected_id())

    def action_sort(self) -> None:
        names = [name for name, _ in SORTS]
        self.sort = names[(names.index(self.sort) + 1) % len(names)]
        self.fill(keep=self.entry_table.selected_id())
        label = dict(SORTS)[self.sort]
        self.filter_input.placeholder = f"/ filter by text, id or source · s: sorted {label}"
        self.notify(f"Sorted {label}", timeout=2)

    def action_filter(self) -> None:
        self.filter_input.focus()

    def marked(self) -> list[Entry]:
        """The marked entries still in the store, in store order."""
        table = self.entry_table
        snapshot = self.snapshot
        if not table.marked or snapshot is None:
            return []
        return [entry for entry in snapshot.entries if entry.id in table.marked]

    def action_mark(self) -> None:
        table = self.entry_table
        entry_id = table.selected_id()
        if entry_id is None:
            return
        table.marked ^= {entry_id}
        table.refresh_rows([entry_id])
        if table.cursor_row < table.row_count - 1:
            table.action_cursor(1)  # on to the next row, so space marks a run
        self._show_selected()
        self.refresh_bindings()

    def _clear_marks(self) -> None:
        table = self.entry_table
        marked = list(table.marked)
        table.marked.clear()
        table.refresh_rows(marked)
        self._show_selected()
        self.refresh_bindings()

    def _bulk_preview(self, entries: list[Entry], what: str) -> Group:
        lines: list[Text] = []
        for entry in entries[:40]:
            line = Text.assemble(kind_badge(entry.kind, english=False), (f"  {entry.id}  ", P.muted))
            line.append_text(clip(entry.text, 60))
            lines.append(line)
        if len(entries) > 40:
            lines.append(Text(f"… and {len(entries) - 40} more", style=P.muted))
        return Group(*lines, Text(""), Text(what, style=P.muted))

    def action_back(self) -> None:
        if self.entry_table.marked:
            self._clear_marks()  # escape clears the marks first, then the filter
            return
        field = self.filter_input
        if field.value:
            field.value = ""
            self.filter_text = ""
            self.fill()
        self.entry_table.focus()

    def action_view(self, name: str) -> None:
        self.view_tabs.active = f"view-{name}"

    def action_add(self) -> None:
        self.app.edit_entry(Draft(None))

    def action_edit(self) -> None:
        entry = self.selected_entry()
        if entry is not None:
            self.app.edit_entry(Draft(entry))

    def action_reclassify(self) -> None:
        marked = self.marked()
        if marked:
            def chosen_for_all(kind: Kind | None) -> None:
                if kind is not None:
                    self.app.submit(BatchReclassify(tuple(marked), kind))
                    self._clear_marks()

            self.app.push_screen(ReclassifyModal(marked[0], others=len(marked) - 1), chosen_for_all)
            return
        entry = self.selected_entry()
        if entry is None:
            return

        def chosen(kind: Kind | None) -> None:
            if kind is not None and kind is not entry.kind:
                self.app.submit(Reclassify(entry.id, entry, kind))

        self.app.push_screen(ReclassifyModal(entry), chosen)

    def action_delete(self) -> None:
        marked = self.marked()
        if marked:
            body = self._bulk_preview(marked, "One backup is taken before they go: restoring it (b) brings all of "
                                              "them back. Each gets its own event in the audit log.")

            def answered_all(yes: bool | None) -> None:
                if yes:
                    self.app.submit(BatchDelete(tuple(marked)))
                    self._clear_marks()

            self.app.push_screen(ConfirmModal(f"Delete {len(marked)} memories?", body, yes="Delete all", danger=True),
                                 answered_all)
            return
        entry = self.selected_entry()
        if entry is None:
            return
        body = Group(
            Text.assemble(kind_badge(entry.kind), ("  " + entry.id, P.muted)),
            Text(""),
            Text(entry.text),
            Text(""),
            Text("The file is backed up first, so this can be undone from the backups screen (b).", style=P.muted),
        )

        def answered(yes: bool | None) -> None:
            if yes:
                self.app.submit(Delete(entry.id, entry))

        self.app.push_screen(ConfirmModal("Delete this memory?", body, yes="Delete", danger=True), answered)

    def action_approve(self) -> None:
        blocked = [entry for entry in self.marked() if entry.blocked]
        if blocked:
            body = self._bulk_preview(blocked, "Approving lets agents receive these texts in their prompt; each "
                                               "approval holds for its exact text only.")

            def answered_all(yes: bool | None) -> None:
                if yes:
                    self.app.submit(BatchApprove(tuple(blocked)))
                    self._clear_marks()

            self.app.push_screen(ConfirmModal(f"Approve {len(blocked)} blocked memories?", body, yes="Approve all",
                                              danger=True), answered_all)
            return
        entry = self.selected_entry()
        if entry is None:
            return
        if not entry.blocked:
            self.notify(
                "Not blocked, so nothing to approve. The threat scan is a filter, not a guarantee: "
                "read the text before you rely on it.",
                title="Approve",
            )
            return
        reasons = [Text.assemble(("• " + flag, f"bold {P.warning}"), " — " + why) for flag, why in flag_reasons(entry)]
        body = Group(
            Text.assemble(kind_badge(entry.kind), ("  " + entry.id, P.muted)),
            Text(""),
            Text(entry.text),
            Text(""),
            *reasons,
            Text(""),
            Text(
                "Approving lets agents receive this text in their prompt. The approval holds for this exact text only.",
                style=P.warning,
            ),
        )

        def answered(yes: bool | None) -> None:
            if yes:
                self.app.submit(Approve(entry.id, entry))

        self.app.push_screen(ConfirmModal("Approve a blocked memory?", body, yes="Approve", danger=True), answered)

    def action_history(self) -> None:
        entry = self.selected_entry()
        if entry is not None:
            self.app.show_audit_for(entry.id)

