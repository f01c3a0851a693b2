"""The table of entries on the browse screen: kind, text, source, age, flags; row keys are entry ids."""

from __future__ import annotations

import time

from rich.text import Text

from memtui_core.model import Entry

from .fmt import age, core_word, flag_words, kind_badge, one_line
from .virtual_table import Column, VirtualTable
from .palette import P

WIDE_KIND = 15  # "偏好 preference"
NARROW_KIND = 4  # "偏好"


class EntryTable(VirtualTable):
    """Entries in store order. Cells are built only for the rows on screen."""

    def __init__(self, **kwargs) -> None:
        super().__init__(self._columns(True), empty="No entries in this view.", **kwargs)
        self.entries: list[Entry] = []
        self.wide_kind = True
        self._now = time.time()
        self.marked: set[str] = set()  # ids marked for a bulk action
        self.core_places: dict[str, tuple[str, int]] = {}  # where each entry stands in the pinned core
        self.scopes: dict[str, str] = {}  # entry id -> project or global, when both stores are read

    def marked_of(self, entries: list[Entry]) -> list[Entry]:
        """The marked ones among `entries` (the store's: a mark outlives a filter that hides its row)."""
        return [entry for entry in entries if entry.id in self.marked] if self.marked else []

    def toggle_mark(self) -> bool:
        """Mark or unmark the selected row and move on to the next, so space marks a run; False: no row."""
        entry_id = self.selected_id()
        if entry_id is None:
            return False
        self.marked ^= {entry_id}
        self.refresh_rows([entry_id])
        if self.cursor_row < self.row_count - 1:
            self.action_cursor(1)
        return True

    def clear_marks(self) -> None:
        marked = list(self.marked)
        self.marked.clear()
        self.refresh_rows(marked)

    @staticmethod
    def _columns(wide_kind: bool, scoped: bool = False) -> list[Column]:
        scope = [Column("scope", "scope", 7)] if scoped else []
        return [
            *scope,
            Column("kind", "kind", WIDE_KIND if wide_kind else NARROW_KIND),
            Column("text", "text", None, min_width=16),
            Column("source", "source", 8),
            Column("age", "age", 5),
            Column("flags", "flags", 12),
        ]

    @property
    def text_width(self) -> int:
        return self.flex_width

    def show(self, entries: list[Entry], keep: str | None = None,
             core_places: dict[str, tuple[str, int]] | None = None, scopes: dict[str, str] | None = None) -> None:
        width = self.scrollable_content_region.width or self.app.size.width
        wide_kind = width >= 90
        scoped = bool(scopes)
        if wide_kind != self.wide_kind or not self.columns or scoped != bool(self.scopes):
            self.wide_kind = wide_kind
            self.set_columns(self._columns(wide_kind, scoped))
        self.scopes = scopes or {}
        self.entries = entries
        self.core_places = core_places or {}
        self._now = time.time()
        self.set_rows([entry.id for entry in entries], self._cells, keep=keep)

    def _cells(self, index: int) -> list[Text]:
        entry = self.entries[index]
        scope = [Text(self.scopes.get(entry.id, ""), style=P.muted)] if self.scopes else []
        return [
            *scope,
            kind_badge(entry.kind, english=self.wide_kind),
            self._text_cell(entry),
            Text(entry.source or "—", style=P.muted),
            Text(age(entry.ts, self._now), style=P.muted),
            self._flags_cell(entry),
        ]

    def _flags_cell(self, entry: Entry) -> Text:
        """The entry's place in the pinned core (`pinned`, `core`, `left out`), then its flags."""
        place = core_word(self.core_places.get(entry.id))
        flags = flag_words(entry.flags)
        if place and flags:
            place.append(" ")
        return Text.assemble(place, flags, no_wrap=True, end="")

    def _text_cell(self, entry: Entry) -> Text:
        text = Text(one_line(entry.text), style="dim" if entry.blocked else "")
        if entry.id in self.marked:
            text = Text.assemble(("● ", f"bold {P.pin}"), text)
        return text

    def on_resize(self, event) -> None:  # runs after VirtualTable.on_resize
        wide_kind = event.size.width >= 90
        if wide_kind != self.wide_kind:
            self.wide_kind = wide_kind
            self.set_columns(self._columns(wide_kind, bool(self.scopes)))
