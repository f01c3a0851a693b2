"""`?`: every key of the app, grouped by where it works, built from the bindings themselves.

The app hands over the bindings of each part (`memtui.app.help_sections`): this screen imports none
of the screens it lists."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ..widgets.palette import P


class HelpScreen(ModalScreen[None]):
    """Lists the keys of the current screen first, then the rest; `escape` or `?` closes it."""

    BINDINGS = [
        Binding("escape,question_mark,q", "close", "Close", id="help.close"),
    ]

    def __init__(self, sections: list[tuple[str, list[Binding]]]) -> None:
        """`sections`: each title with the bindings of its part, in the order they are listed (the app
        gives them: the current screen first, then the keys that work everywhere, and the rest)."""
        super().__init__(classes="modal")
        self._sections = sections

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="help-dialog"):
            yield Static("Keys", classes="dialog-title")
            with VerticalScroll(id="help-body"):
                yield Static(self.render_keys(), id="help-keys")

    def sections(self) -> list[tuple[str, list[Binding]]]:
        """The keys worth listing: a binding with an id and a description."""
        return [(title, [b for b in bindings if isinstance(b, Binding) and b.id and b.description])
                for title, bindings in self._sections]

    def render_keys(self) -> RenderableType:
        parts: list[RenderableType] = []
        for title, bindings in self.sections():
            table = Table(box=None, show_header=False, padding=(0, 2, 0, 0), expand=True)
            table.add_column(no_wrap=True, min_width=12, style=f"bold {P.warning}")
            table.add_column(no_wrap=True, min_width=16, style="bold")
            table.add_column(style=P.muted, ratio=1)
            for binding in bindings:
                keys = " / ".join(self.app.get_key_display(Binding(k.strip(), "")) for k in binding.key.split(","))
                table.add_row(keys, binding.description, binding.tooltip)
            parts += [Text(title, style="bold underline"), table, Text("")]
        parts.append(Text("ctrl+p opens the command palette with the same actions.", style=f"italic {P.muted}"))
        return Group(*parts)

    def action_close(self) -> None:
        self.dismiss(None)

