"""A yes/no question: ModalScreen[bool]."""

from __future__ import annotations

from rich.console import RenderableType
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class ConfirmModal(ModalScreen[bool]):
    """Ask before something that changes the store; `y` confirms, `n` or `escape` declines."""

    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(self, title: str, body: RenderableType, yes: str = "Yes", danger: bool = False) -> None:
        super().__init__(classes="modal")
        self.title_text = title
        self.body = body
        self.yes = yes
        self.danger = danger

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="confirm-dialog"):
            yield Static(self.title_text, classes="dialog-title", markup=False)
            with VerticalScroll(classes="dialog-body"):
                yield Static(self.body, id="confirm-body")
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"{self.yes} (y)", id="yes", variant="error" if self.danger else "primary")
                yield Button("Cancel (n)", id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)

    @on(Button.Pressed, "#yes")
    def _yes(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#no")
    def _no(self) -> None:
        self.dismiss(False)


async def quit_or_ask(app: App) -> None:
    """Quit at once, unless a screen on the stack (the editor) says closing would lose something
    (`unsaved()`); then ask first, naming what."""
    unsaved = [what for screen in app.screen_stack
               if callable(check := getattr(screen, "unsaved", None)) and (what := check())]
    if not unsaved:
        app.exit()
        return
    if isinstance(app.screen, ConfirmModal):
        return  # already asking

    def answered(quit: bool | None) -> None:
        if quit:
            app.exit()

    body = f"Quitting now loses {', '.join(unsaved)}. Nothing has been saved."
    app.push_screen(ConfirmModal("Quit without saving?", body, yes="Quit", danger=True), answered)
