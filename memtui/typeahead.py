"""Keys typed ahead: a key typed in the same burst as the one that opened a text box belongs in that box.

The app sends each key to the widget that has the focus when the key arrives (`TypeAhead.on_event`
marks it with that widget); a key that comes back unhandled after the focus has moved on to a box
that takes text is sent there instead of running as a shortcut (`TypeAhead._on_key`).
"""

from __future__ import annotations

from textual import events
from textual.app import App

__all__ = ["TypeAhead", "forward", "takes_typing"]


def forward(node, key: events.Key) -> None:
    """Send `node` a fresh copy of `key` (the key itself has run its course: stopped, its default
    prevented), marked as sent to `node`."""
    again = events.Key(key.key, key.character)
    again._memtui_sent_to = node
    node._forward_event(again)


def takes_typing(node: object) -> bool:
    """A box the person types into (an Input, a TextArea), or a part that passes typing on to one
    (`TAKES_TYPING`: the editor's kinds, the editor before its form has the focus)."""
    import sys

    from textual.widgets import Input

    if isinstance(node, Input) or getattr(node, "TAKES_TYPING", False):
        return True
    text_area = sys.modules.get("textual.widgets._text_area")  # loaded with the editor, not before
    return text_area is not None and isinstance(node, text_area.TextArea)


class TypeAhead(App[None]):
    """The app's base: Textual's `App`, with keys typed ahead going where the person meant them."""

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            event._memtui_sent_to = self.focused or self.screen  # where the key goes (see _on_key)
        await super().on_event(event)

    async def _on_key(self, event: events.Key) -> None:
        """A key typed in the same burst as the one that opened a text box (`n`, `e`, `/`) was sent
        to the widget that had the focus then, and comes back here to be run as a shortcut: `q`
        quit, `d` deleted. When the focus has moved on to a box that takes text since, the person
        typed it for that box: it goes there, in order, instead of running as a key."""
        sent_to = getattr(event, "_memtui_sent_to", None)
        now = self.focused or self.screen
        if sent_to is not None and sent_to is not now and takes_typing(now):
            event.prevent_default()  # not App's own handler: no binding runs for it
            forward(now, event)
