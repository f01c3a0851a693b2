"""The memtui terminal app: browse, curate, explain, audit and restore an agent's long-term memory.

The app gets its `MemoryStore` through the constructor and only lays out what the core returns.
Reads and writes run in thread workers that answer with the Messages in `messages.py`; outside
changes are noticed by a one-second poll of the store's cheap state token.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from importlib import import_module
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.reactive import var
from textual.screen import Screen

from memtui_core.errors import ConflictError, MemtuiError
from memtui_core.model import Entry
from memtui_core.memory import MemoryStore

from .messages import (
    HistoryLoaded,
    LoadFailed,
    StoreHistory,
    StoreLoaded,
    StoreSnapshot,
    WriteConflict,
    WriteDone,
    WriteFailed,
)
from . import scopes
from .screens.base import ModeScreen
from .screens.browse import BrowseScreen
from .settings import Settings, default_path
from .modals.confirm import quit_or_ask
from .screenshot import save_screenshot
from .typeahead import TypeAhead
from .widgets import fmt, palette
from .widgets.fmt import one_line
from .writes import Add, Draft, Edit, EntryWrite, Write, WriteRefused

if TYPE_CHECKING:
    from memtui_core.scopes import Scoped

    from .modals.conflict import ConflictChoice
    from .modals.edit import EditResult
    from .node import AppParts

# The ranking profiles the command palette switches to (memtui_core.limits.PROFILES), each with what it does.
PROFILE_HELP = {
    "default": "ignores function words, gates weak matches and uses keywords",
    "nanohermes": "ranks exactly as the original (every word counts, no gate, keywords ignored)",
    "semantic": "default, plus meaning: a hit far in meaning from the message is held back, an entry close in "
                "meaning is admitted (the embedding model; explain shows each entry's cosine and rule)",
}

__all__ = ["MemtuiApp", "run_app"]


def _mode(module: str, name: str) -> Callable[[], Screen]:
    """A mode's screen, its module imported when the person first goes there: only Browse is needed
    to draw the first screen, and the others (with their widgets and the core modules they use) are
    about a fifth of what `import memtui.app` would otherwise load."""

    def make() -> Screen:
        return getattr(import_module(f".screens.{module}", __package__), name)()

    make.__qualname__ = name
    return make


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


class MemtuiApp(TypeAhead):
    """Curate, explain, audit and restore the memory in one store."""

    CSS_PATH = "app.tcss"
    TITLE = "memtui"
    COMMANDS = App.COMMANDS | {MemtuiCommands}
    MODES = {"browse": BrowseScreen, "explain": _mode("explain", "ExplainScreen"),
             "backups": _mode("backups", "BackupsScreen"), "audit": _mode("audit", "AuditScreen"),
             "injections": _mode("injections", "InjectionsScreen"), "probes": _mode("probes", "ProbesScreen")}
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
        Binding("i", "show('injections')", "Injections", id="app.injections",
                tooltip="Past injections: what each put into the prompt, replayed against today's store"),
        Binding("P", "show('probes')", "Probes", id="app.probes",
                tooltip="Retrieval regression tests: which pass and which fail, live as memories change"),
        Binding("ctrl+p", "command_palette", "Commands", id="app.commands", tooltip="Search every action", show=False),
    ]

    snapshot: var[StoreSnapshot | None] = var(None, always_update=True)
    history: var[StoreHistory | None] = var(None, always_update=True)
    log_scope: var[str] = var("global")  # whose logs the Audit, Backups and Injections screens show (scopes.py)

    def __init__(self, store: MemoryStore, demo: bool = False, settings: Settings | None = None,
                 command: str = "memtui", scoped: Scoped | None = None) -> None:
        super().__init__()
        self.settings = settings  # None: nothing is remembered between runs (tests)
        self.command = command  # how the shell reaches this store: `memtui --dir DIR` when opened so
        scoped = scopes.for_the_app(scoped)  # both stores, or None
        if scoped is not None:
            store = scoped.main
        self.scoped = scoped
        if store.actor != "tui":
            store = MemoryStore(store.location or store.dir, store.limits, actor="tui", lang=store.lang)
        self.store = store
        self.demo = demo
        self._loading = False
        self._reload_again = False  # a reload was asked for while one ran: it runs next
        self._select_next: str | None = None  # ... and the entry it selects when it is done
        self._seen_state: object = object()
        self.started_at = time.perf_counter()
        self.first_rows_at: float | None = None

    # ------------------------------------------------------------------ lifecycle

    def on_mount(self) -> None:
        settings = self.settings
        if settings is not None:
            if settings.theme in self.available_themes:
                self.theme = settings.theme
            if settings.problem:
                self.notify(settings.problem, title="Settings", severity="warning", timeout=10)
        self._theme_ready = False
        self.watch(self, "theme", self._theme_changed, init=True)
        self._theme_ready = True  # from here on a change is the person's choice, and is remembered
        self.reload()
        self.set_interval(self.POLL_SECONDS, self._poll)

    def _theme_changed(self, theme: str) -> None:
        """Every colour the screens draw follows the theme; the choice is remembered for next time."""
        palette.use(self.get_css_variables())
        fmt.restyle()
        if self.snapshot is not None:
            self.snapshot = self.snapshot  # every screen redraws from it
        if self.history is not None:
            self.history = self.history
        if self.settings is not None and getattr(self, "_theme_ready", False):
            try:
                self.settings.set("theme", theme)
            except OSError as exc:
                self.notify(f"The theme is not remembered: {exc}", title="Settings", severity="warning")

    def _poll(self) -> None:
        # each store's change token: a folder's file state, a database's NOTIFY count (never a query here)
        if scopes.state(self.store, self.scoped) != self._seen_state:
            self.reload()

    def reload(self, select: str | None = None) -> None:
        """Read the store again in a worker; a request while one runs queues exactly one more.

        `select`: the entry a write just touched, which Browse selects once the new read arrives.
        """
        if self._loading:
            self._reload_again = True
            self._select_next = select or self._select_next
            return
        self._loading = True
        self._seen_state = scopes.state(self.store, self.scoped)
        self._load(select)

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def _load(self, select: str | None) -> None:
        store = self.store
        try:
            started = time.perf_counter()
            state = store.state()
            entries, scoped_ids, eviction, used = scopes.listing(store, self.scoped)
            snapshot = StoreSnapshot(
                entries=entries,
                eviction=eviction,
                state=state,
                path=store.storage.where,
                max_entries=store.limits.max_entries,
                max_text=store.limits.max_text,
                loaded_at=time.time(),
                load_seconds=time.perf_counter() - started,
                usage=used,
                usage_days=store.limits.injection_days,
                usage_logged=store.injection_log.enabled,
                core=_core_of(store),
                scopes=scoped_ids,
            )
            self.post_message(StoreLoaded(snapshot, select))
            self.post_message(HistoryLoaded(scopes.history(store, self.scoped)))
        except Exception as exc:  # an unreadable store must not end the app
            self.post_message(LoadFailed(one_line(f"{type(exc).__name__}: {exc}")))

    def on_store_loaded(self, message: StoreLoaded) -> None:
        self.snapshot = message.snapshot  # every screen redraws from it
        if message.select is not None:
            browse = self.get_screen_stack("browse")[0]
            if isinstance(browse, BrowseScreen):
                browse.reveal(message.select)

    def on_history_loaded(self, message: HistoryLoaded) -> None:
        self.history = message.history
        self._load_finished()

    def on_load_failed(self, message: LoadFailed) -> None:
        self.notify(message.error, title="Could not read the store", severity="error")
        self._load_finished()

    def _load_finished(self) -> None:
        self._loading = False
        if self._reload_again:
            select, self._select_next = self._select_next, None
            self._reload_again = False
            self.reload(select)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Textual's own commands, less the two that memtui's Quit (q) and Keys (?) already offer."""
        for command in super().get_system_commands(screen):
            if command.title not in ("Quit", "Keys"):
                yield command
        current = self.store.limits.profile_name
        for other, help in PROFILE_HELP.items():
            if other != current:
                yield SystemCommand(f"Ranking profile: {other}", help, partial(self.switch_profile, other))
        yield SystemCommand("Export memories", "Write the entries to a JSON, JSONL, Hermes or Markdown file",
                            partial(self.open_transfer, "export"))
        yield SystemCommand("Import memories", "Preview, then add the entries of a memtui or Hermes file",
                            partial(self.open_transfer, "import"))

    deliver_screenshot = save_screenshot  # the palette's Screenshot: saved where it can be, and said where

    def open_transfer(self, mode: str) -> None:
        from .modals.transfer import TransferModal

        def done(summary: str | None) -> None:
            if summary:  # an export (an import is a write: it reports through on_write_done)
                self.notify(summary, title="Export")

        self.push_screen(TransferModal(mode), done)

    def switch_profile(self, name: str) -> None:
        """Rank with another profile from now on (explain, and the block it shows)."""
        # the language goes along, except into and out of nanohermes, which has the original's own (zh)
        lang = None if "nanohermes" in (name, self.store.limits.profile_name) else self.store.lang
        self.store = MemoryStore(self.store.location or self.store.dir, self.store.limits.with_profile(name),
                                 actor=self.store.actor,
                                 lang=lang)
        self.notify(f"Ranking profile: {name}")
        self.reload()  # the pinned core follows the profile (nanohermes has none)
        if self.current_mode == "explain":
            from .screens.explain import ExplainScreen

            if isinstance(self.screen, ExplainScreen):
                self.screen.refresh_explain()

    # ------------------------------------------------------------------ navigation

    def action_show(self, mode: str) -> None:
        entry_id = None
        if mode == "explain" and isinstance(self.screen, BrowseScreen):
            selected = self.screen.selected_entry()
            entry_id = selected.id if selected else None  # explain opens on it, pinned
        self.visit(mode, entry_id)

    def visit(self, mode: str, entry_id: str | None = None) -> None:
        """Switch to `mode`; its screen then moves the focus to its home and shows `entry_id` if it can."""
        if self.current_mode == mode:
            return
        self.switch_mode(mode)
        screen = self.get_screen_stack(mode)[0]
        if isinstance(screen, ModeScreen):
            screen.post_message(ModeScreen.Arrived(entry_id))

    action_quit = quit_or_ask  # q and ctrl+q: at once, unless an editor holds unsaved text; then it asks

    def action_help(self) -> None:
        from .screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(help_sections(self.current_mode, type(self))))

    def show_audit_for(self, entry_id: str) -> None:
        self.visit("audit", entry_id)  # the audit screen filters on it

    # ------------------------------------------------------------------ writing

    def submit(self, write: Write) -> None:
        """Send one change to the core off the UI thread; the answer comes back as a Message."""
        self._write(write)

    @work(thread=True, group="write", exit_on_error=False)
    def _write(self, write: Write) -> None:
        try:
            outcome = write.run(self.store if self.scoped is None else scopes.target(self.scoped, write))
        except ConflictError as exc:
            if isinstance(write, EntryWrite):
                current = exc.current if isinstance(exc.current, Entry) else None  # None: it is gone
                self.post_message(WriteConflict(write, current))
            else:
                self.post_message(WriteFailed(write, one_line(str(exc))))
        except (WriteRefused, MemtuiError, ValueError, KeyError, OSError) as exc:
            self.post_message(WriteFailed(write, one_line(str(exc)) or type(exc).__name__))
        else:
            self.post_message(WriteDone(write, outcome))

    def on_write_done(self, message: WriteDone) -> None:
        outcome = message.outcome
        if outcome.warning:
            self.notify(outcome.summary, title="Not kept", severity="warning", timeout=8)
        else:
            self.notify(outcome.summary, title=message.write.title, timeout=4)
        self.reload(select=outcome.select)

    def on_write_failed(self, message: WriteFailed) -> None:
        self.notify(message.error, title="Not saved", severity="error", timeout=8)
        draft = message.write.draft()
        if draft is not None:  # give the text (and keywords) back rather than lose them; escape discards them
            self.edit_entry(draft)

    def on_write_conflict(self, message: WriteConflict) -> None:
        from .modals.conflict import ConflictModal

        write = message.write
        current = message.current

        def decided(choice: ConflictChoice | None) -> None:
            if choice == "mine":
                if current is not None:
                    self.submit(write.over(current))
                elif (again := write.add_back()) is not None:
                    self.submit(again)
                else:
                    self.notify("It is already gone from the store.", title="Nothing to do")
            elif choice == "theirs":
                self.notify("Kept the version on disk; your change was not saved.", title="Not saved")
            elif (draft := write.reopen()) is not None:
                self.edit_entry(draft)
            self.reload()

        self.push_screen(ConflictModal(write, current), decided)

    def edit_entry(self, draft: Draft) -> None:
        """Open the editor on `draft.entry` (or a blank one to add); saving checks for changes on disk."""
        from .modals.edit import EditModal

        entry = draft.entry

        def saved(result: EditResult | None) -> None:
            if result is None:
                return
            if entry is None:
                self.submit(Add(result.kind, result.text, keywords=result.keywords))
                return
            self.submit(Edit(entry.id, entry,
                             text=result.text if result.text != entry.text else None,
                             kind=result.kind if result.kind is not entry.kind else None,
                             keywords=result.keywords))

        self.push_screen(EditModal(entry, text=draft.text, kind=draft.kind, keywords=draft.keywords), saved)

    # ------------------------------------------------------------------ measuring

    def rows_shown(self) -> None:
        """Called by the browse screen the first time it shows rows (for the startup measurement)."""
        if self.first_rows_at is None:
            self.first_rows_at = time.perf_counter()


