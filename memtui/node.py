"""`self.app` typed as the memtui app, for every screen, dialog and widget that reads the store.

Textual types `self.app` as a plain `App`; the parts of memtui reach the store, the snapshot and the
write path through it, so they inherit from `AppNode` first (`class BrowseScreen(AppNode, Screen)`)
and the type checker knows what they reach. This is Textual's own `getters.app`, declared for the
checker only: at run time `app.py` imports the screens, not the other way round, so the screens
cannot name the app class while they load.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import getters
from textual.message_pump import MessagePump

if TYPE_CHECKING:
    from .app import MemtuiApp

__all__ = ["AppNode"]


class AppNode(MessagePump):
    """A part of the memtui app: `self.app` is the `MemtuiApp` that runs it."""

    if TYPE_CHECKING:  # at run time Textual's own `app` property answers, unchanged
        app = getters.app(MemtuiApp)
