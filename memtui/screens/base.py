"""What every top-level screen (a mode) shares: where the keyboard lands when the person arrives.

The app keeps one instance of each screen and switches between them, so a screen left with the
focus in a text box would get it back there, and the next letter typed would be a shortcut or land
in the wrong box. Each screen names its home instead. When the app switches to a screen it posts it
`Arrived` (not when a dialog on top of it closes, which keeps the focus where the person left it);
the message carries what the visit is about, the entry the person came from, and `arrive()` gets it
as an argument.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.css.query import NoMatches
from textual.message import Message
from textual.screen import Screen

from ..node import AppNode


class ModeScreen(AppNode, Screen[None]):
    """A screen the app switches to; `arrive()` puts the focus on its home widget."""

    @dataclass
    class Arrived(Message):
        """The app switched to this screen. Posted after the switch, so it is handled after the
        screen's own resume (and, on a first visit, after it is composed and mounted)."""

        entry_id: str | None = None  # the entry the visit is about (Browse's selection), if any

    def on_mode_screen_arrived(self, message: Arrived) -> None:
        self.call_after_refresh(self._arrive, message.entry_id)

    def _arrive(self, entry_id: str | None) -> None:
        try:
            self.arrive(entry_id)
        except NoMatches:  # not composed yet: on_mount sets the first focus
            pass

    def arrive(self, entry_id: str | None = None) -> None:
        """Focus the widget a visit starts from, and show `entry_id` if the screen can; override per screen."""

    def can_write(self, what: str) -> bool:
        """Whether the store can take a change. When it cannot (a read-only store), say so at once,
        before any dialog asks a question whose answer could not be saved, and return False.
        `what`: the change, as the start of a sentence ("Deleting")."""
        return writable_or_say(self, what)


def writable_or_say(node, what: str) -> bool:
    """`can_write` for any part of the app (a dialog too): False, with one notification, on a read-only store."""
    history = node.app.history
    if history is None or history.health.writable:
        return True
    import os

    folder = os.path.dirname(history.health.path) or history.health.path
    node.notify(f"{what} is not possible: the store is read-only ({folder} cannot be written). "
                "Browsing, explain and the audit log still work; memtui doctor says what to do.",
                title="Read-only store", severity="warning", timeout=8)
    return False
