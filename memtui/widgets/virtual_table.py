"""A table that renders only the rows on screen, so 10,000 entries cost what 30 do.

Rows are keys plus a function that returns a row's cells when it is drawn; nothing is measured or
built up front. One column may be flexible (width None): it takes the width the others leave.
Cells are rich `Text`; each is cut to its column with an ellipsis by terminal cells (CJK-safe).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

CellsFor = Callable[[int], Sequence[Text]]
PADDING = 1  # cells of space on each side of every column


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    width: int | None = None  # None: take the remaining width
    justify: str = "left"
    min_width: int = 10


class VirtualTable(ScrollView, can_focus=True):
    """Keyboard: up/down, page up/down, home/end move the cursor; enter selects the row."""

    BINDINGS = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "jump(0)", "First", show=False),
        Binding("end", "jump(-1)", "Last", show=False),
        Binding("enter", "select", "Select", show=False),
    ]

    COMPONENT_CLASSES = {"vtable--header", "vtable--cursor", "vtable--even-row", "vtable--empty"}

    DEFAULT_CSS = """
    VirtualTable {
        background: $surface;
        color: $foreground;
        height: 1fr;
        overflow-x: hidden;
        scrollbar-size-vertical: 1;
        & > .vtable--header { text-style: bold; background: $panel; color: $foreground; }
        & > .vtable--even-row { background: $surface-lighten-1 50%; }
        & > .vtable--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
        & > .vtable--empty { color: $text-muted; text-style: italic; }
        &:focus {
            background-tint: $foreground 5%;
            & > .vtable--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
        }
    }
    """

    cursor_row: reactive[int] = reactive(0, init=False)

    @dataclass
    class Highlighted(Message):
        """The cursor moved to another row (or the rows changed under it)."""

        table: VirtualTable
        key: str | None

        @property
        def control(self) -> VirtualTable:
            return self.table

    @dataclass
    class Selected(Message):
        """Enter (or a second click) on a row."""

        table: VirtualTable
        key: str

        @property
        def control(self) -> VirtualTable:
            return self.table

    def __init__(self, columns: Sequence[Column] = (), empty: str = "", **kwargs) -> None:
        super().__init__(**kwargs)
        self.columns: list[Column] = list(columns)
        self.keys: list[str] = []
        self._index: dict[str, int] = {}
        self._cells_for: CellsFor = lambda index: ()
        self._cache: dict[int, list[Text]] = {}
        self.empty_message = empty
        self.zebra = True

    # ------------------------------------------------------------------ data

    @property
    def row_count(self) -> int:
        return len(self.keys)

    def set_columns(self, columns: Sequence[Column]) -> None:
        self.columns = list(columns)
        self._cache.clear()
        self.refresh()

    def set_rows(self, keys: Sequence[str], cells_for: CellsFor, keep: str | None = None) -> None:
        """Replace the rows. The cursor stays on `keep` (or the current key) if it is still there."""
        current = keep if keep is not None else self.selected_key()
        self.keys = list(keys)
        self._index = {key: i for i, key in enumerate(self.keys)}
        self._cells_for = cells_for
        self._cache.clear()
        self.virtual_size = Size(self.size.width, len(self.keys) + 1)
        row = self._index.get(current, None) if current is not None else None
        if row is None:
            row = min(self.cursor_row, max(len(self.keys) - 1, 0))
        self._set_cursor(row, always_notify=True)
        self.refresh()

    def refresh_rows(self, keys: Sequence[str] | None = None) -> None:
        """Redraw some rows (all when None) after what their cells show has changed."""
        if keys is None:
            self._cache.clear()
        else:
            for key in keys:
                self._cache.pop(self._index.get(key, -1), None)
        self.refresh()

    def selected_key(self) -> str | None:
        if not self.keys:
            return None
        return self.keys[min(self.cursor_row, len(self.keys) - 1)]

    selected_id = selected_key

    def select_key(self, key: str) -> bool:
        row = self._index.get(key)
        if row is None:
            return False
        self._set_cursor(row)
        return True

    select_id = select_key

    def cells(self, key: str) -> list[Text]:
        """The cells of one row as the table draws them (before cutting to the column widths)."""
        return self._row_cells(self._index[key])

    # ------------------------------------------------------------------ cursor

    def _set_cursor(self, row: int, always_notify: bool = False) -> None:
        row = max(0, min(row, len(self.keys) - 1)) if self.keys else 0
        changed = row != self.cursor_row
        self.set_reactive(VirtualTable.cursor_row, row)
        self._scroll_cursor_into_view()
        self.refresh()
        if changed or always_notify:
            self.post_message(self.Highlighted(self, self.selected_key()))

    def watch_cursor_row(self, row: int) -> None:
        self._set_cursor(row, always_notify=True)

    def _visible_rows(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def _scroll_cursor_into_view(self) -> None:
        top = round(self.scroll_y)
        visible = self._visible_rows()
        row = self.cursor_row
        if row < top:
            self.scroll_to(y=row, animate=False, immediate=True)
        elif row >= top + visible:
            self.scroll_to(y=row - visible + 1, animate=False, immediate=True)

    def action_cursor(self, delta: int) -> None:
        self._set_cursor(self.cursor_row + delta)

    def action_page(self, direction: int) -> None:
        self._set_cursor(self.cursor_row + direction * self._visible_rows())

    def action_jump(self, row: int) -> None:
        self._set_cursor(len(self.keys) - 1 if row < 0 else row)

    def action_select(self) -> None:
        key = self.selected_key()
        if key is not None:
            self.post_message(self.Selected(self, key))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y < 1:
            return
        row = round(self.scroll_y) + offset.y - 1
        if 0 <= row < len(self.keys):
            if row == self.cursor_row and event.chain >= 2:
                self.action_select()
            self._set_cursor(row)

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(event.size.width, len(self.keys) + 1)
        self._cache.clear()
        self._scroll_cursor_into_view()

    # ------------------------------------------------------------------ drawing

    def column_widths(self, width: int | None = None) -> list[int]:
        total = self.scrollable_content_region.width if width is None else width
        fixed = sum(c.width for c in self.columns if c.width is not None)
        flexible = [c for c in self.columns if c.width is None]
        spare = total - fixed - 2 * PADDING * len(self.columns)
        share = spare // len(flexible) if flexible else 0
        return [c.width if c.width is not None else max(c.min_width, share) for c in self.columns]

    @property
    def flex_width(self) -> int:
        """Width of the first flexible column (what a long text is cut to)."""
        for column, width in zip(self.columns, self.column_widths()):
            if column.width is None:
                return width
        return 0

    def _row_cells(self, index: int) -> list[Text]:
        cached = self._cache.get(index)
        if cached is None:
            cached = list(self._cells_for(index))
            if len(self._cache) > 400:
                self._cache.clear()
            self._cache[index] = cached
        return cached

    def _line(self, cells: Sequence[Text | str], widths: list[int], style: Style) -> Strip:
        line = Text(no_wrap=True, end="")
        for column, width, cell in zip(self.columns, widths, cells):
            text = cell.copy() if isinstance(cell, Text) else Text(str(cell))
            text.no_wrap = True
            text.end = ""
            if text.cell_len > width:
                text.truncate(width, overflow="ellipsis")
            if column.justify == "right":
                text.pad_left(width - text.cell_len)
            else:
                text.pad_right(width - text.cell_len)
            line.append(" " * PADDING)
            line.append_text(text)
            line.append(" " * PADDING)
        segments = list(line.render(self.app.console))
        width = self.scrollable_content_region.width
        strip = Strip(segments).crop_extend(0, width, None)
        return strip.apply_style(style)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        widths = self.column_widths(width)
        if y == 0:
            header = base + self.get_component_rich_style("vtable--header")
            return self._line([Text(c.label) for c in self.columns], widths, header)
        row = round(self.scroll_y) + y - 1
        if row >= len(self.keys):
            if row == 0 and not self.keys and self.empty_message:
                message = Text(" " + self.empty_message, no_wrap=True, end="")
                style = base + self.get_component_rich_style("vtable--empty")
                return Strip(list(message.render(self.app.console))).crop_extend(0, width, None).apply_style(style)
            return Strip([Segment(" " * width, base)], width)
        style = base
        if self.zebra and row % 2 == 1:
            style = style + self.get_component_rich_style("vtable--even-row")
        cells: Sequence[Text | str] = self._row_cells(row)
        if row == self.cursor_row:
            style = style + self.get_component_rich_style("vtable--cursor")
            # the cursor's own colours: a cell's colour on the cursor background can be unreadable
            cells = [Text(cell.plain) if isinstance(cell, Text) else cell for cell in cells]
        return self._line(cells, widths, style)
