"""What the TUI tests share: reading the screen as text, waiting for the app, reading the files."""

from __future__ import annotations

import asyncio
import io
import threading
import time
from collections.abc import Callable
from pathlib import Path

import orjson
from rich.console import Console
from textual.pilot import Pilot


def screen_text(app) -> str:
    """Everything the current screen shows (modals included), as plain text."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), record=True, force_terminal=True,
                      color_system="truecolor", legacy_windows=False, safe_box=False)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text()


async def wait_until(pilot: Pilot, condition: Callable[[], object], timeout: float = 3.0, what: str = "") -> None:
    """Let the app run until `condition()` is true; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what or condition}")
        await pilot.pause(0.05)
    await pilot.pause()


class ReportedLate:
    """`call`, whose first call answers at once but holds its answer until `report()`: an older
    worker that finishes after a newer one, whatever the machine's speed. The app must show the
    newer answer. `is_set()`: the first call has answered and is holding."""

    def __init__(self, call: Callable) -> None:
        self.call = call
        self.answered = threading.Event()
        self._release = threading.Event()
        self._thread: threading.Thread | None = None

    def __call__(self, *args, **kwargs):
        result = self.call(*args, **kwargs)
        if not self.answered.is_set():
            self._thread = threading.current_thread()
            self.answered.set()
            self._release.wait(30)  # a generous bound, in case the test failed before report()
        return result

    def is_set(self) -> bool:
        return self.answered.is_set()

    async def report(self, pilot: Pilot) -> None:
        """Let the held answer go, and return once the app has handled the message its worker
        posts with it (every worker the app runs reports by posting a message)."""
        from textual.message_pump import MessagePump

        held = self._thread
        assert held is not None, "the slow call never answered"
        posted = threading.Event()
        post_message = MessagePump.post_message

        def watched(node, message):
            answer = post_message(node, message)
            if threading.current_thread() is held:
                posted.set()
            return answer

        MessagePump.post_message = watched  # type: ignore[method-assign]
        try:
            self._release.set()
            await wait_until(pilot, posted.is_set, what="the older worker to report")
        finally:
            MessagePump.post_message = post_message  # type: ignore[method-assign]
        await pilot.pause()  # the app has handled it


def reported_late(call: Callable) -> tuple[ReportedLate, ReportedLate]:
    """The held call, twice: to install in place of `call`, and to wait on and release."""
    late = ReportedLate(call)
    return late, late


async def wait_for_text(pilot: Pilot, text: str, timeout: float = 3.0) -> str:
    await wait_until(pilot, lambda: text in screen_text(pilot.app), timeout, what=repr(text))
    return screen_text(pilot.app)


async def wait_loaded(pilot: Pilot, timeout: float = 3.0) -> None:
    """Until the first load (entries, health and audit) has reached the app."""
    await wait_until(pilot, lambda: pilot.app.snapshot is not None and pilot.app.history is not None,
                     timeout=timeout, what="the store to load")


async def run_command(pilot: Pilot, title: str) -> None:
    """Run a command from the palette (ctrl+p) by typing its title, as a person does."""
    await pilot.press("ctrl+p")
    await type_text(pilot, title)
    await wait_for_text(pilot, title)
    await pilot.press("enter")


async def type_text(pilot: Pilot, text: str) -> None:
    """Type `text` the way a terminal delivers it: a burst of key events, then the app catches up."""
    from textual import events
    from textual.keys import _character_to_key

    for character in text:
        event = events.Key(_character_to_key(character), character)
        event.set_sender(pilot.app)
        pilot.app.post_message(event)
    await pilot.pause()


def file_entries(directory: Path) -> list[dict]:
    return orjson.loads((directory / "memory.json").read_bytes())["entries"]


def file_entry(directory: Path, entry_id: str) -> dict | None:
    return next((e for e in file_entries(directory) if e.get("id") == entry_id), None)


def audit_events(directory: Path) -> list[dict]:
    path = directory / "audit.jsonl"
    if not path.exists():
        return []
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


async def settle(seconds: float = 0.0) -> None:
    await asyncio.sleep(seconds)


def widget_text(widget) -> str:
    """All of one widget's lines as plain text, including what is scrolled out of view."""
    from textual.geometry import Region

    width, height = widget.size
    strips = widget.render_lines(Region(0, 0, width, height))
    return "\n".join(strip.text for strip in strips)


def squash(text: str) -> str:
    """Text without any whitespace, to find a wrapped sentence in what a pane shows."""
    return "".join(text.split())


def shows(widget, text: str) -> bool:
    return squash(text) in squash(widget_text(widget))


async def paste(pilot: Pilot, text: str) -> None:
    """Paste `text` into the focused widget, as a terminal does (one event, not a key per character)."""
    from textual import events

    pilot.app.post_message(events.Paste(text))
    await pilot.pause()


async def select(pilot: Pilot, needle: str) -> None:
    """Filter the browse table down to the entry containing `needle` (by the real keys)."""
    from memtui.widgets.entry_table import EntryTable

    await pilot.press("slash")
    await type_text(pilot, needle)
    await pilot.press("enter")
    table = pilot.app.screen.query_one(EntryTable)
    await wait_until(pilot, lambda: table.row_count == 1, what=f"one row for {needle!r}")


async def open_editor(pilot: Pilot, needle: str | None = None):
    """Open the editor from browse by the real keys: on the entry containing `needle` (e), or on a
    new memory (n). Returns the editor once it is on screen."""
    from memtui.modals.edit import EditModal

    if needle is not None:
        await select(pilot, needle)
    await pilot.press("n" if needle is None else "e")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, EditModal), what="the editor")
    return pilot.app.screen
