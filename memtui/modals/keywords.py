"""Add retrieval keywords to one entry: ModalScreen[list[str] | None].

Opened from explain on an entry a query missed, with the query's missing terms filled in. The
line under the box shows what the engine's guards would do with what is typed (duplicates and
function words dropped, a secret or a threat refused) before anything is saved; enter saves,
escape cancels.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual import getters, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from memtui_core.errors import InvalidInput
from memtui_core.ranking.keywords import clean_keywords
from memtui_core.limits import Limits
from memtui_core.model import Entry

from ..node import AppNode
from ..widgets.palette import P
from ..widgets.fmt import clip


def split_keywords(value: str) -> list[str]:
    """A comma-separated line as the person typed it (either comma, and 、 too)."""
    for comma in ("，", "、"):
        value = value.replace(comma, ",")
    return [part.strip() for part in value.split(",") if part.strip()]


def keyword_effects(typed: list[str], limits: Limits) -> tuple[list[str], list[Text], bool]:
    """What saving `typed` would store, a line per guard that changes it, and whether the
    engine would refuse the save (a secret, a threat, an overlong keyword, too many)."""
    from memtui_core.text.tokenize import tokenize

    try:
        kept, refused = clean_keywords(typed, limits, strict=False)
    except InvalidInput as exc:
        return [], [Text(f"✗ {exc}", style=f"{P.error}")], True
    lines = [Text(f"✗ {reason} — saving would be refused", style=f"{P.error}") for reason in refused]
    seen: set[str] = set()
    duplicates, function_words = [], []
    for keyword in typed:
        folded = " ".join(keyword.split()).casefold()
        tokens = tokenize(keyword)
        if not tokens or all(token in limits.stopwords for token in tokens):
            function_words.append(keyword)
        elif folded in seen:
            duplicates.append(keyword)
        seen.add(folded)
    if duplicates:
        lines.append(Text("· dropped as duplicates: " + ", ".join(duplicates), style=f"{P.muted}"))
    if function_words:
        lines.append(Text("· dropped, only function words or nothing searchable: " + ", ".join(function_words),
                          style=f"{P.muted}"))
    return kept, lines, bool(refused)


class KeywordsModal(AppNode, ModalScreen[list[str] | None]):
    """Keywords to add to `entry`: enter saves (merged with the ones it has), escape cancels."""
    keywords_input = getters.query_one("#keywords-input", Input)


    BINDINGS = [Binding("escape", "cancel", "Cancel", id="keywords.cancel")]

    DEFAULT_CSS = """
    #keywords-dialog { width: 76; max-width: 100%; height: auto; }
    #keywords-input { margin: 1 0 0 0; }
    #keywords-effects { height: auto; min-height: 1; }
    """

    def __init__(self, entry: Entry, suggested: list[str], query: str) -> None:
        super().__init__(classes="modal")
        self.entry = entry
        self.suggested = suggested
        self.query_text = query

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="keywords-dialog"):
            yield Static(f"Add keywords to {self.entry.id}", classes="dialog-title", markup=False)
            yield Static(self._entry_context(), id="keywords-context")
            yield Input(", ".join(self.suggested), id="keywords-input",
                        placeholder="words this entry should be found by, comma-separated")
            yield Static(id="keywords-effects")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Add (enter)", id="keywords-save", variant="primary")
                yield Button("Cancel (esc)", id="keywords-cancel")

    def _entry_context(self) -> Group:
        has = ", ".join(self.entry.keywords) or "none yet"
        text = clip(self.entry.text, 70, "italic")
        text.end = "\n"
        lines = [
            text,
            Text.assemble(("keywords now: ", f"{P.muted}"), has),
            Text.assemble(("the query's terms it lacks are filled in; keywords find it, they are never "
                           "shown to the model", f"{P.muted}")),
        ]
        if not self.app.store.limits.keyword_weight:
            lines.append(Text("this ranking profile ignores keywords: they are saved, but the rank changes only "
                              "under the default profile", style=f"{P.warning}"))
        return Group(*lines)

    def on_mount(self) -> None:
        self.keywords_input.focus()
        self._show_effects()

    @property
    def merged(self) -> tuple[list[str], bool]:
        """The entry's keywords plus the typed ones, as the engine would store them."""
        typed = split_keywords(self.keywords_input.value)
        kept, _lines, blocking = keyword_effects(list(self.entry.keywords) + typed, self.app.store.limits)
        return kept, blocking

    @on(Input.Changed, "#keywords-input")
    def _show_effects(self) -> None:
        typed = split_keywords(self.keywords_input.value)
        limits = self.app.store.limits
        kept, lines, _blocking = keyword_effects(list(self.entry.keywords) + typed, limits)
        new = [keyword for keyword in kept if keyword not in self.entry.keywords]
        head = Text.assemble(("adds: ", f"{P.muted}"), (", ".join(new) or "nothing new", "bold"),
                             (f"   ({len(kept)}/{limits.max_keywords} keywords)", f"{P.muted}"))
        self.query_one("#keywords-effects", Static).update(Group(head, *lines))

    @on(Input.Submitted, "#keywords-input")
    @on(Button.Pressed, "#keywords-save")
    def action_save(self) -> None:
        kept, blocking = self.merged
        if blocking:
            self.app.bell()
            return
        self.dismiss(kept)

    @on(Button.Pressed, "#keywords-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
