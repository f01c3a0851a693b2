"""Choose another kind for an entry: ModalScreen[Kind | None]."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from memtui_core.kinds import Kind
from memtui_core.model import Entry

from ..widgets.fmt import clip, kind_badge
from ..widgets.palette import P

KIND_HINTS = {
    Kind.PREFERENCE: "a stable user preference (evicted last)",
    Kind.CORRECTION: "something the user rejected, and the right way",
    Kind.LESSON: "a pitfall or a proven approach",
    Kind.FACT: "a durable project or environment fact (evicted first)",
}


class ReclassifyModal(ModalScreen[Kind | None]):
    """The four kinds; `1`–`4` or enter picks one, `escape` keeps the current kind."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="reclassify.cancel"),
        Binding("1", "pick(0)", "偏好", show=False),
        Binding("2", "pick(1)", "纠正", show=False),
        Binding("3", "pick(2)", "经验", show=False),
        Binding("4", "pick(3)", "事实", show=False),
    ]

    def __init__(self, entry: Entry, others: int = 0) -> None:
        super().__init__(classes="modal")
        self.entry = entry
        self.others = others  # more marked entries that move with it

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="reclassify-dialog"):
            title = f"Reclassify {self.entry.id}" + (f" and {self.others} more marked" if self.others else "")
            yield Static(title, classes="dialog-title", markup=False)
            yield Static(clip(self.entry.text, 60, "italic"), classes="dialog-subtitle")
            options = []
            for number, kind in enumerate(Kind, start=1):
                prompt = Text(f"{number}  ", style="bold")
                prompt.append_text(kind_badge(kind, width=16))
                prompt.append("  " + KIND_HINTS[kind], style=P.muted)
                if kind is self.entry.kind:
                    prompt.append("  (current)", style="bold")
                options.append(Option(prompt, id=kind.value))
            yield OptionList(*options, id="kind-options")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = list(Kind).index(self.entry.kind)
        options.focus()

    def action_pick(self, index: int) -> None:
        self.dismiss(list(Kind)[index])

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(Kind(event.option.id))
