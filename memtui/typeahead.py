"""Keys typed ahead: a key typed in the same burst as the one that opened a text box belongs in that box,
in the order it was typed.

The app sends each key to the widget that has the focus when the key arrives (`TypeAhead.on_event`
marks it with that widget); a key that comes back unhandled after the focus has moved on to a box
that takes text is sent there instead of running as a shortcut (`TypeAhead._on_key`).

Order: a key sent to a widget that is not itself a text box may take several hops (up to the app,
then forwarded to the box), while a key typed after it goes straight to the box once the focus is
there, and would overtake it. So while such a key is on its way, the keys after it wait in the
app: a marker (`TypedKeyRan`) follows the key along the same queues, and when it comes back to the app
the key has run its course. A marker that never comes back (its widget went away) stops the wait
after `STALL` seconds.
"""

from __future__ import annotations

from collections import deque

from textual import events
from textual.app import App
from textual.message import Message

__all__ = ["TypeAhead", "forward", "takes_typing"]

STALL = 0.3  # seconds: at most this long held behind a key whose marker went missing


class TypedKeyRan(Message, bubble=True):
    """Follows a key along the queues it takes; back at the app, the key before it has run."""

    def __init__(self, round_: int) -> None:
        super().__init__()
        self.round = round_


def forward(node, key: events.Key) -> None:
    """Send `node` a fresh copy of `key` (the key itself has run its course: stopped, its default
    prevented), marked as sent to `node`. The keys after it wait until it has run there too."""
    again = events.Key(key.key, key.character)
    again._memtui_sent_to = node
    node._forward_event(again)
    node.app._follow(node)


def is_text_box(node: object) -> bool:
    """Where typing ends up: an Input or a TextArea (a key sent there is not passed on)."""
    import sys

    from textual.widgets import Input

    if isinstance(node, Input):
        return True
    text_area = sys.modules.get("textual.widgets._text_area")  # loaded with the editor, not before
    return text_area is not None and isinstance(node, text_area.TextArea)


def takes_typing(node: object) -> bool:
    """A box the person types into (an Input, a TextArea), or a part that passes typing on to one
    (`TAKES_TYPING`: the editor's kinds, the editor before its form has the focus)."""
    return is_text_box(node) or getattr(node, "TAKES_TYPING", False)


class TypeAhead(App[None]):
    """The app's base: Textual's `App`, with keys typed ahead going where the person meant them."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._held_keys: deque[events.Key] = deque()
        self._markers_out = 0  # markers still on their way back
        self._round = 0  # a stalled wait starts a new round; markers of an old one are ignored
        self._stall_timer = None

    async def on_event(self, event: events.Event) -> None:
        if not isinstance(event, events.Key) or event.is_forwarded:
            await super().on_event(event)
        elif self._markers_out:
            self._held_keys.append(event)  # a key before it is still on its way
        else:
            await self._send_key(event)

    async def _send_key(self, key: events.Key) -> None:
        target = self.focused or self.screen
        key._memtui_sent_to = target  # where the key goes (see _on_key)
        await super().on_event(key)
        if key.is_forwarded:  # sent on (no priority binding took it)
            self._follow(target)

    def _follow(self, node) -> None:
        """Send a marker after the key just sent to `node`; the next keys wait for it. Not after a
        key sent to a text box: it stays there, and the next keys go there too, behind it."""
        if is_text_box(node):
            return
        self._markers_out += 1
        node.post_message(TypedKeyRan(self._round))
        if self._stall_timer is None:
            self._stall_timer = self.set_timer(STALL, self._stalled)

    async def _on_typed_key_ran(self, message: TypedKeyRan) -> None:
        message.stop()
        if message.round != self._round:
            return
        self._markers_out -= 1
        if not self._markers_out:
            await self._release()

    async def _stalled(self) -> None:
        self._stall_timer = None
        if self._markers_out:
            self._round += 1
            self._markers_out = 0
            await self._release()

    async def _release(self) -> None:
        if self._stall_timer is not None:
            self._stall_timer.stop()
            self._stall_timer = None
        while self._held_keys and not self._markers_out:
            await self._send_key(self._held_keys.popleft())

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
