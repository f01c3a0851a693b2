"""Write or rewrite one memory: ModalScreen[EditResult | None].

The form: the kind, the text and the keywords. Under it, `EditChecks` (edit_checks.py) says while
the person types how long the stored text will be, which entry it would be deduped against, what
the threat scan finds, which probes the change would break, and, for a new memory in a full store,
what saving would evict; saving asks first when that is more than one. If the entry changes on disk
meanwhile, the editor says so and stays open; the save itself checks for the conflict.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Group
from rich.text import Text
from textual import events, getters, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, RadioButton, RadioSet, Static, TextArea

from memtui_core.kinds import Kind
from memtui_core.model import Entry

from ..node import AppNode
from ..typeahead import forward
from ..widgets.fmt import kind_badge, kind_label, user_language
from ..widgets.palette import P
from .confirm import ConfirmModal
from .edit_checks import EditChecks, EditDraft, MemoryText
from .keywords import split_keywords

__all__ = ["EditModal", "EditResult", "KindChoice", "MemoryText"]


@dataclass(frozen=True)
class EditResult:
    text: str
    kind: Kind
    keywords: list[str] | None = None  # the keywords to store (None: the editor did not change them)


class KindChoice(RadioSet):
    """The four kinds. Typing here starts the text instead of being lost: the first letter moves
    to the text box and every key already on its way follows it there (spaces included)."""

    TAKES_TYPING = True  # keys typed ahead of the editor's opening come here (MemtuiApp._on_key)

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


class EditModal(AppNode, ModalScreen[EditResult | None]):
    """`ctrl+s` saves, `escape` cancels; `tab` moves between the kind (arrows, enter) and the text."""

    TAKES_TYPING = True  # until its form has the focus, keys typed ahead come to the screen itself
    text_area = getters.query_one("#edit-text", TextArea)
    kind_choice = getters.query_one("#edit-kind", RadioSet)
    keywords_input = getters.query_one("#edit-keywords", Input)
    checks = getters.query_one(EditChecks)

    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="edit.save", priority=True),
        Binding("escape", "cancel", "Cancel", id="edit.cancel"),
    ]

    def __init__(self, entry: Entry | None, text: str | None = None, kind: Kind | None = None,
                 keywords: list[str] | None = None) -> None:
        super().__init__(classes="modal")
        self.entry = entry
        self.initial_text = text if text is not None else (entry.text if entry else "")
        self.initial_kind = kind or (entry.kind if entry else Kind.FACT)
        self.validator = MemoryText()
        self.initial_keywords = list(entry.keywords) if entry is not None else []  # what is stored
        self.shown_keywords = list(keywords) if keywords is not None else self.initial_keywords

    def compose(self) -> ComposeResult:
        title = f"Edit memory {self.entry.id}" if self.entry else "Add a memory"
        keywords = ", ".join(self.shown_keywords)
        with Vertical(classes="dialog", id="edit-dialog"):
            yield Static(title, classes="dialog-title", markup=False)
            with KindChoice(id="edit-kind"):
                # four labels of "偏好 preference" need the room; narrower, each in the person's language
                both = self.app.size.width >= 100
                lang = user_language(getattr(self.app.store, "lang", None))
                for kind in Kind:
                    yield RadioButton(kind_badge(kind) if both else kind_label(kind, lang),
                                      value=kind is self.initial_kind, id=f"kind-{kind.value}")
            yield TextArea(self.initial_text, id="edit-text", soft_wrap=True, show_line_numbers=False)
            yield Input(keywords, id="edit-keywords",
                        placeholder="keywords: other words it should be found by, comma-separated")
            draft = EditDraft(self.initial_text, self.initial_kind, tuple(split_keywords(keywords)))
            yield EditChecks(self.entry, draft, self.initial_keywords)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Save (ctrl+s)", id="save", variant="primary")
                yield Button("Cancel (esc)", id="cancel")

    def on_mount(self) -> None:
        area = self.text_area
        area.move_cursor(area.document.end)
        kinds = self.kind_choice
        kinds._selected = list(Kind).index(self.initial_kind)  # highlight the pressed kind, not the first
        # at once, not after a refresh: keys typed in the same burst as `n` or `e` are on their way
        if self.entry is None:
            self.set_focus(kinds)  # a new memory starts with its kind
        else:
            self.set_focus(area)

    def on_key(self, event: events.Key) -> None:
        """A key that reached the screen itself (typed before its form had the focus) goes to the
        widget that has it now; a printable one with no focus yet, to the text."""
        if getattr(event, "_memtui_sent_to", None) is not self:
            return  # a key of the form's widgets, on its way up
        focused = self.focused
        if focused is not None:
            event.stop()
            event.prevent_default()
            forward(focused, event)
        elif event.is_printable and event.character:
            event.stop()
            event.prevent_default()
            self.text_area.insert(event.character)

    # ------------------------------------------------------------------ the form

    @property
    def text(self) -> str:
        return self.text_area.text

    @property
    def kind(self) -> Kind:
        pressed = self.kind_choice.pressed_button
        if pressed is None or pressed.id is None:
            return self.initial_kind
        return Kind(pressed.id.removeprefix("kind-"))

    @property
    def typed_keywords(self) -> list[str]:
        return split_keywords(self.keywords_input.value)

    @property
    def probe_breaks(self) -> list:
        """The probes that pass now and that saving this would break."""
        return self.checks.probe_breaks

    def draft(self) -> EditDraft:
        return EditDraft(self.text, self.kind, tuple(self.typed_keywords))

    @on(RadioSet.Changed, "#edit-kind")
    def _kind_changed(self) -> None:
        self.checks.changed(self.draft())  # what saving evicts, and the probes it breaks, depend on the kind

    @on(Input.Changed, "#edit-keywords")
    def _keywords_changed(self) -> None:
        self.checks.changed(self.draft())

    @on(Input.Submitted, "#edit-keywords")
    def _keywords_submitted(self) -> None:
        self.action_save()

    @on(TextArea.Changed, "#edit-text")
    def _text_changed(self) -> None:
        self.checks.changed(self.draft(), text=True)

    # ------------------------------------------------------------------ closing

    def action_save(self) -> None:
        checks = self.checks
        result = self.validator.validate(self.text)
        if not result.is_valid:
            checks.touch()
            self.text_area.focus()
            return
        keywords, _lines, refused = checks.keyword_check()
        if refused:
            self.keywords_input.focus()
            self.app.bell()
            return
        edit = EditResult(self.text.strip(), self.kind, keywords if keywords != self.initial_keywords else None)
        evicts = checks.evictions()
        if evicts <= 1:  # one eviction at the limit is the store working as designed
            self.dismiss(edit)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.dismiss(edit)

        body = Group(
            checks.eviction_warning(evicts),
            Text(""),
            Text("Every evicted entry is in the backup taken before the write, and in the audit log.", style=P.muted),
        )
        self.app.push_screen(ConfirmModal(f"Evict {evicts} entries to save this?", body, yes="Save", danger=True),
                             answered)

    def changed(self) -> bool:
        """Whether closing now would lose something the person typed or chose: the text, the kind of
        an entry, or its keywords (typed ones, or ones given back after a failed save)."""
        entry = self.entry
        keywords = self.typed_keywords != self.initial_keywords
        if entry is None:
            return bool(self.text.strip()) or keywords  # a kind alone is no loss
        return self.text.strip() != entry.text.strip() or self.kind is not entry.kind or keywords

    def unsaved(self) -> str | None:
        """What closing now would lose, in words (`your changes to ID`), or None when nothing would be."""
        if not self.changed():
            return None
        return "this new memory" if self.entry is None else f"your changes to {self.entry.id}"

    def action_cancel(self) -> None:
        if not self.changed():
            self.dismiss(None)
            return

        def answered(discard: bool | None) -> None:
            if discard:
                self.dismiss(None)
            else:
                self.text_area.focus()

        body = Text(f"Closing the editor now loses {self.unsaved()}. Nothing has been saved.")
        self.app.push_screen(ConfirmModal("Discard what you typed?", body, yes="Discard", danger=True), answered)

    @on(Button.Pressed, "#save")
    def _save_pressed(self) -> None:
        self.action_save()

    @on(Button.Pressed, "#cancel")
    def _cancel_pressed(self) -> None:
        self.action_cancel()
