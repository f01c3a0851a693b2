"""Wait for a pause in typing before doing the work each key asks for.

A filter or query box asks for a redraw on every key. `Debounce.poke()` on each key runs the
callback once, `delay` seconds after the last poke; `now()` runs it at once (enter, or leaving the
box) and `cancel()` drops a pending run. The callback reads the box when it runs, so it always
sees the latest text.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.message_pump import MessagePump
from textual.timer import Timer

__all__ = ["Debounce"]


class Debounce:
    """Call `callback` once, `delay` seconds after the last of a burst of `poke()`s."""

    def __init__(self, owner: MessagePump, delay: float, callback: Callable[[], object]) -> None:
        self.owner = owner  # the screen or dialog whose timer runs it (and stops with it)
        self.delay = delay
        self._callback = callback
        self._timer: Timer | None = None

    @property
    def pending(self) -> bool:
        return self._timer is not None

    def poke(self) -> None:
        """Run the callback `delay` seconds from now, instead of at the time an earlier poke set."""
        self.cancel()
        self._timer = self.owner.set_timer(self.delay, self._fire)

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def now(self) -> None:
        """Run the callback at once; a pending run is dropped."""
        self.cancel()
        self._callback()

    def _fire(self) -> None:
        self._timer = None
        self._callback()
