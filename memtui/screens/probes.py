"""Probes: every retrieval regression test a person keeps, passing or failing as memories change.

The probes are run again whenever the store changes (the app's own poll notices an agent's or the
CLI's write too) and whenever probes.json changes; `r` runs them now, `d` deletes the selected one.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Group
from rich.text import Text
from textual import getters, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Static

from memtui_core.agents.probes import ProbeResult, ProbeRun

from ..modals.confirm import ConfirmModal
from ..widgets.palette import P
from ..widgets.fmt import clip, one_line, status_words
from ..widgets.key_footer import KeyFooter
from ..widgets.status_bar import StatusBar
from ..widgets.virtual_table import Column, VirtualTable
from .base import ModeScreen

COLUMNS = [
    Column("result", "result", 6),
    Column("id", "probe", 8),
    Column("expect", "expects", 14),
    Column("query", "query", None),
]
EMPTY = ("No probes yet. In explain (w), type a query, select the entry it must inject and press s "
         "(S: it must inject nothing); or `memtui probe add QUERY --expect ID`.")
EMPTY_ROW = "No probes yet; the detail pane says how to add one."  # one table row: the whole hint does not fit


@dataclass
class ProbesRan(Message):
    run: ProbeRun | None
    error: str | None
    generation: int  # which request this run answers; an older one is dropped


class ProbesScreen(ModeScreen):
    """Each probe's result now, and why a failing one fails (explain's status and reason)."""
    probe_list = getters.query_one("#probe-list", VirtualTable)


    BINDINGS = [
        Binding("escape", "back", "Back", id="probes.back", tooltip="Back to the entries"),
        Binding("r", "run", "Run", id="probes.run", tooltip="Run every probe again now"),
        Binding("d", "delete", "Delete", id="probes.delete", tooltip="Delete the selected probe (asks first)"),
        Binding("enter", "explain", "Explain", id="probes.explain",
                tooltip="Open the selected probe's query in explain"),
    ]

    SCOPED_CSS = False  # the width breakpoint classes are set on the screen itself
    DEFAULT_CSS = """
    ProbesScreen #probes-summary { height: auto; padding: 0 1; }
    ProbesScreen #probes-main { height: 1fr; }
    ProbesScreen #probe-list { width: 3fr; height: 1fr; }
    ProbesScreen #probe-detail { width: 2fr; height: 1fr; border-left: vkey $primary 40%; padding: 0 1; }
    ProbesScreen.-narrow #probes-main { layout: vertical; }
    ProbesScreen.-narrow #probe-list { width: 1fr; height: 1fr; }
    ProbesScreen.-narrow #probe-detail { width: 1fr; height: 1fr; border-left: none; border-top: hkey $primary 40%; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.last_run: ProbeRun | None = None
        self._results: dict[str, ProbeResult] = {}
        self._order: list[ProbeResult] = []
        self._file_state: object = None
        self._store: object = None
        self.runs = 0  # how many runs reached the screen (tests wait on it)
        # Runs are thread workers: a newer one does not stop an older one, which still reports, maybe
        # last. Each request gets a number, and only the newest request's result is shown.
        self._generation = 0

    def compose(self) -> ComposeResult:
        yield StatusBar("Probes")
        yield Static(Text("Running the probes…", style="dim italic"), id="probes-summary")
        with Horizontal(id="probes-main"):
            yield VirtualTable(COLUMNS, empty=EMPTY_ROW, id="probe-list")
            with VerticalScroll(id="probe-detail"):
                yield Static(id="probe-why")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.probe_list.focus()
        self.watch(self.app, "snapshot", self._snapshot_changed, init=True)
        self.set_interval(self.app.POLL_SECONDS, self._poll_file)

    def on_screen_resume(self) -> None:
        self.action_run()

    def arrive(self, entry_id: str | None = None) -> None:
        self.probe_list.focus()

    # ------------------------------------------------------------------ running

    def _probes_state(self) -> object:
        from memtui_core.agents.probes import probes_state

        return probes_state(self.app.store)

    def _poll_file(self) -> None:
        # the probes changed (probes.json, or a database's shared row: by any machine), or the app
        # now ranks with another profile (a new store object)
        if self.is_current and (self._probes_state() != self._file_state or self.app.store is not self._store):
            self.action_run()

    def _snapshot_changed(self, _snapshot: object) -> None:
        self.action_run()

    def action_run(self) -> None:
        self._file_state = self._probes_state()
        self._store = self.app.store
        self._generation += 1
        self._run_probes(self._generation)

    @work(thread=True, exclusive=True, group="probes", exit_on_error=False)
    def _run_probes(self, generation: int) -> None:
        from memtui_core.agents import probes

        store = self.app.store
        try:
            probe_file = probes.load_probes(store)
            run = probes.run_probes(store, probe_file, scoped=self.app.scoped)  # inside a project: both as one
        except Exception as exc:
            self.post_message(ProbesRan(None, one_line(str(exc)) or type(exc).__name__, generation))
            return
        self.post_message(ProbesRan(run, None, generation))

    def on_probes_ran(self, message: ProbesRan) -> None:
        if message.generation != self._generation:
            return  # an older run, overtaken by a newer request: its counts are stale
        self.runs += 1
        summary = self.query_one("#probes-summary", Static)
        if message.run is None:
            summary.update(Text(f"Could not run the probes: {message.error}", style=f"bold {P.error}"))
            return
        run = self.last_run = message.run
        if run.quarantined:
            self.notify(f"probes.json was corrupt ({run.error}); it was moved to {run.quarantined}, "
                        "nothing was lost", title="Probes set aside", severity="warning", timeout=10, markup=False)
        self._order = run.results
        self._results = {result.probe.id: result for result in run.results}
        table = self.probe_list
        table.set_rows([result.probe.id for result in run.results], self._cells)
        summary.update(self._summary(run))
        self._show_why()

    def _summary(self, run: ProbeRun) -> Text:
        total = run.passed + run.failed
        text = Text(no_wrap=False)
        if not total:
            text.append("No probes to run.", style=f"{P.muted}")
        else:
            text.append(f"{run.passed} of {total} pass", style=f"bold {P.success}" if not run.failed else f"bold {P.error}")
            text.append(" │ hit rate ", style=f"{P.muted}")
            text.append(_ratio(run.hits, run.expected), style="bold")
            text.append(" │ false recall ", style=f"{P.muted}")
            text.append(_ratio(run.recalled, run.nothing_probes), style="bold")
            text.append(" │ rerun as memories change", style=f"{P.muted}")
            profile = self.app.store.limits.profile_name
            if profile != "default":
                text.append(f" │ profile {profile}", style=f"bold {P.pin}")
        if run.broken:
            text.append(f"\n⚠ {len(run.broken)} corrupt probes file(s) set aside in the store (newest "
                        f"{run.broken[-1]}): fix and move back to probes.json, or delete", style=f"bold {P.warning}")
        if run.invalid:
            text.append(f"\n⚠ {len(run.invalid)} item(s) of probes.json are not probes; kept as they are, not run",
                        style=f"bold {P.warning}")
        return text

    def _cells(self, index: int) -> list[Text]:
        result = self._order[index]
        probe = result.probe
        badge = Text(" pass ", style="bold " + P.on_success) if result.passed else Text(" FAIL ", style="bold " + P.on_error)
        expects = "nothing" if probe.expects_nothing else " ".join(probe.expect)
        return [badge, Text(probe.id, style=f"{P.muted}"), Text(expects, style=f"{P.primary}"), Text(one_line(probe.query))]

    def selected(self) -> ProbeResult | None:
        key = self.probe_list.selected_key()
        return self._results.get(key) if key else None

    @on(VirtualTable.Selected, "#probe-list")
    async def _selected(self) -> None:
        await self.action_explain()

    @on(VirtualTable.Highlighted, "#probe-list")
    def _show_why(self) -> None:
        pane = self.query_one("#probe-why", Static)
        result = self.selected()
        if result is None:
            pane.update(Text("Select a probe to see why it passes or fails.", style="dim italic")
                        if self._order else Text(EMPTY, style="dim italic"))
            return
        probe = result.probe
        parts: list = [
            Text.assemble(("probe ", "bold"), (probe.id, f"bold {P.pin}"), ("  ", ""),
                          (" pass ", "bold " + P.on_success) if result.passed else (" FAIL ", "bold " + P.on_error)),
            Text.assemble(("query: ", "bold"), probe.query),
            Text.assemble(("must inject: ", "bold"), "nothing" if probe.expects_nothing else ", ".join(
                entry_id + (f" ({result.scopes[entry_id]})" if entry_id in result.scopes else "")
                for entry_id in probe.expect)),
            Text.assemble(("injects now: ", "bold"), ", ".join(result.injected) or "nothing"),
            Text(""),
        ]
        for miss in result.misses:
            head = "injected" if probe.expects_nothing else "expected"
            rank = f" #{miss.rank}" if miss.rank else ""
            parts.append(Text.assemble((f"{head} {miss.id}{rank} ", "bold"),
                                       (status_words(miss.status), f"bold {P.warning}")))
            if miss.text:
                line = clip(miss.text, 70, "italic")
                line.end = "\n"
                parts.append(line)
            parts.append(Text.assemble(("why: ", "bold"), (miss.reason, f"{P.warning}")))
            parts.append(Text(""))
        if result.passed:
            parts.append(Text("Passes: retrieval does what this probe expects.", style=f"{P.success}"))
        elif not probe.expects_nothing:
            parts.append(Text("enter opens the query in explain; select the expected entry there and press K "
                              "to add the terms it lacks to its keywords.", style="dim italic"))
        pane.update(Group(*parts))

    # ------------------------------------------------------------------ actions

    def action_back(self) -> None:
        self.app.action_show("browse")

    async def action_explain(self) -> None:
        result = self.selected()
        if result is None:
            return
        from .explain import ExplainScreen

        await self.app.switch_mode("explain")
        screen = self.app.screen
        if isinstance(screen, ExplainScreen):
            misses = [miss.id for miss in result.misses if miss.status != "missing"]
            screen.open_query(result.probe.query, select=misses[0] if misses else None)

    def action_delete(self) -> None:
        result = self.selected()
        if result is None:
            return
        probe = result.probe

        def answered(yes: bool | None) -> None:
            if yes:
                self._delete(probe.id)

        body = Text.assemble(("query: ", "bold"), probe.query, "\n",
                             ("must inject: ", "bold"), "nothing" if probe.expects_nothing else ", ".join(probe.expect))
        self.app.push_screen(ConfirmModal(f"Delete probe {probe.id}?", body, yes="Delete", danger=True), answered)

    @work(thread=True, group="probe-delete", exit_on_error=False)
    def _delete(self, probe_id: str) -> None:
        from memtui_core.agents.probes import remove_probe

        try:
            remove_probe(self.app.store, probe_id)
        except Exception as exc:
            self.app.call_from_thread(self.notify, one_line(str(exc)), title="Not deleted", severity="error",
                                  markup=False)
            return
        self.app.call_from_thread(self.notify, f"Deleted probe {probe_id}", title="Deleted", timeout=4)
        self.app.call_from_thread(self.action_run)


def _ratio(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "–"
