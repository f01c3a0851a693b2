"""A text wrapped at the width it is drawn at, without a line that starts with a comma.

Rich wraps at spaces and folds a run without spaces (Chinese and Japanese text) at the last cell
that fits, so a line could start with `，` or `。` (the injections screen showed `，确认后再真正执行`
on a line of its own). Here a closing mark stays with the character before it and an opening one
with the character after it, as Chinese and Japanese typesetting keep them; everything else wraps
as before: at spaces, a CJK character at a time, a word longer than the line folded.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.style import StyleType
from rich.text import Text

__all__ = ["Wrapped", "wrap_lines"]

# never at the start of a line: closing punctuation, fullwidth and ASCII
NO_START = set("，。、；：！？）」』】〉》〕］｝”’…‥・ー々ゝゞ,.;:!?)]}%％")
# never at the end of a line: opening punctuation
NO_END = set("（「『【〈《〔［｛“‘([{")


def _units(text: str) -> list[str]:
    """Pieces that a line break may fall between: a run of spaces, a word of letters or digits, or
    one wide character; each closing mark is glued to the piece before it, each opening mark to the
    piece after it."""
    units: list[str] = []
    pending = ""  # opening marks waiting for the piece they open
    for char in text:
        if char in NO_START and units and not units[-1].isspace():
            units[-1] += char
            continue
        if char in NO_END:
            pending += char
            continue
        wide = cell_len(char) > 1
        if (not wide and not char.isspace() and not pending and units and not units[-1].isspace()
                and cell_len(units[-1][-1]) == 1 and units[-1][-1] not in NO_START):
            units[-1] += char  # one more letter of a word
        elif char.isspace() and units and units[-1].isspace() and not pending:
            units[-1] += char
        else:
            units.append(pending + char)
            pending = ""
    if pending:
        units.append(pending)
    return units


def wrap_lines(text: str, width: int, indent: int = 0) -> list[str]:
    """`text` (one paragraph) as lines of at most `width` cells, broken between `_units`, spaces at a
    break dropped (the paragraph's own leading spaces kept); a unit wider than a line is folded a
    character at a time. Lines after the first start with `indent` spaces."""
    width = max(width, 2)
    indent = min(max(indent, 0), width - 2)
    lines: list[str] = []
    lead = text[: len(text) - len(text.lstrip(" "))]
    line = lead if cell_len(lead) < width else ""

    def room() -> int:
        return width if not lines else width - indent

    def close(done: str) -> None:
        lines.append((" " * indent if lines else "") + done.rstrip())

    for unit in _units(text[len(lead):]):
        if unit.isspace():
            if line.strip() and cell_len(line) + cell_len(unit) <= room():
                line += unit
            elif line.strip():
                close(line)
                line = ""
            continue
        if cell_len(line) + cell_len(unit) <= room():
            line += unit
            continue
        if line.strip():
            close(line)
        line = ""
        while cell_len(unit) > room():  # a word longer than the line: folded where it must be
            cut = 0
            while cell_len(unit[: cut + 1]) <= room():
                cut += 1
            while 1 < cut < len(unit) and unit[cut] in NO_START:  # the mark goes down with a letter
                cut -= 1
            close(unit[:cut])
            unit = unit[cut:]
        line = unit
    if line.strip() or not lines:
        close(line)
    return lines


class Wrapped:
    """A renderable: `text` in `style`, wrapped by `wrap_lines` at the width it is given, each line
    after the first indented by `indent` cells (its first line carries its own indentation)."""

    def __init__(self, text: str, style: StyleType = "", indent: int = 0) -> None:
        self.text = text
        self.style = style
        self.indent = indent

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = [line for paragraph in self.text.split("\n")
                 for line in wrap_lines(paragraph, options.max_width, self.indent)]
        yield Text("\n".join(lines), style=self.style, no_wrap=True, overflow="crop")

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        longest = max((cell_len(line) for line in self.text.split("\n")), default=0)
        widest_unit = max((cell_len(unit) for unit in _units(self.text) if not unit.isspace()), default=1)
        return Measurement(min(widest_unit, options.max_width), min(longest, options.max_width))
