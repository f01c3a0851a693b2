"""The main screen: every entry, a view per kind, a text filter, and the selected entry in full.

The screen holds the selection and the keys; `ViewTabs` (the views and their counts), `EntryFilter`
(which entries in which order), `EntryDetail` (the selected or marked entries) and `EmptyState` show
what it holds, and `entry_actions` asks before a write on one entry or on every marked one.
"""

from __future__ import annotations

from rich.text import Text
from textual import events, getters, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Input, Tabs

from memtui_core.kinds import Kind
from memtui_core.model import Entry

from ..debounce import Debounce
from ..messages import StoreHistory, StoreSnapshot
from ..widgets.empty_state import EmptyState
from ..widgets.entry_detail import EntryDetail
from ..widgets.entry_table import EntryTable
from ..widgets.key_footer import KeyFooter
from ..widgets.status_bar import StatusBar
from ..widgets.view_tabs import ViewTabs
from ..writes import Draft
from . import entry_actions
from .base import ModeScreen
from .entry_filter import EntryFilter

FILTER_DELAY = 0.15


class BrowseScreen(ModeScreen):
    """Browse and curate. Writes go through the app, which runs them in a worker and reloads."""
    entry_table = getters.query_one(EntryTable)
    filter_input = getters.query_one("#filter", Input)
    detail = getters.query_one(EntryDetail)
    view_tabs = getters.query_one(ViewTabs)
    empty_state = getters.query_one(EmptyState)
    main = getters.query_one("#browse-main", Horizontal)

    BINDINGS = [
        Binding("slash", "filter", "Filter", id="browse.filter", tooltip="Filter entries by text, id or source"),
        Binding("n", "add", "Add", id="browse.add", tooltip="Write a new memory"),
        Binding("e", "edit", "Edit", id="browse.edit", tooltip="Edit the selected entry's text, kind and keywords"),
        Binding("k", "reclassify", "Kind", id="browse.reclassify", tooltip="Move the selected entry to another kind"),
        Binding("d", "delete", "Delete", id="browse.delete", tooltip="Delete the selected entry (asks first)"),
        Binding("A", "approve", "Approve", id="browse.approve", tooltip="Let a blocked entry be injected (asks first)"),
        Binding("h", "history", "History", id="browse.history", tooltip="The audit log of the selected entry"),
        Binding("p", "pin", "Pin", id="browse.pin",
                tooltip="Pin the selected entry into every block (the pinned core), or take it out of the core"),
        Binding("c", "core", "Core", id="browse.core", show=False,
                tooltip="The pinned core: what is in every block, in order; reorder it, and see what does not fit"),
        Binding("u", "usage_order", "Usage", id="browse.usage",
                tooltip="Cycle: store order, least injected first, only entries never injected in 30 days"),
        Binding("space", "mark", "Mark", id="browse.mark", show=False,
                tooltip="Mark the selected entry for a bulk delete (d), reclassify (k) or approve (A)"),
        Binding("s", "sort", "Sort", id="browse.sort", show=False,
                tooltip="Sort the entries: as stored, newest, oldest, by kind, longest"),
        Binding("g", "scope", "Scope", id="browse.scope", show=False,
                tooltip="With a project store: show both stores, only the project's, or only the global one"),
        Binding("M", "move", "Move", id="browse.move", show=False,
                tooltip="Move the selected entry to the other store (project or global)"),
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
        self.listing = EntryFilter()  # which entries the table lists, and in what order
        self._by_id: dict[str, Entry] = {}
        self._filter = Debounce(self, FILTER_DELAY, self._apply_filter)

    def compose(self) -> ComposeResult:
        yield StatusBar("Browse")
        yield ViewTabs(id="views")
        yield Input(placeholder="/ filter by text, id or source", id="filter", compact=True)
        with Horizontal(id="browse-main"):
            yield EntryTable(id="entries")
            yield EntryDetail(id="detail")
        yield EmptyState(id="empty-state")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.empty_state.display = False
        self.entry_table.focus()
        self.watch(self.app, "snapshot", self._snapshot_changed, init=True)
        self.watch(self.app, "history", self._history_changed, init=False)

    def arrive(self, entry_id: str | None = None) -> None:
        self.entry_table.focus()

    # ------------------------------------------------------------------ data

    @property
    def view(self) -> Kind | None:
        """The kind shown (None: every kind)."""
        return self.listing.view

    @property
    def filter_text(self) -> str:
        return self.listing.text

    def visible_entries(self) -> list[Entry]:
        return self.listing.visible(self.app.snapshot)

    def selected_entry(self) -> Entry | None:
        entry_id = self.entry_table.selected_id()
        return self._by_id.get(entry_id) if entry_id else None

    def _snapshot_changed(self, snapshot: StoreSnapshot | None) -> None:
        if snapshot is None:
            self.detail.show_message(Text("Reading the store…", style="dim italic"))
            return
        self._by_id = {entry.id: entry for entry in snapshot.entries}
        empty = not snapshot.entries
        main = self.main
        appeared = not empty and not main.display
        self.empty_state.display = empty
        main.display = not empty
        if empty:
            self.empty_state.show(self.app.command)
        self.fill()
        if appeared and not isinstance(self.focused, Input):
            self.entry_table.focus()  # the first entries: arrows move through them, not the detail

    def reveal(self, entry_id: str) -> None:
        """Select `entry_id` (the entry a write just touched), first clearing a filter or view that hides it."""
        if entry_id not in self._by_id:
            return
        if entry_id not in {e.id for e in self.visible_entries()}:
            self.listing.text = ""
            self.listing.scope = None
            self.filter_input.value = ""
            self.listing.view = None  # now, not when the tab's event arrives: the fill below must show it
            self.action_view("all")
        self.fill(keep=entry_id)

    def _history_changed(self, history: StoreHistory | None) -> None:
        self._show_selected()

    def fill(self, keep: str | None = None) -> None:
        entries = self.visible_entries()
        snapshot = self.app.snapshot
        self.entry_table.show(entries, keep=keep, core_places=snapshot.core_places() if snapshot else None,
                              scopes=snapshot.scopes if snapshot else None)
        if snapshot is not None:  # the tab counts follow the filter: `All 2/42` while two of 42 entries match
            self.view_tabs.count(self.listing.matching(snapshot), snapshot)
        if entries:
            self.app.rows_shown()
        self._show_selected()
        self.refresh_bindings()

    def _show_selected(self) -> None:
        marked = self.marked()
        snapshot = self.app.snapshot
        if marked:
            self.detail.show_message(entry_actions.marked_list(
                marked, f"{len(marked)} marked: d deletes, k reclassifies, A approves the blocked ones; "
                        "space unmarks, escape clears the marks."))
        elif (entry := self.selected_entry()) is None and snapshot is not None and snapshot.entries:
            self.detail.show_message(Text(self.listing.nothing_shown(), style="dim italic"))
        else:
            self.detail.show_entry(entry, snapshot, self.app.history)

    # ------------------------------------------------------------------ events

    @on(EntryTable.Highlighted, "#entries")
    def _row_highlighted(self) -> None:
        self._show_selected()
        self.refresh_bindings()

    @on(Tabs.TabActivated, "#views")
    def _tab_activated(self, event: Tabs.TabActivated) -> None:
        kind = ViewTabs.kind_of(event.tab)
        if kind is not self.view:
            self.listing.view = kind
            self.fill()

    @on(Input.Changed, "#filter")
    def _filter_changed(self) -> None:
        self._filter.poke()

    def _apply_filter(self) -> None:
        value = self.filter_input.value
        if value != self.filter_text:
            self.listing.text = value
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
        if action in ("edit", "reclassify", "delete", "history", "pin"):
            return True if self.selected_entry() is not None else None
        if action == "approve":  # shown only on a blocked entry, which is rare: it keeps the footer short
            entry = self.selected_entry()
            return True if entry is not None and entry.blocked else False
        return True

    def action_usage_order(self) -> None:
        snapshot = self.app.snapshot
        self.notify(self.listing.next_usage_order(snapshot.usage_days if snapshot else 30), title="Usage")
        self.fill(keep=self.entry_table.selected_id())

    def action_sort(self) -> None:
        label = self.listing.next_sort()
        self.fill(keep=self.entry_table.selected_id())
        self.filter_input.placeholder = f"/ filter by text, id or source · s: sorted {label}"
        self.notify(f"Sorted {label}", timeout=2)

    def action_filter(self) -> None:
        self.set_focus(self.filter_input)  # at once: keys typed in the same burst as `/` are on their way

    def marked(self) -> list[Entry]:
        """The marked entries still in the store, in store order."""
        snapshot = self.app.snapshot
        return self.entry_table.marked_of(snapshot.entries) if snapshot is not None else []

    def action_mark(self) -> None:
        if self.entry_table.toggle_mark():
            self._show_selected()
            self.refresh_bindings()

    def _clear_marks(self) -> None:
        self.entry_table.clear_marks()
        self._show_selected()
        self.refresh_bindings()

    def action_back(self) -> None:
        if self.entry_table.marked:
            self._clear_marks()  # escape clears the marks first, then the filter
            return
        field = self.filter_input
        if field.value:
            field.value = ""
            self.listing.text = ""
            self.fill()
        self.entry_table.focus()

    def action_view(self, name: str) -> None:
        self.view_tabs.select_view(name)

    def action_add(self) -> None:
        if self.can_write("Adding a memory"):
            self.app.edit_entry(Draft(None))

    def action_edit(self) -> None:
        entry = self.selected_entry()
        if entry is not None and self.can_write("Editing"):
            self.app.edit_entry(Draft(entry))

    def action_reclassify(self) -> None:
        if not self.can_write("Changing a kind"):
            return
        marked = self.marked()
        if marked:
            entry_actions.reclassify_all(self, marked, self._clear_marks)
        elif (entry := self.selected_entry()) is not None:
            entry_actions.reclassify(self, entry)

    def action_delete(self) -> None:
        if not self.can_write("Deleting"):
            return
        marked = self.marked()
        if marked:
            entry_actions.delete_all(self, marked, self._clear_marks)
        elif (entry := self.selected_entry()) is not None:
            entry_actions.delete(self, entry)

    def action_approve(self) -> None:
        if not self.can_write("Approving"):
            return
        blocked = [entry for entry in self.marked() if entry.blocked]
        if blocked:
            entry_actions.approve_all(self, blocked, self._clear_marks)
        elif (entry := self.selected_entry()) is not None:
            entry_actions.approve(self, entry)

    def action_pin(self) -> None:
        entry = self.selected_entry()
        if entry is not None:
            entry_actions.toggle_pin(self, entry)

    def action_core(self) -> None:
        from ..modals.core import CoreModal

        self.app.push_screen(CoreModal(), self._core_closed)

    def _core_closed(self, entry_id: str | None) -> None:
        if entry_id is not None:  # the entry the person was on in the core: show it here
            self.reveal(entry_id)

    def action_scope(self) -> None:
        entry_actions.next_scope(self)

    def action_move(self) -> None:
        if (entry := self.selected_entry()) is not None:
            entry_actions.move(self, entry)

    def action_history(self) -> None:
        entry = self.selected_entry()
        if entry is not None:
            self.app.show_audit_for(entry.id)
