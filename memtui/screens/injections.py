"""Past injections from the injection log: what each put into the prompt, and its query replayed today.

`n` switches to the curation view: the entries never injected within the log's window.
"""

from __future__ import annotations

from datetime import datetime

from rich.console import Group, RenderableType
from rich.text import Text
from textual import getters
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Static

from ..widgets.fmt import one_line, plural
from ..widgets.key_footer import KeyFooter
from ..widgets.palette import P
from ..scopes import cycle_log_scope, log_store
from ..widgets.status_bar import StatusBar
from ..widgets.wrap import Wrapped
from ..widgets.virtual_table import Column, VirtualTable
from .base import ModeScreen

INJECTION_COLUMNS = [
    Column("n", "#", 5, justify="right", min_width=3),
    Column("time", "time", 14),
    Column("actor", "actor", 6, min_width=5),
    Column("hits", "hits", 4, justify="right", min_width=4),
    Column("query", "query", None),
]
UNUSED_COLUMNS = [
    Column("id", "entry", 12),
    Column("kind", "kind", 10),
    Column("text", "never injected in the window", None),
]


def _status_style(status: str) -> str:
    """The colour of an injected entry's state today: unchanged, changed or deleted."""
    return {"unchanged": P.success, "changed": P.warning, "deleted": P.error}.get(status, "")


