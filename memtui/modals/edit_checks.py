"""The editor's live checks: what saving the memory being typed would do, shown under the form.

While the person types, `EditChecks` asks the core, in workers and after a pause in typing, how long
the stored text will be, which entry it would be deduped against, what the threat scan finds, and
which passing probes the change would break; it also counts what saving a new memory in a full store
would evict, says what the keyword guards do with the typed keywords, and notices when the entry
changes on disk meanwhile. The form (`EditModal`) hands it an `EditDraft` on every change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.console import Group
from rich.text import Text
from textual import getters, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.validation import ValidationResult, Validator
from textual.widgets import Static

from memtui_core.kinds import Kind
from memtui_core.model import Entry, TextCheck

from ..debounce import Debounce
from ..messages import ProbesChecked, StoreSnapshot, TextChecked
from ..node import AppNode
from ..widgets.fmt import clip, kind_name, status_words
from ..widgets.palette import P

__all__ = ["CHECK_DELAY", "PROBE_CHECK_DELAY", "EditChecks", "EditDraft", "MemoryText"]

CHECK_DELAY = 0.12
PROBE_CHECK_DELAY = 0.3  # what a change would do to the probes: rank every probe's query twice
MAX_PROBE_LINES = 3


class MemoryText(Validator):
    """A memory needs some text; longer than the limit is allowed (it is cut) but warned about."""

    def validate(self, value: str) -> ValidationResult:
        if not value.strip():
            return self.failure("The text is empty: write the memory, or press escape to cancel.")
        return self.success()


@dataclass(frozen=True)
class EditDraft:
    """What the form holds right now."""

    text: str
    kind: Kind
    typed_keywords: tuple[str, ...]


class EditChecks(AppNode, Vertical):
    """The character count, then every warning about saving `draft` in place of `entry` (None: a new memory)."""

    DEFAULT_CSS = "EditChecks { height: auto; }"

    count_line = getters.query_one("#edit-count", Static)
    warning_lines = getters.query_one("#edit-warnings", Static)

    def __init__(self, entry: Entry | None, draft: EditDraft, initial_keywords: list[str]) -> None:
        super().__init__()
        self.entry = entry
        self.draft = draft
        self.initial_keywords = initial_keywords  # what is stored
        self.validator = MemoryText()
        self.check: TextCheck | None = None
        self.disk_notice: Text | None = None
        self.probe_breaks: list[Any] = []  # probes that pass now and that this change would break
        self.touched = bool(draft.text)  # say "empty" only once there was text, or on save
        self._check_later = Debounce(self, CHECK_DELAY, lambda: self._run_check(self.draft.text))
        self._probe_check_later = Debounce(self, PROBE_CHECK_DELAY, self._check_probes)
        self._probe_generation = 0  # the newest probe check: an older thread may report after it

    def compose(self) -> ComposeResult:
        yield Static(id="edit-count")
        yield Static(id="edit-warnings")

    def on_mount(self) -> None:
        self.show()
        self._check_later.poke()
        if self.entry is not None:
            # init: an editor reopened on a version that is already stale says so at once
            self.watch(self.app, "snapshot", self._snapshot_changed, init=True)
        self._probe_check_later.poke()

    def changed(self, draft: EditDraft, text: bool = False) -> None:
        """The form changed to `draft` (`text`: the text itself, not only the kind or the keywords)."""
        self.draft = draft
        if text:
            self.touched = True
        self.show()
        if text:
            self._check_later.poke()
        self._probe_check_later.poke()

    def touch(self) -> None:
        """Say what is wrong with the text even if it was never typed in (a save was tried)."""
        self.touched = True
        self.show()

    # ------------------------------------------------------------------ asking the core

    @work(thread=True, exclusive=True, group="edit-check", exit_on_error=False)
    def _run_check(self, text: str) -> None:
        if not text.strip():
            return
        exclude = self.entry.id if self.entry else None
        self.post_message(TextChecked(text, self.app.store.check_text(text, exclude_id=exclude)))

    def on_text_checked(self, message: TextChecked) -> None:
        if message.text == self.draft.text:
            self.check = message.check
            self.show()

    def keyword_check(self) -> tuple[list[str], list[Text], bool]:
        """The keywords saving would store, the guards' effect on what was typed, and whether the
        engine would refuse them."""
        from .keywords import keyword_effects

        return keyword_effects(list(self.draft.typed_keywords), self.app.store.limits)

    def _probe_key(self) -> tuple[str, Kind, tuple[str, ...]]:
        return (self.draft.text.strip(), self.draft.kind, tuple(self.keyword_check()[0]))

    def _check_probes(self) -> None:
        key = self._probe_key()
        if key[0]:
            self._probe_generation += 1
            self._run_probe_check(key, self._probe_generation)

    @work(thread=True, exclusive=True, group="edit-probes", exit_on_error=False)
    def _run_probe_check(self, key: tuple[str, Kind, tuple[str, ...]], generation: int) -> None:
        from memtui_core.agents.probes import ProbesUnreadable, load_probes, would_break

        store = self.app.store
        try:
            probes = load_probes(store).probes
        except ProbesUnreadable:
            return
        text, kind, keywords = key
        entry_id = self.entry.id if self.entry is not None else None  # None: a new memory would be added
        breaks = would_break(store, entry_id, probes, text=text, kind=kind, fields={"keywords": list(keywords)})
        self.post_message(ProbesChecked(key, breaks, generation))

    def on_probes_checked(self, message: ProbesChecked) -> None:
        if message.generation == self._probe_generation and message.key == self._probe_key():
            self.probe_breaks = list(message.breaks)
            self.show()

    def _snapshot_changed(self, snapshot: StoreSnapshot | None) -> None:
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
        self.show()

    # ------------------------------------------------------------------ saying it

    def show(self) -> None:
        text = self.draft.text.strip()
        limit = self.app.store.limits.max_text
        length = len(text)
        count = Text(f"{length}/{limit}", style=f"bold {P.error}" if length > limit else "bold")
        count.append(" characters", style=P.muted)
        if length > limit:
            count.append(f"  — {length - limit} over: the text will be cut to {limit}", style=P.error)
        self.count_line.update(count)
        self.warning_lines.update(Group(*self.warnings()))

    def evictions(self) -> int:
        """How many entries saving this new memory would evict: the store keeps at most max_entries."""
        snapshot = self.app.snapshot
        if self.entry is not None or snapshot is None:
            return 0
        if self.check is not None and self.check.duplicate_of is not None:
            return 0  # a duplicate refreshes the entry it matches; nothing is added
        return max(0, len(snapshot.entries) + 1 - snapshot.max_entries)

    def eviction_warning(self, evicts: int) -> Text:
        snapshot = self.app.snapshot
        assert snapshot is not None  # evictions() counts none before the store is read
        count, cap = len(snapshot.entries), snapshot.max_entries
        kind = self.draft.kind
        # the new entry is the newest of its kind: it goes after every entry of its kind or a more evictable one
        position = 1 + sum(1 for entry in snapshot.entries if entry.kind.eviction_rank >= kind.eviction_rank)
        if position <= evicts:
            return Text(
                f"⚠ The store is full ({count}/{cap}) and a new {kind_name(kind)} is the next to go: "
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
        result = self.validator.validate(self.draft.text)
        if not result.is_valid:
            if self.touched:
                lines.extend(Text("✗ " + d, style=P.error) for d in result.failure_descriptions)
            return lines
        evicts = self.evictions()
        if evicts:
            lines.append(self.eviction_warning(evicts))
        if self.check is not None and self.draft.text.strip():
            lines += self._check_lines(self.check)
        return lines

    def _check_lines(self, check: TextCheck) -> list[Text]:
        """The duplicate the text would be folded into, and what the threat scan finds in it."""
        lines = []
        if check.duplicate_of is not None:
            other = check.duplicate_of
            what = "Saving adds nothing new: it matches" if self.entry is None else "Another entry says the same:"
            line = Text(f"≈ {what} {other.id} ", style=P.warning)
            line.append_text(clip(other.text, 50, f"italic {P.warning}"))
            if self.entry is None:
                line.append(" (its time is refreshed instead)", style=P.warning)
            lines.append(line)
        # One line per category, each reason once: several rules often share a reason, and a line
        # per finding pushed the dialog's buttons off an 80x24 terminal.
        reasons: dict[str, dict[str, None]] = {}
        warnings: dict[str, dict[str, None]] = {}  # a learned verdict not sure enough to block
        for finding in check.findings:
            category = finding.get("category", "")
            into = warnings if str(finding.get("rule") or "").startswith("warning.") else reasons
            into.setdefault(category, {})[finding.get("reason") or finding.get("rule") or category] = None
        secret = reasons.pop("secret", None)
        if secret:
            lines.append(Text(f"🔑 secret: {'; '.join(secret)} — it will be stored as [REDACTED]", style=P.warning))
        if reasons:
            lines.append(Text("⛔ saved but blocked until a person approves it:", style=f"bold {P.error}"))
            lines.extend(Text(f"   {category}: {'; '.join(why)}", style=P.error) for category, why in reasons.items())
        elif warnings:
            lines.append(Text("⚠ saved and not blocked, but read it first:", style=f"bold {P.warning}"))
            lines.extend(Text(f"   {category}: {'; '.join(why)}", style=P.warning) for category, why in warnings.items())
        return lines

    def _keyword_lines(self) -> list[Text]:
        typed = list(self.draft.typed_keywords)
        if not typed and not self.initial_keywords:
            return []
        kept, lines, _refused = self.keyword_check()
        limit = self.app.store.limits.max_keywords
        head = Text(f"{len(kept)}/{limit} keywords", style=f"{P.muted}")
        if kept != typed:
            head.append(" stored: ", style=f"{P.muted}")
            head.append(", ".join(kept) or "none")
        return [head, *lines]

    def _known(self, entry_id: str) -> bool:
        snapshot = self.app.snapshot
        return snapshot is not None and snapshot.by_id(entry_id) is not None

    def _probe_warnings(self) -> list[Text]:
        lines = []
        for broken in self.probe_breaks[:MAX_PROBE_LINES]:
            probe, after = broken.probe, broken.after
            miss = after.misses[0] if after.misses else None
            if probe.expects_nothing:
                known = self.entry is not None or (miss is not None and self._known(miss.id))
                who = miss.id if miss is not None and known else "this new memory"
                what = f"it expects nothing and {who} would be injected"
            else:
                status = status_words(miss.status) if miss else "missed"
                what = f"it expects {miss.id if miss else probe.expect[0]}, which would not be injected ({status})"
            line = Text(f"⚠ breaks probe {probe.id} “", style=f"{P.warning}")
            line.append_text(clip(probe.query, 30, f"italic {P.warning}"))
            line.append(f"”: {what}", style=f"{P.warning}")
            lines.append(line)
        if len(self.probe_breaks) > MAX_PROBE_LINES:
            lines.append(Text(f"⚠ and {len(self.probe_breaks) - MAX_PROBE_LINES} more probes (P shows them all)",
                              style=f"{P.warning}"))
        return lines
