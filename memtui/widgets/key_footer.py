"""The footer: the keys of the screen, on one line when they fit and on two when they do not.

Textual's footer shows every key and cuts the line at the terminal's edge, so at 80 columns the last
keys were lost mid-word, and a newcomer never saw quit, the palette or two of the screens. This one
leaves out the key of the screen you are on (it does nothing there), and when the keys do not fit
on one line it takes a second (`MAX_ROWS`); only keys that fit on neither are dropped, in
`DROP_ORDER`, then from the end. Every key still works, and `?` lists them all.

Textual rebuilds the footer's keys whenever the screen's bindings may have changed: every focus
move and every refresh of the bindings, seven times before the first screen settles. This one
rebuilds them only when what it would show has changed.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.containers import HorizontalGroup
from textual.events import Resize
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

MAX_ROWS = 2

# the actions (by name) to leave out first when the line is too long: the palette, quit and history are a
# key away in `?` and ctrl+p; the screen keys go last
DROP_ORDER = ("command_palette", "quit", "history", "tokens", "focus_query", "focus_op", "usage_order", "help")


class KeyFooter(Footer):
    """A compact footer that never cuts a key in half, on a second line when one is not enough."""

    DEFAULT_CSS = """
    KeyFooter.-two-rows { height: 2; layout: vertical; }
    KeyFooter .footer-row { height: 1; width: 1fr; }
    """

    def __init__(self) -> None:
        super().__init__(compact=True)
        self._width = 0
        self._shown: tuple | None = None  # what the keys on screen were made from

    def _wanted(self) -> tuple:
        """Everything the keys are made from: the bindings the screen shows (each enabled or not, with
        its tooltip), the palette's key, the mode (its key is left out) and the width."""
        bindings = tuple(
            (binding, enabled, tooltip)
            for key, (_node, binding, enabled, tooltip) in self.screen.active_bindings.items()
            if binding.show or key == self.app.COMMAND_PALETTE_BINDING
        )
        return (self._bindings_ready, self.compact, self.show_command_palette, self.app.current_mode,
                self.app.size.width, bindings)

    async def recompose(self) -> None:
        if self.is_attached and self._shown is not None and self._wanted() == self._shown:
            return  # the same keys again
        await super().recompose()

    def compose(self) -> ComposeResult:
        self._shown = self._wanted()
        keys = list(super().compose())
        current = f"show('{self.app.current_mode}')"
        keys = [key for key in keys if not (isinstance(key, FooterKey) and key.action == current)]
        room = self.app.size.width
        for name in DROP_ORDER:
            if _fits(keys, room):
                break
            keys = [key for key in keys if not _is(key, name)]
        while not _fits(keys, room) and len(keys) > 1:  # keys this list does not name: the last ones go, whole
            keys.pop()
        self._width = room
        rows = _rows(keys, room)
        self.set_class(len(rows) > 1, "-two-rows")
        if len(rows) == 1:
            yield from keys
            return
        for row in rows:
            yield HorizontalGroup(*row, classes="footer-row")

    def on_resize(self, event: Resize) -> None:
        if self.app.size.width != self._width:
            self.call_after_refresh(self.recompose)


def _is(key: object, action: str) -> bool:
    return isinstance(key, FooterKey) and key.action == action


def _rows(keys: list, room: int) -> list[list]:
    """The keys in order, as many on the first line as fit and the rest on the next; the palette's
    key (docked at the right) always on the last line."""
    palette = [key for key in keys if _is(key, "command_palette")]
    rest = [key for key in keys if not _is(key, "command_palette")]
    if _width(keys) <= room:
        return [keys]
    first: list = []
    for key in rest:
        if _width([*first, key]) > room:
            break
        first.append(key)
    return [first, rest[len(first):] + palette]


def _fits(keys: list, room: int) -> bool:
    rows = _rows(keys, room)
    return len(rows) <= MAX_ROWS and all(_width(row) <= room for row in rows)


def _width(keys: list) -> int:
    """Cells the footer needs: each key is `KEY DESCRIPTION` plus a space."""
    total = 0
    for key in keys:
        if isinstance(key, FooterKey):
            total += cell_len(key.key_display) + 1 + cell_len(key.description) + 1
    return total
