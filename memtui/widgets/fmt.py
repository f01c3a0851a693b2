"""How core values look on screen: kind labels and colours, status badges, ages, sizes, flags.

Every function takes a core value and returns a rich `Text`; user text is never parsed as markup.
"""

from __future__ import annotations


from rich.text import Text

from memtui_core.kinds import Kind
from memtui_core.model import Status

from .. import render

KIND_COLOURS = {
    Kind.PREFERENCE: "#5fafff",
    Kind.CORRECTION: "#ff87af",
    Kind.LESSON: "#87d787",
    Kind.FACT: "#ffd75f",
}

STATUS_LOOK = {
    # status: (badge text, style, one-word meaning)
    Status.INJECTED: ("injected", "bold #1c1c1c on #87d787", "in the block"),
    Status.CUT_TOP_K: ("cut top-k", "bold #1c1c1c on #ffd75f", "ranked below top-k"),
    Status.CUT_BUDGET: ("cut budget", "bold #1c1c1c on #ffaf5f", "did not fit the budget"),
    Status.BELOW_THRESHOLD: ("weak match", "bold #1c1c1c on #d7afff", "held back by the relevance gate"),
    Status.ZERO_SCORE: ("no match", "#8a8a8a", "no query term"),
    Status.BLOCKED: ("blocked", "bold #ffffff on #d7005f", "held back"),
}

FLAG_STYLES = {
    "blocked": "bold #ffffff on #d7005f",
    "secret-redacted": "#ffaf5f",
}

OP_COLOURS = {
    "add": "#87d787",
    "refresh": "#5fafff",
    "edit": "#ffd75f",
    "reclassify": "#d7afff",
    "delete": "#ff5f5f",
    "evict": "#ff875f",
    "approve": "#87d7af",
    "restore": "#5fd7ff",
    "quarantine": "#ff5f87",
    "import": "#afafaf",
}


def kind_badge(kind: Kind, english: bool = True, width: int | None = None) -> Text:
    """`偏好 preference` in the kind's colour."""
    text = Text(kind.label, style=f"bold {KIND_COLOURS[kind]}")
    if english:
        text.append(" " + kind.value, style=KIND_COLOURS[kind])
    if width is not None:
        text.truncate(width, overflow="ellipsis", pad=True)
    return text


def kind_name(kind: Kind) -> str:
    return f"{kind.label} {kind.value}"


def status_badge(status: Status) -> Text:
    label, style, _ = STATUS_LOOK[status]
    return Text(f" {label} ", style=style)


def one_line(text: str) -> str:
    return " ".join(text.split())


def clip(text: str, width: int, style: str = "") -> Text:
    """One line of `text`, cut to `width` terminal cells with an ellipsis (CJK counts double)."""
    out = Text(one_line(text), style=style, no_wrap=True, end="")
    if out.cell_len > width:
        out.truncate(max(width, 1), overflow="ellipsis")
    return out


def age(ts: float, now: float | None = None) -> str:
    """A short relative age: `now`, `5m`, `3h`, `12d`, `8mo`, `2y`; `—` when unknown."""
    return render.age(ts, now, unknown="—")


def ago(ts: float, now: float | None = None) -> str:
    """`3d ago`, `just now`, or `at an unknown time`."""
    when = age(ts, now)
    return "at an unknown time" if when == "—" else "just now" if when == "now" else f"{when} ago"


def timestamp(ts: float) -> str:
    if not ts:
        return "unknown"
    return render.local_time(ts)


size = render.size


def flag_words(flags: list[str]) -> Text:
    """Flags shown compactly in the table: `blocked`, `override`, `redacted`, `approved`."""
    out = Text(no_wrap=True, end="")
    judged = "blocked" in flags or any(flag.startswith("approved:") for flag in flags)
    for flag in flags:
        if judged and flag.startswith("threat:"):
            continue  # "blocked" or "approved" says enough here; the detail pane names the threat
        if flag == "blocked":
            word, style = "blocked", FLAG_STYLES["blocked"]
        elif flag.startswith("threat:"):
            word, style = flag[7:], "#ff875f"
        elif flag == "secret-redacted":
            word, style = "redacted", FLAG_STYLES["secret-redacted"]
        elif flag.startswith("approved:"):
            word, style = "approved", "#87d7af"
        else:
            word, style = flag, "#afafaf"
        if out:
            out.append(" ")
        out.append(word, style=style)
    return out


def meter(used: int, total: int, width: int = 30) -> Text:
    """A bar like `███████░░░░░░░ 812/2400`."""
    total = max(total, 1)
    filled = min(width, round(width * used / total))
    ratio = used / total
    style = "#87d787" if ratio < 0.75 else "#ffd75f" if ratio <= 1 else "#ff5f5f"
    out = Text(no_wrap=True, end="")
    out.append("█" * filled, style=style)
    out.append("░" * (width - filled), style="#4e4e4e")
    out.append(f" {used}/{total}", style="bold")
    return out


def bar(value: float, top: float, width: int, style: str = "#5fafff") -> Text:
    """A horizontal bar of `value` scaled so that `top` fills `width` cells (eighths for precision)."""
    if top <= 0 or value <= 0:
        return Text("", end="")
    eighths = round(8 * width * min(value / top, 1.0))
    full, part = divmod(eighths, 8)
    return Text("█" * full + (" ▏▎▍▌▋▊▉"[part] if part else ""), style=style, no_wrap=True, end="")
