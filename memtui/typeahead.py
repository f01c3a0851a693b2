"""Keys typed ahead: a key typed in the same burst as the one that opened a text box belongs in that box.

The app sends each key to the widget that has the focus when the key arrives (`MemtuiApp.on_event`
marks it with that widget); a key that comes back unhandled after the focus has moved on to a box
that takes text is sent there instead of running as a shortcut (`MemtuiApp._on_key`).
"""

from __future__ import annotations

from textual import events

__all__ = ["forward", "takes_typing"]


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
