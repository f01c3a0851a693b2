"""What every top-level screen (a mode) shares: where the keyboard lands when the person arrives.

The app keeps one instance of each screen and switches between them, so a screen left with the
focus in a text box would get it back there, and the next letter typed would be a shortcut or land
in the wrong box. Each screen names its home instead; `arrive()` runs on every visit by mode switch
(not when a dialog on top of it closes, which keeps the focus where the person left it).
"""

from __future__ import annotations

from textual.css.query import NoMatches
from textual.screen import Screen

from ..node import AppNode


class ModeScreen(AppNode, Screen[None]):
    """A screen the app switches to; `arrive()` puts the focus on its home widget."""

    def on_screen_resume(self) -> None:
        if getattr(self.app, "arriving", None) == self:
            self.app.arriving = None
            self.call_after_refresh(self._arrive)

    def _arrive(self) -> None:
        try:
            self.arrive()
        except NoMatches:  # not composed yet: on_mount sets the first focus
            pass

    def arrive(self) -> None:
        """Focus the widget a visit starts from; override per screen."""
