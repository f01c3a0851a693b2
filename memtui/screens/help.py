"""`?`: every key of the app, grouped by where it works, built from the bindings themselves."""

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

    def __init__(self, current: str) -> None:
        super().__init__(classes="modal")
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="help-dialog"):
            yield Static("Keys", classes="dialog-title")
            with VerticalScroll(id="help-body"):
                yield Static(self.render_keys(), id="help-keys")

    def sections(self) -> list[tuple[str, list[Binding]]]:
        from ..modals.conflict import ConflictModal
        from ..modals.edit import EditModal
        from .audit import AuditScreen
        from .backups import BackupsScreen
        from .browse import BrowseScreen
        from .explain import ExplainScreen
        from .probes import ProbesScreen

        screens = {
            "browse": ("Browse (entries)", BrowseScreen),
            "explain": ("Explain (w)", ExplainScreen),
            "backups": ("Backups (b)", BackupsScreen),
            "audit": ("Audit (a)", AuditScreen),
            "probes": ("Probes (P)", ProbesScreen),
        }
        out = []
        if self.current in screens:
            out.append((screens[self.current][0], _bindings(screens[self.current][1])))
        out.append(("Everywhere", _bindings(type(self.app))))
        out += [(title, _bindings(cls)) for name, (title, cls) in screens.items() if name != self.current]
        out.append(("Editor (e, n)", _bindings(EditModal)))
        out.append(("Conflict", _bindings(ConflictModal)))
        return out

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


def _bindings(node_class: type) -> list[Binding]:
    return [b for b in getattr(node_class, "BINDINGS", []) if isinstance(b, Binding) and b.id and b.description]