class InjectionsScreen(ModeScreen):
    """Newest injection first. The right pane shows the highlighted one as it was; `r` replays it."""
    injection_table = getters.query_one("#injections-table", VirtualTable)


    BINDINGS = [
        Binding("escape", "back", "Back", id="injections.back", tooltip="Back to the entries"),
        Binding("r", "replay", "Replay", id="injections.replay",
                tooltip="Run the highlighted injection's query against today's store and show the difference"),
        Binding("n", "toggle_unused", "Never injected", id="injections.unused",
                tooltip="Entries never injected within the log's window: curation candidates"),
        Binding("g", "scope", "Scope", id="injections.scope",
                tooltip="The other store's injection log: the project's or the global one (inside a project)"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[dict] = []
        self.unused: list = []
        self.showing_unused = False
        self.replayed: dict[int, object] = {}  # injection number -> its replay
        self._key: tuple | None = None
        self._explained: dict[tuple, list[dict]] = {}

    def compose(self) -> ComposeResult:
        yield StatusBar("Injections", logs=True)
        yield Static(id="injections-count")
        with Horizontal(id="injections-main"):
            yield VirtualTable(INJECTION_COLUMNS, empty="No injections logged yet.", id="injections-table")
            with VerticalScroll(id="injections-detail"):
                yield Static(id="injections-detail-body")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.injection_table.focus()
        self.reload()
        self.watch(self.app, "log_scope", self.reload, init=False)
        self.set_interval(2.0, self.reload)

    def on_screen_resume(self) -> None:
        self.reload()

    def arrive(self, entry_id: str | None = None) -> None:
        self.injection_table.focus()

    # ------------------------------------------------------------------ data

    def reload(self, _changed: object = None) -> None:
        store = log_store(self.app)
        log = store.injection_log
        lines, skipped = log.read()
        key = (len(lines), lines[-1]["at"] if lines else None, store.state(), len(skipped), self.app.log_scope)
        if key == self._key:
            return
        self._key = key
        self.lines = list(reversed(lines))
        from memtui_core.store.injections import usage

        used = usage(lines)
        self.unused = [entry for entry in store.entries() if entry.id not in used]
        count = f"{plural(len(lines), 'injection')} in the last {store.limits.injection_days} days"
        if not log.enabled:
            count = "The injection log is off. " + count
        if skipped:
            count += f" · {plural(len(skipped), 'corrupt line')} skipped"
        if store.entries():
            share = 1 - len(self.unused) / len(store.entries())
            count += f" · {share:.0%} of entries injected at least once"
        self.query_one("#injections-count", Static).update(count)
        self.fill()

    def fill(self) -> None:
        table = self.injection_table
        if self.showing_unused:
            table.set_columns(UNUSED_COLUMNS)
            table.set_rows([entry.id for entry in self.unused], self._unused_cells, keep=table.selected_key())
        else:
            table.set_columns(INJECTION_COLUMNS)
            table.set_rows([str(line["n"]) for line in self.lines], self._cells, keep=table.selected_key())
        self._show_selected()

    def _cells(self, index: int) -> list[Text]:
        line = self.lines[index]
        query = line.get("q")
        shown = Text(one_line(query)) if query is not None else Text(f"(hash {line['qh']})", style=f"{P.muted}")
        return [
            Text(str(line["n"]), style="bold"),
            Text(datetime.fromtimestamp(line["at"]).strftime("%m-%d %H:%M:%S"), style=f"{P.muted}"),
            Text(one_line(line["actor"])),
            Text(str(len(line["hits"]))),
            shown,
        ]

    def _unused_cells(self, index: int) -> list[Text]:
        entry = self.unused[index]
        return [Text(entry.id, style=f"{P.muted}"), Text(entry.kind.value), Text(one_line(entry.text))]

    def selected_line(self) -> dict | None:
        table = self.injection_table
        if self.showing_unused or not self.lines or not table.row_count:
            return None
        return self.lines[min(table.cursor_row, len(self.lines) - 1)]

    def on_virtual_table_highlighted(self, _message: VirtualTable.Highlighted) -> None:
        self._show_selected()

    def _show_selected(self) -> None:
        body = self.query_one("#injections-detail-body", Static)
        if self.showing_unused:
            body.update(Text(f"{len(self.unused)} entries were never injected in the window. Each is a "
                             "curation candidate: reword it the way the user asks, or delete it.", style="italic"))
            return
        line = self.selected_line()
        if line is None:
            body.update(Text("No injections logged yet. Each memtui inject, memory_inject or "
                             "retrieve_block call adds one.", style="dim italic"))
            return
        body.update(self._render_line(line))

    def _render_line(self, line: dict) -> RenderableType:
        from memtui_core.store.injections import explain_line

        store = log_store(self.app)
        head = Text()
        head.append(f" injection {line['n']} ", style="bold reverse")
        head.append(f"  {datetime.fromtimestamp(line['at']).strftime('%Y-%m-%d %H:%M:%S')}  by {line['actor']}",
                    style="bold")
        parts: list[RenderableType] = [head]
        query = line.get("q")
        parts.append(Text(f"query: {one_line(query)}" if query is not None else "query kept only as a hash",
                          style="italic"))
        parts.append(Text(""))
        parts.append(Text("Injected then", style="bold"))
        key = (line["n"], line["at"], store.state(), self.app.log_scope)
        rows = self._explained.get(key)
        if rows is None:  # looking a changed text up in the backups reads them: once per line and store state
            rows = self._explained[key] = explain_line(store, line)
        if not rows:
            parts.append(Text("  nothing matched", style="dim"))
        for row in rows:
            # words only between the parts: a wrapped line never starts with a comma
            entry = Text(f"  #{row['rank']} {row['id']} ", style="bold")
            entry.append(row["status"], style=_status_style(row["status"]))
            entry.append(f"  score {row['score']} for {row['chars']} characters", style=f"{P.muted}")
            parts.append(entry)
            text = row.get("text")
            # wrapped without a line that starts with a comma (a CJK text wrapped by Rich could)
            parts.append(Wrapped("    " + (one_line(text) if text is not None else "(text no longer kept anywhere)"),
                                 indent=4))
            if row.get("today"):
                parts.append(Wrapped("    today: " + one_line(row["today"]), style=f"{P.warning}", indent=4))
        result = self.replayed.get(line["n"])
        if result is not None:
            parts += [Text(""), *replay_lines(result)]
        else:
            parts += [Text(""), Text("r replays this query against today's store", style="dim")]
        return Group(*parts)

    # ------------------------------------------------------------------ actions

    def action_replay(self) -> None:
        from memtui_core.errors import MemtuiError
        from memtui_core.store.injections import replay

        line = self.selected_line()
        if line is None:
            self.notify("Highlight an injection to replay it", severity="warning")
            return
        try:
            self.replayed[line["n"]] = replay(log_store(self.app), line)
        except MemtuiError as exc:
            self.notify(str(exc), title="Cannot replay", severity="warning")
            return
        self._show_selected()

    def action_toggle_unused(self) -> None:
        self.showing_unused = not self.showing_unused
        self.fill()

    def action_back(self) -> None:
        self.app.action_show("browse")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.app.scoped is not None if action == "scope" else True

    def action_scope(self) -> None:
        cycle_log_scope(self.app)


def replay_lines(result) -> list[RenderableType]:
    out: list[RenderableType] = [Text("Replayed today", style="bold")]
    if result.same:
        out.append(Text("  the same entries, in the same order", style=f"{P.success}"))
    for label, ids, style in (("no longer injected", result.dropped, f"{P.error}"),
                              ("newly injected", result.added, f"{P.success}"),
                              ("still injected", result.kept, "")):
        if ids and not result.same:
            out.append(Text(f"  {label}: " + " ".join(ids), style=style))
    for row in result.now:
        out.append(Wrapped(f"  #{row['rank']} {row['id']} [{row['kind']}] " + one_line(row["text"]), indent=4))
    if not result.now:
        out.append(Text("  nothing would be injected today", style="dim"))
    if result.note:
        out.append(Text(f"  {result.note}", style=f"italic {P.muted}"))
    return out
