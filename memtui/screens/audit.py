"""The audit log, newest first, filterable by entry id and by operation, with before/after text."""

from __future__ import annotations

import time
from datetime import datetime

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import getters, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Input, Select, Static

from memtui_core.model import AuditEvent, AuditOp

from ..debounce import Debounce
from ..messages import StoreHistory
from ..modals.confirm import ConfirmModal
from ..widgets.entry_detail import change_summary
from ..widgets.fmt import OP_COLOURS, kind_name, one_line, plural, timestamp
from ..widgets.virtual_table import Column, VirtualTable
from ..widgets.key_footer import KeyFooter
from ..widgets.status_bar import StatusBar
from ..scopes import cycle_log_scope, events_shown
from ..writes import Undo
from .base import ModeScreen
from ..widgets.palette import P

MAX_ROWS = 20_000
AUDIT_COLUMNS = [
    Column("time", "time", 14),
    Column("actor", "actor", 5),
    Column("op", "op", 10),
    Column("entry", "entry", 12),
    Column("change", "change", None),
]
FILTER_DELAY = 0.15
ACTORS = ["mcp", "tui", "cli", "api"]
PERIODS: list[tuple[str, float]] = [
    ("last hour", 3600.0),
    ("last day", 86_400.0),
    ("last 7 days", 7 * 86_400.0),
    ("last 30 days", 30 * 86_400.0),
]


