"""Human-readable output for the `memtui` command: terminal cell widths, tables and colour, and the
texts the app shows in the same words (`plan_lines`, an import's preview).

Only the human form of a command imports this; `--json` and `inject` never do. It imports nothing
of memtui, so the CLI and the app both stand on it. Widths come from
rich's `cell_len`, the function the terminal app (Textual) measures with, so the command and the
app agree on every string: CJK and kana (two cells), emoji sequences joined by ZWJ, emoji
presentation selectors (`⚠️`), keycaps (`1️⃣`), combining marks. Text is cut between grapheme
clusters, never inside one. Colour is used only when stdout is a terminal and NO_COLOR is not set.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
import unicodedata
from collections.abc import Callable, Sequence

from rich.cells import cell_len, split_graphemes

__all__ = [
    "Style",
    "age",
    "cell_width",
    "clean",
    "fit",
    "pad",
    "plan_lines",
    "table",
    "terminal_width",
    "truncate",
]

ELLIPSIS = "…"


def cell_width(text: str) -> int:
    """How many terminal cells `text` takes, as the terminal app counts them."""
    return cell_len(text)


def truncate(text: str, width: int) -> str:
    """Cut `text` to at most `width` cells, ending with … when something was cut. Whole grapheme
    clusters are kept or dropped, so an emoji sequence or a base with its marks is never split."""
    total = cell_len(text)
    if total <= width:
        return text
    if width <= 0:
        return ""
    spans, summed = split_graphemes(text)
    # A stray joiner (a ZWJ that joins nothing) makes rich's per-cluster widths disagree with its
    # whole-string measure, either way: then measure each prefix as the app would.
    exact = summed == total
    end, used = 0, 0
    for _start, stop, cells in spans:
        used = used + cells if exact else cell_len(text[:stop])
        if used > width - 1:
            break
        end = stop
    return text[:end] + ELLIPSIS


def pad(text: str, width: int, align: str = "<") -> str:
    """`text` padded with spaces to `width` cells (never cut)."""
    gap = max(width - cell_width(text), 0)
    out = " " * gap + text if align == ">" else text + " " * gap
    for _ in range(gap):  # a space can join a stray joiner's cluster: then one more is needed
        if cell_width(out) >= width:
            break
        out = " " + out if align == ">" else out + " "
    return out


def fit(text: str, width: int, align: str = "<") -> str:
    """Exactly `width` cells: cut with … or padded."""
    return pad(truncate(text, width), width, align)


def clean(text: str) -> str:
    """One line, safe to print: whitespace runs become one space and control characters
    (which could move the cursor or recolour the terminal) are shown escaped."""
    return safe(" ".join(str(text).split()))


def safe(text: str) -> str:
    """`text` with control characters shown escaped, layout otherwise kept."""
    if text.isprintable():
        return text
    return "".join(
        char if char.isprintable() or unicodedata.category(char) != "Cc" else f"\\x{ord(char):02x}" for char in text
    )


def terminal_width(stream=None) -> int | None:
    """The width to fit output into, or None when the stream is not a terminal (no cutting)."""
    stream = stream or sys.stdout
    try:
        if not stream.isatty():
            return None
    except (AttributeError, ValueError):
        return None
    return max(shutil.get_terminal_size((100, 24)).columns, 40)


def colour_enabled(stream=None) -> bool:
    stream = stream or sys.stdout
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class Style:
    """ANSI styles that turn into plain text when colour is off."""

    _CODES = {
        "bold": "1",
        "dim": "2",
        "red": "31",
        "green": "32",
        "yellow": "33",
        "blue": "34",
        "magenta": "35",
        "cyan": "36",
    }

    def __init__(self, enabled: bool | None = None) -> None:
        self.enabled = colour_enabled() if enabled is None else enabled

    def __call__(self, text: str, *names: str) -> str:
        if not self.enabled or not names or not text:
            return text
        codes = ";".join(self._CODES[name] for name in names)
        return f"\x1b[{codes}m{text}\x1b[0m"

    def __getattr__(self, name: str) -> Callable[[str], str]:
        if name not in self._CODES:
            raise AttributeError(name)
        return lambda text: self(text, name)


def age(ts: float, now: float | None = None, unknown: str = "-") -> str:
    """A short relative age: `now`, `5m`, `3h`, `12d`, `8mo`, `2y` (`unknown` when ts is 0)."""
    if not ts:
        return unknown
    seconds = (time.time() if now is None else now) - ts
    if seconds < 0:
        return "future"
    for unit, size in (("y", 365 * 86400), ("mo", 30 * 86400), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return "now"


def local_time(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts))


def size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n / 1024 / 1024:.1f} MB"


def table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str | tuple[str, Callable[[str], str]]]],
    styles: Sequence[Callable[[str], str] | None] | None = None,
    align: str | None = None,
    width: int | None = None,
    style: Style | None = None,
) -> list[str]:
    """Rows as aligned lines. The last column takes what is left of `width` and is cut to it;
    with no width (not a terminal) nothing is cut. `align` is one of `<` `>` per column.
    A cell may be `(text, painter)` to colour that cell only; `styles` colour whole columns.
    Colour is applied after cutting and padding, so escape codes never count as width."""
    style = style or Style(False)
    columns = len(headers)
    align = align or "<" * columns
    split = [[cell if isinstance(cell, tuple) else (cell, None) for cell in row] for row in rows]
    widths = [cell_width(h) for h in headers]
    for row in split:
        for i, (text, _) in enumerate(row[: columns - 1]):
            widths[i] = max(widths[i], cell_width(text))
    fixed = sum(widths[:-1]) + 2 * (columns - 1)
    last = None if width is None else max(width - fixed, 10)
    head = "  ".join(pad(h, widths[i], align[i]) for i, h in enumerate(headers[:-1]))
    lines = [style.dim((((head + "  ") if columns > 1 else "") + headers[-1]).rstrip())]
    for row in split:
        cells = []
        for i, (text, painter) in enumerate(row):
            if i == columns - 1:
                text = text if last is None else truncate(text, last)
            else:
                text = pad(text, widths[i], align[i])
            painter = painter or (styles[i] if styles and i < len(styles) else None)
            cells.append(painter(text) if painter and text.strip() else text)
        lines.append("  ".join(cells).rstrip())
    return lines


# ---------------------------------------------------------------------------- explain

_STATUS_STYLE = {
    "injected": ("green", "bold"),
    "cut_top_k": ("yellow",),
    "cut_budget": ("yellow",),
    "blocked": ("red", "bold"),
    "below_threshold": ("magenta",),
    "zero_score": ("dim",),
    "pinned": ("cyan", "bold"),
}
BAR_CELLS = 12
STATUS_WIDTH = max(len(status) for status in _STATUS_STYLE)  # below_threshold
MORE_HITS = 6  # hits shown below the injected ones, unless --all


def _bar(value: float, top: float) -> str:
    if top <= 0 or value <= 0:
        return ""
    eighths = round(value / top * BAR_CELLS * 8)
    full, rest = divmod(max(eighths, 1), 8)
    return "█" * full + ("▏▎▍▌▋▊▉"[rest - 1] if rest else "")


def _listing(items: Sequence[str], width: int | None, limit: int = 40) -> str:
    shown = ", ".join(items[:limit])
    if len(items) > limit:
        shown += f", … (+{len(items) - limit} more)"
    return shown if width is None else truncate(shown, width)


def _meaning_bars(e) -> str:
    admit = getattr(e, "semantic_admit", 0.0)
    if e.semantic_floor and admit:
        return f" (meaning: keep bar {e.semantic_floor:.2f}, admit bar {admit:.2f})"
    if e.semantic_floor or admit:
        return f" (semantic floor {e.semantic_floor:.2f})" if e.semantic_floor else f" (admit bar {admit:.2f})"
    return ""


def explanation_lines(explanation, style: Style, width: int | None, show_all: bool = False) -> list[str]:
    """An `Explanation` for a person: per entry its rank, status, score and the contribution of
    each query term (with a bar scaled to the top score), why it is or is not injected, and the
    block itself with the characters it used."""
    e = explanation
    lines = [
        f"{style.dim('query ')} {clean(e.query) if width is None else truncate(clean(e.query), width - 7)}",
        f"{style.dim('tokens')} {_listing(e.tokens, None if width is None else width - 7) or style.dim('(none)')}",
        style.dim(f"       {e.n} entries, average length {e.avg_len:.1f} tokens; top_k {e.top_k}, budget {e.budget}"
                  f"; profile {e.profile}" + _meaning_bars(e)),
    ]
    if e.semantic_note:
        lines.append(f"{style.dim('note  ')} {style.yellow(clean(e.semantic_note))}")
    ignored = e.ignored
    if ignored:
        listing = _listing(ignored, None if width is None else width - 41)
        lines.append(f"{style.dim('ignored')} {listing} {style.dim('(function words, not scored)')}")
    lines.append("")
    # the core is in every block; an entry meaning admitted has a rank
    hits = [row for row in e.entries if row.score > 0 or row.status.value == "pinned" or row.rank is not None]
    shown = e.entries if show_all else hits[: e.top_k + MORE_HITS]
    more_hits = len(hits) - len(shown) if not show_all else 0
    no_term = len(e.entries) - len(hits) if not show_all else 0
    top = max((row.score for row in e.entries), default=0.0)
    term_width = min(max((cell_width(term) for term in e.tokens), default=0), 24)
    if not hits and not show_all:
        lines.append(style.dim("no entry contains a query term"))
    for row in shown:
        status = row.status.value
        rank = f"#{row.rank}" if row.rank is not None else "-"
        head = (f"{pad(rank, 4, '>')}  {style(fit(status, STATUS_WIDTH), *_STATUS_STYLE.get(status, ()))}  "
                f"{pad(f'{row.score:.2f}', 6, '>')}  {style.dim(row.id)}  {style.cyan(fit(row.kind.value, 10))}  ")
        text = clean(row.text)
        used = 4 + 2 + STATUS_WIDTH + 2 + 6 + 2 + 12 + 2 + 10 + 2
        scope = getattr(row, "scope", None)
        if scope:  # read from two stores: which one it came from
            head += style.dim(f"[{scope}] ")
            used += len(scope) + 3
        lines.append(head + (text if width is None else truncate(text, width - used)))
        scored = [t for t in row.terms if t.ignored is None]
        matched = sorted((t for t in scored if t.tf > 0 or t.keyword_tf), key=lambda t: -t.contribution)
        missing = [t.term for t in scored if t.tf == 0 and not t.keyword_tf]
        for t in matched:
            times = f"×{t.qtf}" if t.qtf > 1 else ""
            via = style.yellow(f"keyword ×{t.keyword_tf}") if t.from_keywords else ""
            if t.from_keywords and not t.tf and not t.contribution:
                via += style.dim(" (not counted: over the per-entry limit of keyword-only terms)")
            lines.append(
                f"        {pad(t.term, term_width)} {pad(times, 3)} tf {t.tf:<2} df {t.df:<3} idf {t.idf:5.2f}  "
                f"{pad(f'+{t.contribution:.2f}', 7, '>')}  {style.blue(_bar(t.contribution, top))}"
                + (f"  {via}" if via else "")
            )
        if missing and row.score > 0:
            lines.append(style.dim(f"        missing: {_listing(missing, None if width is None else width - 17)}"))
        meaning = getattr(row, "meaning", None)
        if meaning:
            lines.append(style.dim("        meaning: " + (meaning if width is None else truncate(meaning, width - 17))))
        elif row.cosine is not None:
            lines.append(style.dim(f"        cosine {row.cosine:.3f} with the message (semantic floor "
                                   f"{e.semantic_floor:.2f})"))
        if status != "injected":
            why = clean(row.reason)
            lines.append(style.dim("        why: " + (why if width is None else truncate(why, width - 13))))
    if more_hits:
        lines.append(style.dim(f"{more_hits} more entr{'y matches' if more_hits == 1 else 'ies match'} with lower "
                               f"scores; --all lists them"))
    if no_term:
        lines.append(style.dim(f"{no_term} entr{'y contains' if no_term == 1 else 'ies contain'} no query term "
                               f"(zero_score); --all lists them"))
    lines.append("")
    meter = f"{e.used_chars}/{e.budget}"
    core = f"; pinned core {e.core_used}/{e.core_budget}" if e.core else ""
    if e.core_left_out:
        core += style.yellow(f", {len(e.core_left_out)} left out for its budget (`memtui core`)")
    if e.block:
        lines.append(style.bold(f"block ({meter} characters of retrieved lines{core})" if e.core
                                else f"block ({meter} characters of entry lines)"))
        lines.extend(safe(line) for line in e.block.split("\n"))
    else:
        lines.append(style.bold(f"block: empty ({meter}); nothing would be injected"))
    return lines


def plan_lines(plan, dry_run: bool) -> list[str]:
    """An import plan (`memtui_core.agents.transfer.ImportPlan`) as text: one line per entry, then what
    is evicted, then the summary. `memtui import` prints it; the app's import dialog previews it."""
    verb = {"add": "add" if dry_run else "added", "refresh": "refresh" if dry_run else "refreshed"}
    out = []
    for row in plan.rows:
        notes = [n for n, on in (("cut to limit", row["truncated"]), ("secret redacted", row["redacted"]),
                                 ("BLOCKED by the threat scan", row["blocked"])) if on]
        if row.get("undated"):
            notes.append("no time in the file: dated now")
        target = f" {row['id']}" if row["id"] else ""
        where = f"{clean(row['file'])} line {row['line']:<5}" if row.get("file") else f"line {row['line']:<5}"
        out.append(f"{verb[row['action']]:<9} {where} [{row['kind']}]{target}"
                   + (f" ({'; '.join(notes)})" if notes else "") + f": {truncate(clean(row['text']), 70)}")
    for gone in plan.evicted:
        out.append(f"{'evict' if dry_run else 'evicted':<9} {gone['id']} [{gone['kind']}]: "
                   f"{truncate(clean(gone['text']), 70)}")
    head = ("would import " if dry_run else "imported ") + plan.summary
    out.append(head)
    if dry_run:
        out.append("nothing was written" + ("; the eviction needs --yes" if plan.evicted else ""))
    return out
