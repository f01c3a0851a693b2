"""Backups: what each holds, what restoring it would change (entry by entry), and the restore itself."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text
from textual import getters, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import DataTable, Static

import bisect

from memtui_core.model import AuditEvent, Backup, Entry

from ..messages import BackupsLoaded, RestorePreviewFailed, RestorePreviewReady
from ..modals.confirm import ConfirmModal
from ..widgets.fmt import OP_COLOURS, age, ago, kind_badge, one_line, size, timestamp
from ..widgets.key_footer import KeyFooter
from ..widgets.status_bar import StatusBar
from ..scopes import cycle_log_scope, events_shown, log_store
from ..writes import Restore
from .base import ModeScreen
from ..widgets.palette import P


class BackupsScreen(ModeScreen):
    """Every write backs the file up first; pick one to see the difference, `r` to restore it."""
    backup_list = getters.query_one("#backup-list", DataTable)
    preview_body = getters.query_one("#preview-body", Static)


    BINDINGS = [
        Binding("escape", "back", "Back", id="backups.back", tooltip="Back to the entries"),
        Binding("r", "restore", "Restore", id="backups.restore", tooltip="Restore the selected backup (asks first)"),
        Binding("g", "scope", "Scope", id="backups.scope",
                tooltip="The other store's backups: the project's or the global one (inside a project)"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.backups: dict[str, Backup] = {}
        self.preview: RestorePreviewReady | None = None
        self._generation = 0  # the newest listing request (see _load_backups)
        self._preview_generation = 0  # the newest restore preview request

    def compose(self) -> ComposeResult:
        yield StatusBar("Backups", logs=True)
        yield Static(
            Text(
                "Every change backs up memory.json first. Select a backup to see what restoring it would change; "
                "r restores it (the current file is backed up too, so a restore can be undone).",
                style=P.muted,
            ),
            id="backups-help",
        )
        # the same in one line of 80 columns, where the long one took three
        yield Static(Text("r restores the selected backup; the current file is backed up first.", style=P.muted),
                     id="backups-help-short")
        with Horizontal(id="backups-main"):
            yield DataTable(id="backup-list", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="restore-preview"):
                yield Static(id="preview-body")
        yield KeyFooter()

    def arrive(self, entry_id: str | None = None) -> None:
        self.backup_list.focus()

    def on_mount(self) -> None:
        table = self.backup_list
        table.add_column("taken", width=5, key="taken")  # the age; the preview gives the time
        table.add_column("entries", width=7, key="entries")
        table.add_column("size", width=8, key="size")
        table.add_column("before", width=23, key="before")
        table.focus()
        self.preview_body.update(Text("Reading backups…", style="dim italic"))
        self.watch(self.app, "snapshot", self._snapshot_changed, init=True)
        self.watch(self.app, "history", self._snapshot_changed, init=False)  # the "before" labels

    def _snapshot_changed(self, _snapshot: object) -> None:
        self._load_backups()

    def _load_backups(self) -> None:
        # a thread worker is not stopped by a newer one: only the newest listing is shown
        self._generation += 1
        self._list_backups(self._generation)

    @work(thread=True, exclusive=True, group="backups", exit_on_error=False)
    def _list_backups(self, generation: int) -> None:
        try:
            backups = log_store(self.app).backups()
        except Exception:
            backups = []
        self.post_message(BackupsLoaded(backups, generation))

    def on_backups_loaded(self, message: BackupsLoaded) -> None:
        if message.generation != self._generation:
            return  # an older listing, overtaken by a newer request
        table = self.backup_list
        selected = self._selected_name()
        self.backups = {b.name: b for b in message.backups}
        table.clear()
        for backup in message.backups:
            entries = str(backup.entries) if backup.entries is not None else "corrupt"
            table.add_row(
                Text(age(backup.at)),
                Text(entries, justify="right", style="" if backup.valid else f"bold {P.error}"),
                Text(size(backup.size), justify="right", style=P.muted),
                before_label(backup, self._events()),
                key=backup.name,
            )
        if not message.backups:
            self.preview_body.update(
                Text("No backups yet: the first change to the store makes one.", style="dim italic")
            )
            return
        if selected in self.backups:
            table.move_cursor(row=table.get_row_index(selected), animate=False)
        self._preview_selected()

    def _events(self) -> list[AuditEvent]:
        return events_shown(self.app)

    def _selected_name(self) -> str | None:
        table = self.backup_list
        if not table.row_count:
            return None
        try:
            return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        except Exception:
            return None

    @on(DataTable.RowHighlighted, "#backup-list")
    def _highlighted(self) -> None:
        self._preview_selected()

    @on(DataTable.RowSelected, "#backup-list")
    def _selected(self) -> None:
        self.action_restore()

    def _preview_selected(self) -> None:
        name = self._selected_name()
        if name is not None:
            self._preview_generation += 1
            self._load_preview(name, self._preview_generation)

    @work(thread=True, exclusive=True, group="restore-preview", exit_on_error=False)
    def _load_preview(self, name: str, generation: int) -> None:
        store = log_store(self.app)
        try:
            preview = store.preview_restore(name)
            then = {entry.id: entry for entry in store.backup_entries(name)}
            now = {entry.id: entry for entry in store.entries()}
        except Exception as exc:
            self.post_message(RestorePreviewFailed(name, one_line(str(exc)), generation))
            return
        self.post_message(RestorePreviewReady(name, preview, then, now, generation))

    def on_restore_preview_failed(self, message: RestorePreviewFailed) -> None:
        if message.generation != self._preview_generation:
            return  # an older preview, overtaken by a newer request
        self.preview = None
        self.preview_body.update(
            Text(f"{message.name} cannot be restored: {message.error}", style=f"bold {P.error}")
        )

    def on_restore_preview_ready(self, message: RestorePreviewReady) -> None:
        if message.generation != self._preview_generation or message.name != self._selected_name():
            return  # an older preview, or of a backup no longer selected
        self.preview = message
        self.preview_body.update(render_preview(message, self.backups.get(message.name)))

    def action_back(self) -> None:
        self.app.action_show("browse")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.app.scoped is not None if action == "scope" else True

    def action_scope(self) -> None:
        cycle_log_scope(self.app)

    def action_restore(self) -> None:
        name = self._selected_name()
        if name is None or not self.can_write("Restoring a backup"):
            return
        backup = self.backups.get(name)
        if backup is not None and not backup.valid:
            self.notify("That backup is not a valid memory file.", title="Cannot restore", severity="error")
            return
        preview = self.preview.preview if self.preview and self.preview.name == name else None
        body: list[RenderableType] = [Text(f"Restore {name}?", style="bold")]
        if backup is not None:
            body.append(Text(f"taken {timestamp(backup.at)} ({ago(backup.at)}), {backup.entries} entries"))
        if preview is not None:
            body.append(Text(change_counts(preview.added, preview.removed, preview.changed)))
        body.append(Text(""))
        body.append(Text("The current file is backed up first, so you can restore it again afterwards.", style=P.muted))

        def answered(yes: bool | None) -> None:
            if yes:
                self.app.submit(Restore(name, self.app.log_scope if self.app.scoped is not None else None))

        self.app.push_screen(ConfirmModal("Restore a backup?", Group(*body), yes="Restore", danger=True), answered)


def change_counts(added: list[str], removed: list[str], changed: list[str]) -> str:
    if not (added or removed or changed):
        return "No change: the store already holds exactly these entries."
    return f"Restoring it would bring back {len(added)}, remove {len(removed)} and change {len(changed)} entries."


def _entry_line(prefix: str, style: str, entry: Entry | None, entry_id: str) -> Text:
    line = Text(f"{prefix} ", style=f"bold {style}")
    if entry is None:
        line.append(entry_id, style=P.muted)
        return line
    line.append_text(kind_badge(entry.kind, english=False))
    line.append(f" {entry.id}  ", style=P.muted)
    line.append(one_line(entry.text), style=style)
    return line


def render_preview(message: RestorePreviewReady, backup: Backup | None) -> RenderableType:
    preview = message.preview
    then, now = message.backup_entries, message.current_entries
    parts: list[RenderableType] = []
    head = Text(message.name, style="bold")
    if backup is not None:
        head.append(f"\ntaken {timestamp(backup.at)} ({ago(backup.at)}) · {backup.entries} entries · "
                    f"{size(backup.size)}", style=P.muted)
    parts += [head, Text(""), Text(change_counts(preview.added, preview.removed, preview.changed), style="bold")]
    if preview.added:
        parts += [Text(""), Text(f"Comes back ({len(preview.added)}) — in the backup, not in the store now",
                                 style=f"bold {P.success}")]
        parts += [_entry_line("+", P.success, then.get(i), i) for i in preview.added]
    if preview.removed:
        parts += [Text(""), Text(f"Goes away ({len(preview.removed)}) — in the store now, not in the backup",
                                 style=f"bold {P.error}")]
        parts += [_entry_line("−", P.error, now.get(i), i) for i in preview.removed]
    if preview.changed:
        parts += [Text(""), Text(f"Changes ({len(preview.changed)}) — now → after restoring", style=f"bold {P.warning}")]
        for entry_id in preview.changed:
            old, new = now.get(entry_id), then.get(entry_id)
            line = Text(f"~ {entry_id}  ", style=f"bold {P.warning}")
            if old is not None and new is not None:
                if old.kind is not new.kind:
                    line.append_text(kind_badge(old.kind, english=False))
                    line.append(" → ")
                    line.append_text(kind_badge(new.kind, english=False))
                    line.append("  ")
                if old.text != new.text:
                    line.append("\n    ")
                    line.append(one_line(old.text), style=f"{P.error} strike")
                    line.append("\n    ")
                    line.append(one_line(new.text), style=P.success)
                elif old.kind is new.kind:
                    details = []
                    if old.ts != new.ts:
                        details.append(f"time {ago(old.ts)} → {ago(new.ts)}")
                    if old.source != new.source:
                        details.append(f"source {old.source or '—'} → {new.source or '—'}")
                    if old.flags != new.flags:
                        details.append(f"flags {', '.join(old.flags) or 'none'} → {', '.join(new.flags) or 'none'}")
                    if old.keywords != new.keywords:
                        details.append(f"keywords {', '.join(old.keywords) or 'none'} → "
                                       f"{', '.join(new.keywords) or 'none'}")
                    line.append("; ".join(details) or "details differ", style=P.muted)
                    line.append("\n    " + one_line(new.text), style="")
            parts.append(line)
    return Group(*parts)


def change_after(backup: Backup, events: list[AuditEvent]) -> AuditEvent | None:
    """The change a backup was taken for: the first event logged at or after it (events are in order).
    A write stamps its events after its backup, from the same clock; the backup's name keeps the
    time to the microsecond, hence the microsecond of slack. The write before may be less than a
    millisecond earlier (a fast disk), so the slack is no more than that."""
    times = [event.at for event in events]
    index = bisect.bisect_left(times, backup.at - 0.000001)
    return events[index] if index < len(events) else None


def before_label(backup: Backup, events: list[AuditEvent]) -> Text:
    """`delete 08cf… by mcp` in the "before" column: the change that came right after the backup."""
    event = change_after(backup, events)
    if event is None:
        return Text("—", style=P.muted)
    out = Text(no_wrap=True, overflow="ellipsis")
    out.append(str(event.op), style=f"bold {OP_COLOURS.get(str(event.op), '')}")
    if event.id:
        out.append(f" {event.id[:4]}…")
    out.append(f" by {event.actor}", style=P.muted)
    return out

