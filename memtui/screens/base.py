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