class AuditScreen(ModeScreen):
    """Who changed what, and when. `/` searches ids and texts; `o`, `c` and `t` filter by operation,
    actor and time."""
    audit_table = getters.query_one("#audit-table", VirtualTable)
    id_filter = getters.query_one("#audit-id", Input)


    BINDINGS = [
        Binding("escape", "back", "Back", id="audit.back", tooltip="Back to the entries"),
        Binding("slash", "focus_id", "Search", id="audit.filter_id",
                tooltip="Search by entry id prefix, or by any text before or after a change, or in its note"),
        Binding("o", "focus_op", "Operation", id="audit.filter_op", tooltip="Filter by operation"),
        Binding("c", "focus_actor", "Actor", id="audit.filter_actor", tooltip="Filter by who made the change"),
        Binding("t", "focus_time", "Time", id="audit.filter_time", tooltip="Only changes within the last hour, day, week or month"),
        Binding("x", "clear_filters", "Clear", id="audit.clear", tooltip="Clear every filter: show every event"),
        Binding("u", "undo", "Undo", id="audit.undo",
                tooltip="Take back the selected change to one entry (asks first; recorded as a change of its own)"),
        Binding("g", "scope", "Scope", id="audit.scope",
                tooltip="The other store's audit log: the project's or the global one (inside a project)"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.events: list[AuditEvent] = []
        self.shown: list[AuditEvent] = []
        self._filter = Debounce(self, FILTER_DELAY, self.fill)
        self._history_filter: str | None = None  # the entry id `h` filled in, if it is still there

    def compose(self) -> ComposeResult:
        yield StatusBar("Audit", logs=True)
        with Horizontal(id="audit-filters"):
            yield Input(placeholder="/ id or text", id="audit-id", compact=True)
            yield Select(
                [(op.value, op.value) for op in AuditOp],
                prompt="all operations",
                id="audit-op",
                compact=True,
            )
            yield Select([(actor, actor) for actor in ACTORS], prompt="any actor", id="audit-actor", compact=True)
            yield Select([(label, seconds) for label, seconds in PERIODS], prompt="any time", id="audit-time",
                         compact=True)
            yield Static(id="audit-count")
        with Horizontal(id="audit-main"):
            yield VirtualTable(AUDIT_COLUMNS, empty="No events match the filters.", id="audit-table")
            with VerticalScroll(id="audit-detail"):
                yield Static(id="audit-detail-body")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.audit_table.focus()
        self.watch(self.app, "history", self._history_changed, init=True)

    def arrive(self, entry_id: str | None = None) -> None:
        self.audit_table.focus()  # keys are keys again, not letters in a box
        self.apply_entry_filter(entry_id or "")

    def apply_entry_filter(self, wanted: str) -> None:
        """Filter on the entry id that `h` asked for; on a plain visit (""), drop the one it set last time."""
        field = self.id_filter
        if not wanted:
            if self._history_filter is None or field.value != self._history_filter:
                return  # the person typed this filter: keep it
            self._history_filter = None
        else:
            self._history_filter = wanted
        field.value = wanted
        self.fill()

    def _history_changed(self, history: StoreHistory | None) -> None:
        if history is None:
            self.query_one("#audit-detail-body", Static).update(Text("Reading the audit log…", style="dim italic"))
            return
        self.events = list(reversed(events_shown(self.app)))
        self.fill()

    # ------------------------------------------------------------------ filtering

    def matching(self) -> list[AuditEvent]:
        wanted = self.id_filter.value.strip().lower()
        op = self.query_one("#audit-op", Select).value
        actor = self.query_one("#audit-actor", Select).value
        period = self.query_one("#audit-time", Select).value
        since = time.time() - float(period) if isinstance(period, (int, float)) else None
        out = []
        for event in self.events:
            if op is not Select.NULL and str(event.op) != op:
                continue
            if actor is not Select.NULL and event.actor != actor:
                continue
            if since is not None and event.at < since:
                continue
            if wanted and not (_touches(event, wanted) or _says(event, wanted)):
                continue
            out.append(event)
        return out

    def fill(self) -> None:
        table = self.audit_table
        matching = self.matching()
        self.shown = matching[:MAX_ROWS]
        keys = _event_keys(self.shown)  # stable across reloads, so the selection stays on its event
        table.set_rows(keys, self._cells, keep=table.selected_key())
        count = Text(f"{len(matching)} of {plural(len(self.events), 'event')}", style=P.muted)
        if len(matching) > MAX_ROWS:
            count.append(f" (newest {MAX_ROWS} shown)", style=P.muted)
        self.query_one("#audit-count", Static).update(count)
        self._show_selected()

    def _cells(self, index: int) -> list[Text]:
        event = self.shown[index]
        op = str(event.op)
        return [
            Text(datetime.fromtimestamp(event.at).strftime("%m-%d %H:%M:%S"), style=P.muted),
            Text(event.actor),
            Text(op, style=f"bold {OP_COLOURS.get(op, '')}"),
            Text(event.id or "—", style="" if event.id else P.muted),
            Text(change_summary(event).plain),
        ]

    @on(Input.Changed, "#audit-id")
    def _id_changed(self) -> None:
        self._filter.poke()

    @on(Input.Submitted, "#audit-id")
    def _id_submitted(self) -> None:
        self._filter.now()
        self.audit_table.focus()

    @on(Select.Changed)
    def _select_changed(self) -> None:
        self.fill()

    @on(VirtualTable.Highlighted, "#audit-table")
    def _highlighted(self) -> None:
        self._show_selected()
        self.refresh_bindings()  # Undo only on a change that can be taken back

    def _show_selected(self) -> None:
        body = self.query_one("#audit-detail-body", Static)
        table = self.audit_table
        if not self.shown or not table.row_count:
            body.update(Text("No events match the filters." if self.events else "The audit log is empty.",
                             style="dim italic"))
            return
        index = min(table.cursor_row, len(self.shown) - 1)
        body.update(render_event(self.shown[index]))

    # ------------------------------------------------------------------ actions

    def action_back(self) -> None:
        field = self.id_filter
        if self.focused is field:  # escape in the search clears it (as in Browse), and the keys are keys again
            if field.value:
                field.value = ""
                self.fill()
            self.audit_table.focus()
            return
        self.app.action_show("browse")

    def action_focus_id(self) -> None:
        self.id_filter.focus()

    def action_focus_op(self) -> None:
        self.query_one("#audit-op", Select).focus()

    def selected_event(self) -> AuditEvent | None:
        table = self.audit_table
        if not self.shown or not table.row_count:
            return None
        return self.shown[min(table.cursor_row, len(self.shown) - 1)]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "undo":
            event = self.selected_event()
            return True if event is not None and undoable(event) else None
        if action == "scope":
            return self.app.scoped is not None
        return True

    def action_scope(self) -> None:
        cycle_log_scope(self.app)

    def action_undo(self) -> None:
        event = self.selected_event()
        if event is None or not undoable(event) or not self.can_write("Undoing a change"):
            return
        op = str(event.op)
        what = {"add": "Delete the entry this add created?",
                "delete": "Bring back the deleted entry?",
                "evict": "Bring back the evicted entry?"}.get(op, f"Take back this {op}?")
        body = Group(
            render_event(event),
            Text(""),
            Text("The entry goes back to the Before above, as a new change in this log, by tui. "
                 "If it changed after this event, nothing is written.", style=P.muted),
        )

        def answered(yes: bool | None) -> None:
            if yes:
                self.app.submit(Undo(event, self.app.log_scope if self.app.scoped is not None else None))

        self.app.push_screen(ConfirmModal(what, body, yes="Undo", danger=op in ("add", "approve")), answered)

    def action_focus_actor(self) -> None:
        self.query_one("#audit-actor", Select).focus()

    def action_focus_time(self) -> None:
        self.query_one("#audit-time", Select).focus()

    def action_clear_filters(self) -> None:
        self.id_filter.value = ""
        for select in self.query(Select):
            select.clear()
        self.fill()


def _event_keys(events: list[AuditEvent]) -> list[str]:
    seen: dict[str, int] = {}
    keys = []
    for event in events:
        key = f"{event.at!r}|{event.op}|{event.id}"
        seen[key] = seen.get(key, 0) + 1
        keys.append(f"{key}|{seen[key]}")
    return keys


def _touches(event: AuditEvent, wanted: str) -> bool:
    return any(entry_id.startswith(wanted) for entry_id in event.touched_ids())


def undoable(event: AuditEvent) -> bool:
    """A change to one entry with its state before (or an add): what `MemoryStore.undo` takes back."""
    if not event.id:
        return False
    return event.before is not None or (str(event.op) == "add" and event.after is not None)


def _says(event: AuditEvent, wanted: str) -> bool:
    """Whether `wanted` (lowercase) is in the text before or after the change, or in its note."""
    for data in (event.before, event.after):
        if isinstance(data, dict) and wanted in str(data.get("text", "")).lower():
            return True
    return event.note is not None and wanted in event.note.lower()


def _entry_block(title: str, style: str, data: dict | None) -> list[RenderableType]:
    if not data:
        return []
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style=f"bold {P.muted}", no_wrap=True)
    grid.add_column()
    kind = data.get("kind")
    grid.add_row("kind", kind_name_of(kind))
    grid.add_row("source", str(data.get("source") or "—"))
    grid.add_row("time", timestamp(data.get("ts") or 0))
    if data.get("flags"):
        grid.add_row("flags", ", ".join(str(f) for f in data["flags"]))
    return [Text(""), Text(title, style=f"bold {style}"), Text(str(data.get("text", "")), style=style), grid]


def kind_name_of(kind: object) -> str:
    from memtui_core.kinds import Kind

    parsed = Kind.parse(kind)
    return kind_name(parsed) if parsed else str(kind)


def render_event(event: AuditEvent) -> RenderableType:
    op = str(event.op)
    head = Text(no_wrap=False)
    head.append(f" {op} ", style=f"bold reverse {OP_COLOURS.get(op, P.muted)}")
    head.append(f"  {timestamp(event.at)}  by {event.actor}", style="bold")
    if event.id:
        head.append(f"  entry {event.id}", style=P.muted)
    parts: list[RenderableType] = [head]
    if event.note:
        parts.append(Text(one_line(event.note), style=f"italic {P.muted}"))
    for ids, word, style in ((event.added, "added", P.success), (event.removed, "removed", P.error),
                             (event.changed, "changed", P.warning)):
        if ids:
            parts.append(Text(f"{word}: " + ", ".join(str(i) for i in ids), style=style))
    parts += _entry_block("Before", P.error if event.after else "", event.before)
    parts += _entry_block("After", P.success, event.after)
    return Group(*parts)
