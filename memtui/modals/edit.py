"""Write or rewrite one memory: ModalScreen[EditResult | None].

While the person types, the core's `check_text` says how long the stored text will be, which
entry it would be deduped against, and what the threat scan finds; for a new memory in a full
store, the editor also says what saving would evict, and asks first when that is more than one.
If the entry changes on disk meanwhile, the editor says so and stays open; the save itself checks
for the conflict.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Group
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.validation import ValidationResult, Validator
from textual.widgets import Button, RadioButton, RadioSet, Static, TextArea

from memtui_core.kinds import Kind
from memtui_core.model import Entry, TextCheck

from ..messages import TextChecked
from ..widgets.fmt import clip, kind_badge, kind_name
from .confirm import ConfirmModal
from ..widgets.palette import P

CHECK_DELAY = 0.12


@dataclass(frozen=True)
class EditResult:
    text: str
    kind: Kind


class MemoryText(Validator):
    """A memory needs some text; longer than the limit is allowed (it is cut) but warned about."""

    def validate(self, value: str) -> ValidationResult:
        if not value.strip():
            return self.failure("The text is empty: write the memory, or press escape to cancel.")
        return self.success()


class KindChoice(RadioSet):
    """The four kinds. Typing here starts the text instead of being lost: the first letter moves
    to the text box and every key already on its way follows it there (spaces included)."""

    def __init__(self, *buttons: RadioButton, **kwargs) -> None:
        super().__init__(*buttons, **kwargs)
        self.typing = False

    def on_focus(self) -> None:
        self.typing = False  # back on the kinds on purpose: space picks a kind again

    def on_key(self, event: events.Key) -> None:
        character = event.character
        if not event.is_printable or not character or (character == " " and not self.typing):
            return
        self.typing = True
        area = self.screen.query_one("#edit-text", TextArea)
        self.screen.set_focus(area)  # at once, so the next keys go straight to the text
        area.insert(character)
        event.stop()
        event.prevent_default()

    def on_paste(self, event: events.Paste) -> None:
        """A paste is text too: it goes to the text box, not nowhere."""
        if not event.text:
            return
        self.typing = True
        area = self.screen.query_one("#edit-text", TextArea)
        self.screen.set_focus(area)
        area.insert(event.text)
        event.stop()
        event.prevent_default()


class EditModal(ModalScreen[EditResult | None]):
    """`ctrl+s` saves, `escape` cancels; `tab` moves between the kind (arrows, enter) and the text."""

    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="edit.save", priority=True),
        Binding("escape", "cancel", "Cancel", id="edit.cancel"),
    ]

    def __init__(self, entry: Entry | None, text: str | None = None, kind: Kind | None = None) -> None:
        super().__init__(classes="modal")
        self.entry = entry
        self.initial_text = text if text is not None else (entry.text if entry else "")
        self.initial_kind = kind or (entry.kind if entry else Kind.FACT)
        self.validator = MemoryText()
        self.check: TextCheck | None = None
        self.disk_notice: Text | None = None
        self._timer: Timer | None = None
        self._touched = bool(self.initial_text)  # say "empty" only once there was text, or on save

    def compose(self) -> ComposeResult:
        title = f"Edit memory {self.entry.id}" if self.entry else "Add a memory"
        with Vertical(classes="dialog", id="edit-dialog"):
            yield Static(title, classes="dialog-title", markup=False)
            with KindChoice(id="edit-kind"):
                english = self.app.size.width >= 100  # four labels of "偏好 preference" need the room
                for kind in Kind:
                    yield RadioButton(kind_badge(kind, english=english), value=kind is self.initial_kind,
                                      id=f"kind-{kind.value}")
            yield TextArea(self.initial_text, id="edit-text", soft_wrap=True, show_line_numbers=False)
            yield Static(id="edit-count")
            yield Static(id="edit-warnings")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Save (ctrl+s)", id="save", variant="primary")
                yield Button("Cancel (esc)", id="cancel")

    def on_mount(self) -> None:
        area = self.query_one("#edit-text", TextArea)
        area.move_cursor(area.document.end)
        kinds = self.query_one("#edit-kind", RadioSet)
        kinds._selected = list(Kind).index(self.initial_kind)  # highlight the pressed kind, not the first
        if self.entry is None:
            self.query_one("#edit-kind", RadioSet).focus()  # a new memory starts with its kind
        else:
            area.focus()
        self._update_count()
        self._schedule_check()
        if self.entry is not None:
            # init: an editor reopened on a version that is already stale says so at once
            self.watch(self.app, "snapshot", self._snapshot_changed, init=True)

    # ------------------------------------------------------------------ live checks

    @property
    def text(self) -> str:
        return self.query_one("#edit-text", TextArea).text

    @property
    def kind(self) -> Kind:
        pressed = self.query_one("#edit-kind", RadioSet).pressed_button
        if pressed is None or pressed.id is None:
            return self.initial_kind
        return Kind(pressed.id.removeprefix("kind-"))

    @on(RadioSet.Changed, "#edit-kind")
    def _kind_changed(self) -> None:
        self._update_count()  # what saving evicts depends on the kind

    @on(TextArea.Changed, "#edit-text")
    def _text_changed(self) -> None:
        self._touched = True
        self._update_count()
        self._schedule_check()

    def _schedule_check(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(CHECK_DELAY, lambda: self._run_check(self.text))

    @work(thread=True, exclusive=True, group="edit-check", exit_on_error=False)
    def _run_check(self, text: str) -> None:
        if not text.strip():
            return
        exclude = self.entry.id if self.entry else None
        self.post_message(TextChecked(text, self.app.store.check_text(text, exclude_id=exclude)))

    def on_text_checked(self, message: TextChecked) -> None:
        if message.text == self.text:
            self.check = message.check
            self._update_count()

    def _update_count(self) -> None:
        text = self.text.strip()
        limit = self.app.store.limits.max_text
        length = len(text)
        count = Text(f"{length}/{limit}", style=f"bold {P.error}" if length > limit else "bold")
        count.append(" characters", style=P.muted)
        if length > limit:
            count.append(f"  — {length - limit} over: the text will be cut to {limit}", style=P.error)
        self.query_one("#edit-count", Static).update(count)
        self.query_one("#edit-warnings", Static).update(Group(*self.warnings()))

    def evictions(self) -> int:
        """How many entries saving this new memory would evict: the store keeps at most max_entries."""
        snapshot = getattr(self.app, "snapshot", None)
        if self.entry is not None or snapshot is None:
            return 0
        if self.check is not None and self.check.duplicate_of is not None:
            return 0  # a duplicate refreshes the entry it matches; nothing is added
        return max(0, len(snapshot.entries) + 1 - snapshot.max_entries)

    def _eviction_warning(self, evicts: int) -> Text:
        snapshot = self.app.snapshot  # type: ignore[attr-defined]
        count, cap = len(snapshot.entries), snapshot.max_entries
        # the new entry is the newest of its kind: it goes after every entry of its kind or a more evictable one
        rank = self.kind.eviction_rank
        position = 1 + sum(1 for entry in snapshot.entries if entry.kind.eviction_rank >= rank)
        if position <= evicts:
            return Text(
                f"⚠ The store is full ({count}/{cap}) and a new {kind_name(self.kind)} is the next to go: "
                "it would be evicted at once. Free a place first, or choose a kind that is kept longer.",
                style=f"bold {P.warning}",
            )
        if evicts == 1:
            first = next((e for e in snapshot.entries if snapshot.eviction.get(e.id) == 1), None)
            line = Text(f"⚠ The store is full ({count}/{cap}): saving evicts the next to go", style=P.warning)
            if first is not None:
                line.append(f", {first.id} ")
                line.append_text(clip(first.text, 40, f"italic {P.warning}"))
            return line
        return Text(
            f"⚠ The store is over its limit ({count}/{cap}): saving evicts {evicts} entries, "
            "facts first, oldest first",
            style=f"bold {P.warning}",
        )

    def warnings(self) -> list[Text]:
        lines: list[Text] = []
        if self.disk_notice is not None:
            lines.append(self.disk_notice)
        result = self.validator.validate(self.text)
        if not result.is_valid:
            if self._touched:
                lines.extend(Text("✗ " + d, style=P.error) for d in result.failure_descriptions)
            return lines
        evicts = self.evictions()
        if evicts:
            lines.append(self._eviction_warning(evicts))
        check = self.check
        if check is None or not self.text.strip():
            return lines
        if check.duplicate_of is not None:
            other = check.duplicate_of
            what = (
                "Saving adds nothing new: it matches"
                if self.entry is None
                else "Another entry says the same:"
            )
            line = Text(f"≈ {what} {other.id} ", style=P.warning)
            line.append_text(clip(other.text, 50, f"italic {P.warning}"))
            if self.entry is None:
                line.append(" (its time is refreshed instead)", style=P.warning)
            lines.append(line)
        for finding in check.findings:
            category = finding.get("category", "")
            reason = finding.get("reason") or finding.get("rule") or category
            if category == "secret":
                lines.append(Text(f"🔑 secret: {reason} — it will be stored as [REDACTED]", style=P.warning))
            else:
                lines.append(
                    Text(f"⛔ {category}: {reason} — saved but blocked until a person approves it", style=P.error)
                )
        return lines

    def _snapshot_changed(self, snapshot) -> None:
        if snapshot is None or self.entry is None:
            return
        current = snapshot.by_id(self.entry.id)
        if current is None:
            self.disk_notice = Text(
                "! This entry was deleted on disk while you were editing; saving will ask what to do.",
                style=f"bold {P.warning}",
            )
        elif current != self.entry:
            self.disk_notice = Text(
                "! This entry changed on disk while you were editing; saving will show both versions.",
                style=f"bold {P.warning}",
            )
        else:
            self.disk_notice = None
        self._update_count()

    # ------------------------------------------------------------------ closing

    def action_save(self) -> None:
        result = self.validator.validate(self.text)
        if not result.is_valid:
            self._touched = True
            self._update_count()
            self.query_one("#edit-text", TextArea).focus()
            return
        edit = EditResult(self.text.strip(), self.kind)
        evicts = self.evictions()
        if evicts <= 1:  # one eviction at the limit is the store working as designed
            self.dismiss(edit)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.dismiss(edit)

        body = Group(
            self._eviction_warning(evicts),
            Text(""),
            Text("Every evicted entry is in the backup taken before the write, and in the audit log.", style=P.muted),
        )
        self.app.push_screen(ConfirmModal(f"Evict {evicts} entries to save this?", body, yes="Save", danger=True),
                             answered)

    def changed(self) -> bool:
        """Whether closing now would lose something the person typed or chose."""
        entry = self.entry
        if entry is None:
            return bool(self.text.strip())  # a kind alone is no loss; text given back after a failure is
        return self.text.strip() != entry.text.strip() or self.kind is not entry.kind

    def action_cancel(self) -> None:
        if not self.changed():
            self.dismiss(None)
            return

        def answered(discard: bool | None) -> None:
            if discard:
                self.dismiss(None)
            else:
                self.query_one("#edit-text", TextArea).focus()

        what = "this new memory" if self.entry is None else f"your changes to {self.entry.id}"
        body = Text(f"Closing the editor now loses {what}. Nothing has been saved.")
        self.app.push_screen(ConfirmModal("Discard what you typed?", body, yes="Discard", danger=True), answered)

    @on(Button.Pressed, "#save")
    def _save_pressed(self) -> None:
        self.action_save()

    @on(Button.Pressed, "#cancel")
    def _cancel_pressed(self) -> None:
        self.action_cancel()
