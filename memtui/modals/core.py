"""`c` on Browse: the pinned core, what is in every block whatever the message, and its order.

The core in order (pinned by hand first, then by kind, newest first), its budget, and what does
not fit; `shift+up` and `shift+down` move the selected entry (an entry in the core by its kind is
pinned when moved up, since pins come first), `p` pins or unpins it. Each is an ordinary write
through the app (Pin, Unpin), so the list follows the store as it reloads. Dismisses with the
entry that was selected, which Browse then shows. docs/app.md#the-pinned-core-c.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from memtui_core.model import CoreReport, Entry

from ..messages import StoreSnapshot
from ..node import AppNode
from ..widgets.fmt import kind_badge, one_line
from ..widgets.palette import P
from ..writes import Pin

__all__ = ["CoreModal"]


class CoreModal(AppNode, ModalScreen[str | None]):
    """The pinned core as a list; moving and pinning write at once."""

    BINDINGS = [
        Binding("escape,c", "close", "Close", id="core.close", tooltip="Back to Browse, on the selected entry"),
        Binding("shift+up", "move(-1)", "Move up", id="core.up",
                tooltip="Move the selected entry up the core (one there by its kind is pinned: pins come first)"),
        Binding("shift+down", "move(1)", "Move down", id="core.down",
                tooltip="Move the selected pinned entry down among the pinned ones"),
        Binding("p", "pin_or_unpin", "Pin / unpin", id="core.pin",
                tooltip="Take the selected entry out of the core, or pin one left out or kept out"),
    ]

    def __init__(self) -> None:
        super().__init__(classes="modal")
        self._rows: list[Entry | None] = []  # per option: its entry (None: a heading)
        self._follow: str | None = None  # the entry to select after the next reload (one just moved)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="core-dialog"):
            yield Static("The pinned core: in every block, whatever the message", classes="dialog-title")
            yield Static(id="core-summary", classes="dialog-subtitle")
            yield OptionList(id="core-options")
            yield Static(Text("shift+↑/↓ move · p pin or unpin · escape back", style=P.muted), id="core-keys")

    def on_mount(self) -> None:
        self.watch(self.app, "snapshot", self._refresh, init=True)
        self.query_one(OptionList).focus()

    @property
    def options(self) -> OptionList:
        return self.query_one("#core-options", OptionList)

    def selected(self) -> Entry | None:
        index = self.options.highlighted
        return self._rows[index] if index is not None and 0 <= index < len(self._rows) else None

    # ------------------------------------------------------------------ drawing

    def _refresh(self, snapshot: StoreSnapshot | None) -> None:
        core = snapshot.core if snapshot is not None else None
        keep = self._follow or (entry.id if (entry := self.selected()) else None)
        self._follow = None
        summary = self.query_one("#core-summary", Static)
        options = self.options
        options.clear_options()
        self._rows = []
        if core is None:
            summary.update(Text("Reading the store…", style="dim italic"))
            return
        if core.budget <= 0:
            summary.update(Text("This profile has no pinned core (core_budget 0): no entry is in every block.",
                                style=P.warning))
            return
        summary.update(_summary(core))
        self._add_heading(f"In every block ({len(core.entries)})")
        for number, member in enumerate(core.entries, start=1):
            self._add_entry(member.entry, f"{number:>2}", "pinned" if member.how == "pinned" else "by kind",
                            member.chars)
        if core.left_out:
            self._add_heading(f"Left out for the budget ({len(core.left_out)}): retrieved only when relevant",
                              P.warning)
            for member in core.left_out:
                self._add_entry(member.entry, " –", "pinned" if member.how == "pinned" else "by kind", member.chars)
        if core.blocked:
            self._add_heading(f"Pinned but blocked by the threat scan ({len(core.blocked)}): approve them on Browse",
                              P.error)
            for entry in core.blocked:
                self._add_entry(entry, " –", "blocked", len(entry.text))
        if core.kept_out:
            self._add_heading(f"Kept out by hand ({len(core.kept_out)}): p puts one back")
            for entry in core.kept_out:
                self._add_entry(entry, " –", "kept out", len(entry.text))
        ids = [entry.id if entry else None for entry in self._rows]
        if keep is not None and keep in ids:
            self._highlight(ids.index(keep))
        elif any(self._rows):
            self._highlight(next(i for i, entry in enumerate(self._rows) if entry is not None))

    def _highlight(self, index: int) -> None:
        """Highlight row `index`, now and once the list has laid out its new options (it moves the
        highlight to its first row when it is shown)."""
        options = self.options
        options.highlighted = index
        self.call_after_refresh(setattr, options, "highlighted", index)

    def _add_heading(self, title: str, style: str = "") -> None:
        self.options.add_option(Option(Text(title, style=f"bold underline {style}".strip()), disabled=True))
        self._rows.append(None)

    def _add_entry(self, entry: Entry, number: str, how: str, chars: int) -> None:
        line = Text(f"{number}  ", style="bold")
        line.append_text(kind_badge(entry.kind, english=False))
        line.append(f"  {how:<8} ", style=f"bold {P.primary}" if how == "pinned" else P.muted)
        line.append(f"{chars:>4} ", style=P.muted)
        line.append(one_line(entry.text)[:200])
        self.options.add_option(Option(line, id=entry.id))
        self._rows.append(entry)

    # ------------------------------------------------------------------ actions

    def action_close(self) -> None:
        entry = self.selected()
        self.dismiss(entry.id if entry else None)

    def action_move(self, step: int) -> None:
        entry = self.selected()
        snapshot = self.app.snapshot
        if entry is None or snapshot is None or snapshot.core is None:
            return
        pinned = [m.entry.id for m in snapshot.core.entries if m.how == "pinned"]
        place = snapshot.core_place(entry.id)
        if place is None or place[0] not in ("pinned", "kind"):
            self.notify("Only an entry in the core moves: p pins this one first.", title="Core")
            return
        if place[0] == "kind":
            if step > 0:
                self.notify("Entries in the core by their kind follow newest first; move one up to pin it.",
                            title="Core")
                return
            position = len(pinned)  # pinned by hand, after the other pins: above every entry by kind
        else:
            at = pinned.index(entry.id)
            position = at + step
            if not 0 <= position < len(pinned):
                edge = "first" if step < 0 else "the last pinned entry (entries by kind follow, newest first)"
                self.notify(f"It is {edge} already.", title="Core")
                return
        self._follow = entry.id
        self.app.submit(Pin(entry.id, entry, position=position))

    def action_pin_or_unpin(self) -> None:
        from ..screens.entry_actions import toggle_pin

        entry = self.selected()
        if entry is None or self.app.snapshot is None:
            return
        self._follow = entry.id
        toggle_pin(self, entry, approve_key="A on Browse")


def _summary(core: CoreReport) -> Text:
    text = Text()
    text.append(f"{core.used}/{core.budget} characters", style="bold")
    text.append(f" of lines in every block · {len(core.entries)} entries · pins first, then "
                f"{', '.join(core.kinds) or 'nothing by kind'} newest first", style=P.muted)
    if core.left_out:
        text.append(f" · {len(core.left_out)} left out for the budget", style=f"bold {P.warning}")
    return text