def help_sections(current: str, app_class: type[App[None]]) -> list[tuple[str, list[Binding]]]:
    """The bindings `?` lists, by part: the current mode's first, then the app's (they work
    everywhere), the other modes', the editor's and the conflict dialog's. The help screen is
    handed them, so it imports none of the screens it lists."""
    from .modals.conflict import ConflictModal
    from .modals.edit import EditModal
    from .screens.audit import AuditScreen
    from .screens.backups import BackupsScreen
    from .screens.explain import ExplainScreen
    from .screens.injections import InjectionsScreen
    from .screens.probes import ProbesScreen

    modes: dict[str, tuple[str, type[Screen]]] = {
        "browse": ("Browse (entries)", BrowseScreen),
        "explain": ("Explain (w)", ExplainScreen),
        "backups": ("Backups (b)", BackupsScreen),
        "audit": ("Audit (a)", AuditScreen),
        "injections": ("Injections (i)", InjectionsScreen),
        "probes": ("Probes (P)", ProbesScreen),
    }
    out: list[tuple[str, list[Binding]]] = []
    if current in modes:
        out.append((modes[current][0], _bindings(modes[current][1])))
    out.append(("Everywhere", _bindings(app_class)))
    out += [(title, _bindings(cls)) for name, (title, cls) in modes.items() if name != current]
    from .modals.core import CoreModal

    out.append(("The pinned core (c)", _bindings(CoreModal)))
    out.append(("Editor (e, n)", _bindings(EditModal)))
    out.append(("Conflict", _bindings(ConflictModal)))
    return out


def _bindings(node_class: type) -> list[Binding]:
    return [b for b in getattr(node_class, "BINDINGS", []) if isinstance(b, Binding)]


def _core_of(store: MemoryStore):
    """The store's pinned core for the snapshot; None when it cannot be worked out (the rest still loads)."""
    try:
        return store.core()
    except Exception:
        return None


if TYPE_CHECKING:

    def _provides_the_parts(app: MemtuiApp) -> AppParts:
        """The checker holds the app to what its screens, dialogs and widgets reach (node.AppParts)."""
        return app


def run_app(store: MemoryStore, demo: bool = False, command: str = "memtui", scoped: Scoped | None = None) -> None:
    """Open the app on `store` (writes are recorded with actor "tui").

    The chosen theme is remembered in the settings file; the demo reads it but never writes it,
    so trying the demo leaves nothing behind.
    """
    settings = Settings.load(default_path(), writable=not demo)
    MemtuiApp(store, demo=demo, settings=settings, command=command, scoped=scoped).run()
