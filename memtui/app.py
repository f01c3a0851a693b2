"""The memtui terminal app: browse, curate, explain, audit and restore an agent's long-term memory.

The app gets its `MemoryStore` through the constructor and only lays out what the core returns.
Reads and writes run in thread workers that answer with the Messages in `messages.py`; outside
changes are noticed by a one-second poll of the store's cheap state token.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from functools import partial
from typing import Any

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.reactive import var
from textual.screen import Screen

from memtui_core.errors import ConflictError, MemtuiError
from memtui_core.model import AuditEvent, Entry
from memtui_core.store import MemoryStore

from .messages import (
    HistoryLoaded,
    LoadFailed,
    StoreHistory,
    StoreLoaded,
    StoreSnapshot,
    WriteConflict,
    WriteDone,
    WriteFailed,
    WriteRequest,
)
from .modals.conflict import ConflictChoice, ConflictModal
from .modals.edit import EditModal, EditResult
from .screens.audit import AuditScreen
from .screens.backups import BackupsScreen
from .screens.browse import BrowseScreen
from .screens.explain import ExplainScreen
from .screens.help import HelpScreen
from .widgets.fmt import kind_name, one_line

__all__ = ["MemtuiApp", "run_app"]

DONE_TITLES = {
    "add": "Added",
    "edit": "Saved",
    "reclassify": "Reclassified",
    "delete": "Deleted",
    "approve": "Approved",
    "restore": "Restored",
}


class MemtuiCommands(Provider):
    """The command palette: the same actions as the keys of the app and of the current screen."""

    def _commands(self) -> Iterator[tuple[str, str, Any, str]]:
        app = self.app
        assert isinstance(app, MemtuiApp)
        screen = self.screen
        for binding in getattr(screen, "BINDINGS", []):
            if isinstance(binding, Binding) and binding.id and binding.description:
                if screen.check_action(binding.action.split("(")[0], ()) is not True:
                    continue  # not possible right now (e.g. nothing selected)
                yield binding.description, binding.tooltip, partial(screen.run_action, binding.action), binding.key
        for binding in app.BINDINGS:
            if isinstance(binding, Binding) and binding.id and binding.description:
                yield binding.description, binding.tooltip, partial(app.run_action, binding.action), binding.key

    def _prompt(self, description: str, key: str) -> str:
        return f"{description}  ({self.app.get_key_display(Binding(key, ''))})"

    async def discover(self) -> Hits:
        for description, help_text, command, key in self._commands():
            yield DiscoveryHit(self._prompt(description, key), command, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for description, help_text, command, key in self._commands():
            text = f"{description} {help_text}"
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(self._prompt(description, key)), command, help=help_text)


class MemtuiApp(App[None]):
    """Curate, explain, audit and restore the memory in one store."""

    CSS_PATH = "app.tcss"
    TITLE = "memtui"
    COMMANDS = App.COMMANDS | {MemtuiCommands}
    MODES = {"browse": BrowseScreen, "explain": ExplainScreen, "backups": BackupsScreen, "audit": AuditScreen}
    DEFAULT_MODE = "browse"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall")]
    POLL_SECONDS = 1.0

    BINDINGS = [
        Binding("q", "quit", "Quit", id="app.quit", tooltip="Leave memtui"),
        Binding("question_mark", "help", "Keys", id="app.help", tooltip="List every key"),
        Binding("m", "show('browse')", "Browse", id="app.browse", tooltip="The entries, by kind", show=False),
        Binding("w", "show('explain')", "Explain", id="app.explain", tooltip="Why each entry is or is not injected for a query"),
        Binding("b", "show('backups')", "Backups", id="app.backups", tooltip="See what restoring a backup would change, and restore it"),
        Binding("a", "show('audit')", "Audit", id="app.audit", tooltip="Every change to the store, newest first"),
        Binding("ctrl+p", "command_palette", "Commands", id="app.commands", tooltip="Search every action", show=False),
    ]

    snapshot: var[StoreSnapshot | None] = var(None, always_update=True)
    history: var[StoreHistory | None] = var(None, always_update=True)

    def __init__(self, store: MemoryStore, demo: bool = False) -> None:
        super().__init__()
        if store.actor != "tui":
            store = MemoryStore(store.dir, store.limits, actor="tui")
        self.store = store
        self.demo = demo
        self.select_after_load: str | None = None
        self.audit_entry_filter: str | None = None
        self._loading = False
        self._reload_again = False
        self._seen_state: object = object()
        self.started_at = time.perf_counter()
        self.first_rows_at: float | None = None

    # ------------------------------------------------------------------ lifecycle

    def on_mount(self) -> None:
        self.reload()
        self.set_interval(self.POLL_SECONDS, self._poll)

    def _poll(self) -> None:
        if self.store.state() != self._seen_state:
            self.reload()

    def reload(self) -> None:
        """Read the store again in a worker; a request while one runs queues exactly one more."""
        if self._loading:
            self._reload_again = True
            return
        self._loading = True
        self._seen_state = self.store.state()
        self._load()

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def _load(self) -> None:
        store = self.store
        try:
            started = time.perf_counter()
            state = store.state()
            entries = store.entries()
            eviction = {entry.id: position for position, entry in enumerate(store.eviction_order(), start=1)}
            snapshot = StoreSnapshot(
                entries=entries,
                eviction=eviction,
                state=state,
                path=str(store.path),
                max_entries=store.limits.max_entries,
                max_text=store.limits.max_text,
                loaded_at=time.time(),
                load_seconds=time.perf_counter() - started,
            )
            self.post_message(StoreLoaded(snapshot))
            health = store.health()
            events = store.audit()
            self.post_message(HistoryLoaded(StoreHistory(health, events, _events_by_id(events))))
        except Exception as exc:  # an unreadable store must not end the app
            self.post_message(LoadFailed(one_line(f"{type(exc).__name__}: {exc}")))

    def on_store_loaded(self, message: StoreLoaded) -> None:
        self.snapshot = message.snapshot

    def on_history_loaded(self, message: HistoryLoaded) -> None:
        self.history = message.history
        self._load_finished()

    def on_load_failed(self, message: LoadFailed) -> None:
        self.notify(message.error, title="Could not read the store", severity="error")
        self._load_finished()

    def _load_finished(self) -> None:
        self._loading = False
        if self._reload_again:
            self._reload_again = False
            self.reload()

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Textual's own commands, less the two that memtui's Quit (q) and Keys (?) already offer."""
        for command in super().get_system_commands(screen):
            if command.title not in ("Quit", "Keys"):
                yield command
        other = "default" if self.store.limits.profile_name == "nanohermes" else "nanohermes"
        yield SystemCommand(
            f"Ranking profile: {other}",
            "nanohermes ranks exactly as the original (every word counts, no gate, keywords ignored); "
            "default ignores function words, gates weak matches and uses keywords",
            lambda: self.switch_profile(other),
        )

    def switch_profile(self, name: str) -> None:
        """Rank with another profile from now on (explain, and the block it shows)."""
        self.store = MemoryStore(self.store.dir, self.store.limits.with_profile(name), actor=self.store.actor)
        self.notify(f"Ranking profile: {name}")
        refresh = getattr(self.screen, "refresh_explain", None)
        if refresh is not None:
            refresh()

    # ------------------------------------------------------------------ navigation

    def action_show(self, mode: str) -> None:
        if self.current_mode != mode:
            if mode == "audit" and self.audit_entry_filter is None:
                self.audit_entry_filter = ""  # a plain visit: drop a filter that `h` set for one entry
            self.switch_mode(mode)

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.current_mode))

    def show_audit_for(self, entry_id: str) -> None:
        self.audit_entry_filter = entry_id  # the audit screen takes it when it shows
        self.action_show("audit")

    # ------------------------------------------------------------------ writing

    def submit(self, request: WriteRequest) -> None:
        """Send one change to the core off the UI thread; the answer comes back as a Message."""
        self._write(request)

    @work(thread=True, group="write", exit_on_error=False)
    def _write(self, request: WriteRequest) -> None:
        store = self.store
        try:
            if request.op == "add":
                assert request.kind is not None and request.text is not None
                result = store.remember(request.kind, request.text, source="tui")
                added = result.entry
                if any(gone.id == added.id for gone in result.evicted):
                    summary = (
                        f"The store is full and this {kind_name(added.kind)} was the next to go, "
                        "so it was evicted at once"
                    )
                    if len(result.evicted) > 1:
                        summary += f" with {len(result.evicted) - 1} more"
                    self.post_message(WriteDone(request, summary, None, warning=True))
                    return
                if result.added:
                    summary = f"Added {kind_name(added.kind)} {added.id}"
                    if result.evicted:
                        summary += f"; evicted {len(result.evicted)} to stay within {store.limits.max_entries}"
                else:
                    summary = f"Already remembered as {added.id}: refreshed its time instead of adding a copy"
                if added.blocked:
                    summary += " — blocked by the threat scan until approved"
                self.post_message(WriteDone(request, summary, added))
            elif request.op in ("edit", "reclassify"):
                assert request.entry_id is not None
                entry = store.update(
                    request.entry_id,
                    text=request.text,
                    kind=request.kind,
                    expected=request.expected,
                )
                if request.op == "reclassify":
                    summary = f"{entry.id} is now {kind_name(entry.kind)}"
                else:
                    summary = f"Saved {entry.id} ({len(entry.text)}/{store.limits.max_text})"
                if entry.blocked:
                    summary += " — blocked by the threat scan until approved"
                self.post_message(WriteDone(request, summary, entry))
            elif request.op == "delete":
                assert request.entry_id is not None
                entry = store.delete(request.entry_id, expected=request.expected)
                self.post_message(WriteDone(request, f"{entry.id} {one_line(entry.text)[:48]} (a backup keeps it)", entry))
            elif request.op == "approve":
                assert request.entry_id is not None
                entry = store.approve(request.entry_id, expected=request.expected)
                self.post_message(WriteDone(request, f"Approved {entry.id}: it can be injected now", entry))
            elif request.op == "restore":
                assert request.backup is not None
                restored = store.restore(request.backup)
                summary = (
                    f"Restored {restored.name}: {len(restored.added)} added, {len(restored.removed)} removed, "
                    f"{len(restored.changed)} changed"
                )
                self.post_message(WriteDone(request, summary, restore=restored))
        except ConflictError as exc:
            self.post_message(WriteConflict(request, exc.current))
        except (MemtuiError, ValueError, KeyError, OSError) as exc:
            self.post_message(WriteFailed(request, one_line(str(exc)) or type(exc).__name__))

    def on_write_done(self, message: WriteDone) -> None:
        entry = message.entry
        if entry is not None and message.request.op != "delete":
            self.select_after_load = entry.id
        if message.warning:
            self.notify(message.summary, title="Not kept", severity="warning", timeout=8)
        else:
            self.notify(message.summary, title=DONE_TITLES.get(message.request.op, "Saved"), timeout=4)
        self.reload()

    def on_write_failed(self, message: WriteFailed) -> None:
        self.notify(message.error, title="Not saved", severity="error", timeout=8)
        request = message.request
        if request.op in ("add", "edit") and request.text is not None:
            # give the text back rather than lose it; escape discards it
            self.edit_entry(request.expected if request.op == "edit" else None, text=request.text, kind=request.kind)

    def on_write_conflict(self, message: WriteConflict) -> None:
        request = message.request
        current = message.current

        def decided(choice: ConflictChoice | None) -> None:
            if choice == "mine":
                if current is None:
                    if request.op in ("edit", "reclassify") and request.expected is not None:
                        kind = request.kind or request.expected.kind
                        text = request.text or request.expected.text
                        self.submit(WriteRequest("add", text=text, kind=kind))
                    else:
                        self.notify("It is already gone from the store.", title="Nothing to do")
                else:
                    self.submit(
                        WriteRequest(request.op, request.entry_id, request.text, request.kind, expected=current)
                    )
            elif choice == "theirs":
                self.notify("Kept the version on disk; your change was not saved.", title="Not saved")
                self.reload()
            elif request.op == "edit" and current is not None and request.text is not None:
                self.edit_entry(current, text=request.text, kind=request.kind)
            self.reload()

        self.push_screen(ConflictModal(request, current), decided)

    def edit_entry(self, entry: Entry | None, text: str | None = None, kind=None) -> None:
        """Open the editor on `entry` (or a blank one to add); saving checks for changes on disk."""

        def saved(result: EditResult | None) -> None:
            if result is None:
                return
            if entry is None:
                self.submit(WriteRequest("add", text=result.text, kind=result.kind))
                return
            text_changed = result.text != entry.text
            self.submit(
                WriteRequest(
                    "edit",
                    entry.id,
                    text=result.text if text_changed else None,
                    kind=result.kind if result.kind is not entry.kind else None,
                    expected=entry,
                )
            )

        self.push_screen(EditModal(entry, text=text, kind=kind), saved)

    # ------------------------------------------------------------------ measuring

    def rows_shown(self) -> None:
        """Called by the browse screen the first time it shows rows (for the startup measurement)."""
        if self.first_rows_at is None:
            self.first_rows_at = time.perf_counter()


def _events_by_id(events: list[AuditEvent]) -> dict[str, list[AuditEvent]]:
    by_id: dict[str, list[AuditEvent]] = {}
    for event in events:
        ids = {event.id} if event.id else set()
        extra = event.model_extra or {}
        for key in ("added", "removed", "changed"):
            value = extra.get(key)
            if isinstance(value, list):
                ids.update(i for i in value if isinstance(i, str))
        for entry_id in ids:
            by_id.setdefault(entry_id, []).append(event)
    return by_id


def run_app(store: MemoryStore, demo: bool = False) -> None:
    """Open the app on `store` (writes are recorded with actor "tui")."""
    MemtuiApp(store, demo=demo).run()
