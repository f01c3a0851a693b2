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
from textual import events, getters, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.validation import ValidationResult, Validator
from textual.widgets import Button, Input, RadioButton, RadioSet, Static, TextArea

from memtui_core.kinds import Kind
from memtui_core.model import Entry, TextCheck

from ..node import AppNode
from ..debounce import Debounce
from ..messages import ProbesChecked, TextChecked
from ..widgets.fmt import clip, kind_badge, kind_name
from .confirm import ConfirmModal
from ..widgets.palette import P

CHECK_DELAY = 0.12
PROBE_CHECK_DELAY = 0.3  # what a change would do to the probes: rank every probe's query twice


@dataclass(frozen=True)
class EditResult:
    text: str
    kind: Kind
    keywords: list[str] | None = None  # the keywords to store (None: the editor did not change them)


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


class EditModal(AppNode, ModalScreen[EditResult | None]):
    """`ctrl+s` saves, `escape` cancels; `tab` moves between the kind (arrows, enter) and the text."""
    text_area = getters.query_one("#edit-text", TextArea)
    kind_choice = getters.query_one("#edit-kind", RadioSet)


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
        self.check: TextCheck | None = None
        self.disk_notice: Text | None = None
        self._check_later = Debounce(self, CHECK_DELAY, lambda: self._run_check(self.text))
        self._touched = bool(self.initial_text)  # say "empty" only once there was text, or on save
        self.initial_keywords = list(entry.keywords) if entry is not None else []  # what is stored
        self.shown_keywords = list(keywords) if keywords is not None else self.initial_keywords
        self.probe_breaks: list = []  # probes that pass now and that this change would break
        self._probe_check_later = Debounce(self, PROBE_CHECK_DELAY, self._check_probes)

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
            yield Input(", ".join(self.shown_keywords), id="edit-keywords",
                        placeholder="keywords: other words it should be found by, comma-separated")
            yield Static(id="edit-count")
            yield Static(id="edit-warnings")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Save (ctrl+s)", id="save", variant="primary")
                yield Button("Cancel (esc)", id="cancel")

    def on_mount(self) -> None:
        area = self.text_area
        area.move_cursor(area.document.end)
        kinds = self.kind_choice
        kinds._selected = list(Kind).index(self.initial_kind)  # highlight the pressed kind, not the first
        if self.entry is None:
            self.kind_choice.focus()  # a new memory starts with its kind
        else:
            area.focus()
        self._update_count()
        self._check_later.poke()
        if self.entry is not None:
            # init: an editor reopened on a version that is already stale says so at once
            self.watch(self.app, "snapshot", self._snapshot_changed, init=True)
        self._probe_check_later.poke()

    # ------------------------------------------------------------------ live checks

    @property
    def text(self) -> str:
        return self.text_area.text

    @property
    def kind(self) -> Kind:
        pressed = self.kind_choice.pressed_button
        if pressed is None or pressed.id is None:
            return self.initial_kind
        return Kind(pressed.id.removeprefix("kind-"))

    @on(RadioSet.Changed, "#edit-kind")
    def _kind_changed(self) -> None:
        self._update_count()  # what saving evicts depends on the kind
        self._probe_check_later.poke()

    # ------------------------------------------------------------------ keywords and probes

    @property
    def typed_keywords(self) -> list[str]:
        from .keywords import split_keywords

        return split_keywords(self.query_one("#edit-keywords", Input).value)

    def keyword_check(self) -> tuple[list[str], list[Text], bool]:
        """The keywords saving would store, the guards' effect on what was typed, and whether the
        engine would refuse them."""
        from .keywords import keyword_effects

        return keyword_effects(self.typed_keywords, self.app.store.limits)

    @on(Input.Changed, "#edit-keywords")
    def _keywords_changed(self) -> None:
        self._update_count()
        self._probe_check_later.poke()

    @on(Input.Submitted, "#edit-keywords")
    def _keywords_submitted(self) -> None:
        self.action_save()

    def _probe_key(self) -> tuple:
        return (self.text.strip(), self.kind, tuple(self.keyword_check()[0]))

    def _check_probes(self) -> None:
        key = self._probe_key()
        if not key[0]:
            return
        self._run_probe_check(key)

    @work(thread=True, exclusive=True, group="edit-probes", exit_on_error=False)
    def _run_probe_check(self, key: tuple) -> None:
        from memtui_core.probes import ProbesUnreadable, load_probes, would_break

        store = self.app.store
        try:
            probes = load_probes(store).probes
        except ProbesUnreadable:
            return
        text, kind, keywords = key
        entry_id = self.entry.id if self.entry is not None else None  # None: a new memory would be added
        breaks = would_break(store, entry_id, probes, text=text, kind=kind, fields={"keywords": list(keywords)})
        self.post_message(ProbesChecked(key, breaks))

    def on_probes_checked(self, message: ProbesChecked) -> None:
        if message.key == self._probe_key():
            self.probe_breaks = list(message.breaks)
            self._update_count()

    def _known(self, entry_id: str) -> bool:
        snapshot = self.app.snapshot
        return snapshot is not None and snapshot.by_id(entry_id) is not None

    def _probe_warnings(self) -> list[Text]:
        lines = []
        for broken in self.probe_breaks[:3]:
            probe, after = broken.probe, broken.after
            miss = after.misses[0] if after.misses else None
            if probe.expects_nothing:
                known = self.entry is not None or (miss is not None and self._known(miss.id))
                who = miss.id if miss is not None and known else "this new memory"
                what = f"it expects nothing and {who} would be injected"
            else:
                what = f"it expects {miss.id if miss else probe.expect[0]}, which would be {miss.status if miss else 'missed'}"
            line = Text(f"⚠ breaks probe {probe.id} “", style=f"{P.warning}")
            line.append_text(clip(probe.query, 30, f"italic {P.warning}"))
            line.append(f"”: {what}", style=f"{P.warning}")
            lines.append(line)
        if len(self.probe_breaks) > 3:
            lines.append(Text(f"⚠ and {len(self.probe_breaks) - 3} more probes (P shows them all)", style=f"{P.warning}"))
        return lines

    @on(TextArea.Changed, "#edit-text")
    def _text_changed(self) -> None:
        self._touched = True
        self._update_count()
        self._check_later.poke()
        self._probe_check_later.poke()

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
        snapshot = self.app.snapshot
        if self.entry is not None or snapshot is None:
            return 0
        if self.check is not None and self.check.duplicate_of is not None:
            return 0  # a duplicate refreshes the entry it matches; nothing is added
        return max(0, len(snapshot.entries) + 1 - snapshot.max_entries)

    def _keyword_lines(self) -> list[Text]:
        typed = self.typed_keywords
        if not typed and not self.initial_keywords:
            return []
        kept, lines, _refused = self.keyword_check()
        limit = self.app.store.limits.max_keywords
        head = Text(f"{len(kept)}/{limit} keywords", style=f"{P.muted}")
        if kept != typed:
            head.append(" stored: ", style=f"{P.muted}")
            head.append(", ".join(kept) or "none")
        return [head, *lines]

    def _eviction_warning(self, evicts: int) -> Text:
        snapshot = self.app.snapshot
        assert snapshot is not None  # evictions() counts none before the store is read
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
        lines += self._keyword_lines()
        lines += self._probe_warnings()
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
        self._probe_check_later.poke()
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
            self.text_area.focus()
            return
        keywords, _lines, refused = self.keyword_check()
        if refused:
            self.query_one("#edit-keywords", Input).focus()
            self.app.bell()
            return
        edit = EditResult(self.text.strip(), self.kind, keywords if keywords != self.initial_keywords else None)
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
                self.text_area.focus()

        what = "this new memory" if self.entry is None else f"your changes to {self.entry.id}"
        body = Text(f"Closing the editor now loses {what}. Nothing has been saved.")
        self.app.push_screen(ConfirmModal("Discard what you typed?", body, yes="Discard", danger=True), answered)

    @on(Button.Pressed, "#save")
    def _save_pressed(self) -> None:
        self.action_save()

    @on(Button.Pressed, "#cancel")
    def _cancel_pressed(self) -> None:
        self.action_cancel()
