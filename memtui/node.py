"""What the parts of the app reach through `self.app`, declared below the app so they need not name it.

Textual types `self.app` as a plain `App`; the screens, dialogs and widgets of memtui reach the
store, the snapshot and the write path through it. `AppParts` lists exactly those members (the
rest is Textual's own `App`), and `AppNode` gives its subclasses a `self.app` typed as an `App`
with them (`class BrowseScreen(AppNode, Screen)`), so the type checker knows what they reach.
`MemtuiApp` (app.py) provides them, and the checker holds it to this list there.

This module imports nothing of the app: app.py imports the screens, and the screens import this,
so the arrows point one way. It is declarations for the checker only; at run time `self.app` is
Textual's own property, unchanged.
"""

from __future__ import annotations

from typing import Any, TYPE_CHECKING, Protocol

from textual.message_pump import MessagePump

if TYPE_CHECKING:
    from textual import getters
    from textual.app import App

    from memtui_core.memory import MemoryStore

    from .messages import StoreHistory, StoreSnapshot
    from .writes import Draft, Write

__all__ = ["AppNode", "AppParts"]


class AppParts(Protocol):
    """What the screens, dialogs and widgets use of the memtui app, beyond Textual's `App`."""

    POLL_SECONDS: float  # how often the store's state is polled for outside changes
    store: MemoryStore  # the store the app curates (actor "tui")
    scoped: Any  # memtui_core.scopes.Scoped when a project store is open beside it (Browse, Explain), else None
    snapshot: StoreSnapshot | None  # the last read of the entries; every screen redraws from it
    history: StoreHistory | None  # health and audit events, read after the snapshot
    log_scope: str  # with scopes: the store whose logs the Audit, Backups and Injections screens show
    demo: bool  # a temporary demo store
    command: str  # how the shell reaches this store (`memtui --dir DIR`), for commands shown to the person

    def submit(self, write: Write) -> None:
        """Run one change off the UI thread; the answer comes back as a message."""
        ...

    def edit_entry(self, draft: Draft) -> None:
        """Open the editor on a draft (a blank one adds an entry)."""
        ...

    def action_show(self, mode: str) -> None:
        """Switch to a mode (browse, explain, backups, audit, injections, probes)."""
        ...

    def show_audit_for(self, entry_id: str) -> None:
        """The audit screen, filtered on one entry."""
        ...

    def rows_shown(self) -> None:
        """Browse shows its first rows (for the startup measurement)."""
        ...


if TYPE_CHECKING:

    class MemtuiAppType(App[None], AppParts):
        """For the checker only: Textual's `App` with the members above."""


class AppNode(MessagePump):
    """A part of the memtui app: `self.app` has the members of `AppParts`."""

    if TYPE_CHECKING:  # at run time Textual's own `app` property answers, unchanged
        app = getters.app(MemtuiAppType)
