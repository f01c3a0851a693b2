"""The header line of every screen: where the store is, how full it is, and what needs attention."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ..messages import StoreHistory, StoreSnapshot
from ..node import AppNode
from .palette import P


class StatusBar(AppNode, Static):
    """`memtui Browse │ ~/…/memory.json │ 37/500`, then one `⚠` line per warning from store.health()."""

    def __init__(self, title: str, logs: bool = False) -> None:
        super().__init__(id="status-bar")
        self.title = title
        self.logs = logs  # a log screen's: with scopes, the title and the path are the shown scope's (memtui/scopes.py)

    def on_mount(self) -> None:
        self.watch(self.app, "snapshot", self._refresh_bar, init=True)
        self.watch(self.app, "history", self._refresh_bar, init=True)

    def on_resize(self) -> None:
        self._refresh_bar()

    def _refresh_bar(self, _value: object = None) -> None:
        app = self.app
        snapshot, history = app.snapshot, app.history
        title, where = self.title, app.store.storage.where
        if self.logs and app.scoped is not None:
            from ..scopes import log_store, log_title

            title, where = log_title(app, title), log_store(app).storage.where
        elif app.scoped is not None and app.scoped.project is not None:  # both stores: the project's, then global
            where = f"{app.scoped.project.storage.where} + global"
        self.update(render_status(title, snapshot, history, app.demo, where, self.size.width or app.size.width))
        self.set_class(bool(status_warnings(snapshot, history)), "-warning")


# what the first line holds besides the path: " memtui  Title  DEMO  │ … │ 500/500 │ read-only"
_ROOM_BESIDES_PATH = 44


def render_status(
    title: str, snapshot: StoreSnapshot | None, history: StoreHistory | None, demo: bool, path: str,
    width: int | None = None,
) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis", end="")
    # line 1: where and how full; then one line per warning from store.health()
    text.append(" memtui ", style="bold reverse")
    text.append(f" {title} ", style="bold")
    if demo:
        text.append(" DEMO ", style=f"bold {P.on_pin}")
        text.append(" ")
    text.append("│ ", style="dim")
    shown = _short_path(path)
    if width is not None:  # the count after the path matters more than the path's first folders
        shown = _fit_path(shown, max(12, width - _ROOM_BESIDES_PATH - len(title)))
    text.append(shown, style="italic")
    if history is not None and not history.health.exists:
        text.append(" (not created yet)", style="dim")
    text.append(" │ ", style="dim")
    if snapshot is None:
        text.append("loading…", style="dim")
        return text
    count, cap = len(snapshot.entries), snapshot.max_entries
    full_style = f"bold {P.error}" if count >= cap else f"bold {P.warning}" if count >= cap * 0.9 else "bold"
    text.append(f"{count}/{cap}", style=full_style)
    core = snapshot.core
    if core is not None and core.budget > 0:
        text.append(" │ ", style="dim")
        text.append(f"core {len(core.entries)} · {core.used}/{core.budget}", style="bold")
        if core.left_out:
            text.append(f" · {len(core.left_out)} left out", style=f"bold {P.warning}")
    if history is None:
        return text
    health = history.health
    if not health.writable:
        text.append(" │ ", style="dim")
        text.append("read-only", style=f"bold {P.warning}")
    for warning in status_warnings(snapshot, history):
        text.append("\n")
        text.append(" ⚠ " + warning, style=P.warning_line)
    return text


def status_warnings(snapshot: StoreSnapshot | None, history: StoreHistory | None) -> list[str]:
    """The store's health warnings, as the core words them."""
    if history is None:
        return []
    return [warning.text for warning in history.health.warnings]


def _fit_path(path: str, room: int) -> str:
    """`path` in at most `room` cells: its last folders, after `…/`, when the whole does not fit."""
    from rich.cells import cell_len

    if cell_len(path) <= room:
        return path
    tail = path
    while cell_len(tail) > room - 2 and "/" in tail.strip("/"):
        tail = tail.split("/", 1)[1] if not tail.startswith("/") else tail[1:].split("/", 1)[-1]
    return "…/" + tail if cell_len(tail) <= room - 2 else "…" + path[-(room - 1):]


def _short_path(path: str) -> str:
    from pathlib import Path

    home = str(Path.home())
    return "~" + path[len(home) :] if home != "/" and path.startswith(home + "/") else path
