"""Someone else changed the entry while you were working on it: show both, let the person choose."""

from __future__ import annotations

from typing import Literal

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from memtui_core.model import Entry

from ..widgets.fmt import ago, kind_badge
from ..widgets.palette import P
from ..writes import EntryWrite

ConflictChoice = Literal["mine", "theirs", "cancel"]

class ConflictModal(ModalScreen[ConflictChoice]):
    """`m` keeps mine (applies it over the current version), `t` takes theirs, `escape` cancels."""

    BINDINGS = [
        Binding("m", "choose('mine')", "Keep mine", id="conflict.mine"),
        Binding("t", "choose('theirs')", "Take theirs", id="conflict.theirs"),
        Binding("escape", "choose('cancel')", "Cancel", id="conflict.cancel"),
    ]

    def __init__(self, write: EntryWrite, current: Entry | None) -> None:
        super().__init__(classes="modal")
        self.write = write
        self.current = current

    def compose(self) -> ComposeResult:
        entry_id, current = self.write.entry_id, self.current
        what = "deleted" if current is None else "changed"
        with Vertical(classes="dialog", id="conflict-dialog"):
            yield Static(f"Entry {entry_id} was {what} by someone else", classes="dialog-title", markup=False)
            yield Static(
                Text(
                    "You started from the version on the left; the store now holds the one on the right. "
                    "Nothing has been written yet.",
                    style=P.muted,
                ),
            )
            with Horizontal(id="conflict-versions"):
                with VerticalScroll(classes="version", id="version-mine"):
                    yield Static(self._mine(), id="mine")
                with VerticalScroll(classes="version", id="version-theirs"):
                    yield Static(self._theirs(), id="theirs")
            with Horizontal(classes="dialog-buttons"):
                mine_label = self._mine_label()
                yield Button(f"{mine_label} (m)", id="mine-button", variant="warning")
                yield Button("Take theirs (t)", id="theirs-button", variant="primary")
                yield Button("Cancel (esc)", id="cancel-button")

    def _mine_label(self) -> str:
        if self.current is None:
            return "Add mine back" if self.write.add_back() is not None else "Nothing to keep"
        return self.write.mine_label

    def _mine(self) -> RenderableType:
        started = self.write.expected
        kind, text = self.write.yours()
        return Group(
            Text("Yours — you want to " + self.write.verb, style=f"bold {P.warning}"),
            Text(""),
            kind_badge(kind),
            Text(text),
            Text(""),
            Text("You started from:", style=f"bold {P.muted}"),
            kind_badge(started.kind),
            Text(started.text, style=P.muted),
        )

    def _theirs(self) -> RenderableType:
        current = self.current
        title = Text("Theirs — on disk now", style=f"bold {P.primary}")
        if current is None:
            return Group(title, Text(""), Text("The entry has been deleted.", style=f"italic {P.error}"))
        return Group(
            title,
            Text(""),
            kind_badge(current.kind),
            Text(current.text),
            Text(""),
            Text(f"source {current.source or '—'} · saved {ago(current.ts)} · flags {', '.join(current.flags) or 'none'}",
                 style=P.muted),
        )

    def on_mount(self) -> None:
        self.query_one("#theirs-button", Button).focus()

    def action_choose(self, choice: ConflictChoice) -> None:
        self.dismiss(choice)

    @on(Button.Pressed, "#mine-button")
    def _mine_pressed(self) -> None:
        self.dismiss("mine")

    @on(Button.Pressed, "#theirs-button")
    def _theirs_pressed(self) -> None:
        self.dismiss("theirs")

    @on(Button.Pressed, "#cancel-button")
    def _cancel_pressed(self) -> None:
        self.dismiss("cancel")
