"""How core values look on screen: kind labels and colours, status badges, ages, sizes, flags.

Every function takes a core value and returns a rich `Text`; user text is never parsed as markup.
"""

from __future__ import annotations


from rich.text import Text

from memtui_core.kinds import Kind
from memtui_core.model import Status

from .. import render
from .palette import P

KIND_COLOURS: dict[Kind, str] = {}
STATUS_LOOK: dict[Status, tuple[str, str, str]] = {}  # status: (badge text, style, one-word meaning)
FLAG_STYLES: dict[str, str] = {}
OP_COLOURS: dict[str, str] = {}


def restyle() -> None:
    """Fill the style tables from the palette; the app calls this again whenever the theme changes."""
    KIND_COLOURS.update({
        Kind.PREFERENCE: P.primary,
        Kind.CORRECTION: P.error,
        Kind.LESSON: P.success,
        Kind.FACT: P.warning,
    })
    STATUS_LOOK.update({
        Status.INJECTED: ("injected", f"bold {P.on_success}", "in the block"),
        Status.CUT_TOP_K: ("cut top-k", f"bold {P.on_warning}", "ranked below top-k"),
        Status.CUT_BUDGET: ("cut budget", f"bold {P.on_accent}", "did not fit the budget"),
        Status.BELOW_THRESHOLD: ("weak match", f"bold {P.on_pin}", "held back by the relevance gate"),
        Status.ZERO_SCORE: ("no match", P.muted, "no query term"),
        Status.BLOCKED: ("blocked", f"bold {P.on_error}", "held back"),
        Status.PINNED: ("pinned", f"bold reverse {P.primary}", "in every block (the pinned core)"),
    })
    FLAG_STYLES.update({"blocked": f"bold {P.on_error}", "secret-redacted": P.warning})
    OP_COLOURS.update({
        "add": P.success,
        "refresh": P.primary,
        "edit": P.warning,
        "reclassify": P.pin,
        "delete": P.error,
        "evict": P.error,
        "approve": P.success,
        "restore": P.secondary,
        "quarantine": P.error,
        "import": P.muted,
        "pin": P.primary,
        "unpin": P.muted,
    })


restyle()


def kind_badge(kind: Kind, english: bool = True, width: int | None = None) -> Text:
    """`偏好 preference` in the kind's colour."""
    text = Text(kind.label, style=f"bold {KIND_COLOURS[kind]}")
    if english:
        text.append(" " + kind.value, style=KIND_COLOURS[kind])
    if width is not None:
        text.truncate(width, overflow="ellipsis", pad=True)
    return text


def kind_label(kind: Kind, lang: str) -> Text:
    """The kind's name in one language, in its colour: `偏好` (zh) or `preference` (en)."""
    return Text(kind.label if lang == "zh" else kind.value, style=f"bold {KIND_COLOURS[kind]}")


def user_language(store_lang: str | None = None) -> str:
    """`zh` or `en`, the person's language for words the app shows in one language only: the store's
    language setting when it names one, else the locale ($LC_ALL, $LC_MESSAGES, $LANG: zh_CN.UTF-8
    is Chinese), else English."""
    import os

    if store_lang in ("zh", "en"):
        return store_lang
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(name)
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


def kind_name(kind: Kind) -> str:
    return f"{kind.label} {kind.value}"


def status_words(status: object) -> str:
    """A status as the app names it everywhere (`no match`, `weak match`, `cut top-k`), never the
    internal value (`zero_score`); a value that is no Status (a probe's `missing`) as it is."""
    try:
        return STATUS_LOOK[Status(status)][0]
    except (ValueError, KeyError):
        return str(status).replace("_", " ")


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


def plural(count: int, word: str) -> str:
    """`1 injection`, `2 injections`, `0 injections`."""
    return f"{count} {word}{'' if count == 1 else 's'}"


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
            word, style = flag[7:], P.warning
        elif flag == "secret-redacted":
            word, style = "redacted", FLAG_STYLES["secret-redacted"]
        elif flag.startswith("approved:"):
            word, style = "approved", P.success
        else:
            word, style = flag, P.muted
        if out:
            out.append(" ")
        out.append(word, style=style)
    return out


def core_word(place: tuple[str, int] | None) -> Text:
    """Where an entry stands in the pinned core, in one word for the table: `pinned` (by hand),
    `core` (by its kind), `left out` (over the core's budget); nothing otherwise."""
    if place is None or place[0] == "kept_out":
        return Text("", end="")
    how = place[0]
    if how == "left_out":
        return Text("left out", style=f"bold {P.warning}", end="")
    return Text("pinned" if how == "pinned" else "core", style=f"bold {P.primary}", end="")


def meter(used: int, total: int, width: int = 30) -> Text:
    """A bar like `███████░░░░░░░ 812/2400`."""
    total = max(total, 1)
    filled = min(width, round(width * used / total))
    ratio = used / total
    style = P.success if ratio < 0.75 else P.warning if ratio <= 1 else P.error
    out = Text(no_wrap=True, end="")
    out.append("█" * filled, style=style)
    out.append("░" * (width - filled), style=P.faint)
    out.append(f" {used}/{total}", style="bold")
    return out


def bar(value: float, top: float, width: int, style: str | None = None) -> Text:
    """A horizontal bar of `value` scaled so that `top` fills `width` cells (eighths for precision)."""
    if top <= 0 or value <= 0:
        return Text("", end="")
    eighths = round(8 * width * min(value / top, 1.0))
    full, part = divmod(eighths, 8)
    return Text("█" * full + (" ▏▎▍▌▋▊▉"[part] if part else ""), style=style or P.primary, no_wrap=True, end="")
