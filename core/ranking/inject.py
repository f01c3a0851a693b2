"""The fenced block that carries retrieved memories into the system prompt.

Each entry becomes exactly one line inside exactly one fence, whatever its text says: line breaks
become spaces, invisible and control characters go (the terminal never gets ESC or NUL), and copies of the fence markers are defused.
"""

from __future__ import annotations

from functools import lru_cache

from ..kinds import Kind
from ..lazy_re import lazy_pattern
from ..safety.threats import redact, strip_controls, strip_invisible

__all__ = [
    "BLOCK_START",
    "BLOCK_END",
    "CORE_START",
    "CORE_END",
    "HEADER",
    "HEADER_EN",
    "Rendered",
    "clean_for_block",
    "core_line",
    "render_block",
    "render_core_block",
    "render_lines",
    "set_block",
    "shown_source",
]

BLOCK_START = "=== Long-term memory (retrieved from past sessions) ==="
BLOCK_END = "=== End long-term memory ==="
HEADER = "以下是从过往会话中检索到的相关记忆（由对话自动提炼，仅供参考；用户当前指令优先）："
HEADER_EN = (
    "Relevant memories retrieved from past sessions "
    "(distilled automatically from conversations; for reference only; "
    "the user's current instructions take precedence):"
)

# The pinned core (docs/injection.md#the-pinned-core): in the block, a section of its own before the
# retrieved lines; on its own (`core_block`, handed over once per session), a fence of its own.
CORE_LABEL = "始终有效（置顶）："
CORE_LABEL_EN = "Always in context (pinned):"
RETRIEVED_LABEL = "与本条消息相关："
RETRIEVED_LABEL_EN = "Relevant to this message:"
CORE_START = "=== Long-term memory: core (always in context) ==="
CORE_END = "=== End core memory ==="
CORE_HEADER = "以下记忆在每一轮对话中都有效（用户置顶的记忆与长期偏好、纠正；用户当前指令优先）："
CORE_HEADER_EN = (
    "Memories that hold in every turn (pinned by the user, and standing preferences and corrections; "
    "the user's current instructions take precedence):"
)

# The line breaks of docs/injection.md, plus the other characters str.splitlines() breaks on.
_LINE_BREAKS = lazy_pattern("[\r\n\x85\u2028\u2029\v\f\x1c\x1d\x1e]+")
_MARKERS = (BLOCK_START, BLOCK_END, CORE_START, CORE_END)


def _one_line(text: str) -> str:
    """Each run of line breaks in `text` as one space. str.splitlines breaks on the same
    characters, so a text it leaves whole has none, and the expression is compiled only for a
    text that has some."""
    return text if not text or text.splitlines() == [text] else _LINE_BREAKS.sub(" ", text)


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Protocol

    class _HasKindAndText(Protocol):
        kind: Kind
        text: str


@lru_cache(maxsize=1024)
def clean_for_block(text: str) -> str:
    """Text as it may appear on one line of the block. Remembered for the last texts cleaned: a
    long-running agent injects the same few memories turn after turn, and cleaning one runs the
    secret rules over it."""
    text, _ = redact(text)
    # Line breaks first: some of them (NEL, VT, FF) are control characters strip_invisible drops.
    return _defuse(strip_invisible(_one_line(text)))


def shown_source(source: str) -> str:
    """An entry's source as a model may be shown it (the MCP resource): cleaned as a line of the
    block is, and "" when the threat scan flags it (another program may have written it)."""
    if not source:
        return source
    from ..safety.threats import intent_findings

    return "" if intent_findings(source) else clean_for_block(source)


def _defuse(text: str) -> str:
    while any(marker in text for marker in _MARKERS):
        for marker in _MARKERS:
            text = text.replace(marker, marker.replace("===", "=="))
    return text


def _simple_clean(text: str) -> str:
    """`clean_for_block` of a text that holds no secret and nothing invisible but control
    characters: no secret rule runs and no Unicode property table is loaded."""
    return _defuse(strip_controls(_one_line(text)))


def clean_text(entry: _HasKindAndText) -> str:
    """`clean_for_block(entry.text)`, told apart cheaply for an entry whose `plain` is known (a
    Record remembers it, and the derived index keeps it for the next process: a fresh `memtui
    inject` then neither compiles the secret rules nor loads the Unicode tables for its hits)."""
    known = getattr(entry, "plain", None)
    if known:
        return _simple_clean(entry.text)
    cleaned = clean_for_block(entry.text)
    if known is None and hasattr(entry, "plain"):
        entry.plain = cleaned == _simple_clean(entry.text)  # type: ignore[attr-defined]
    return cleaned


def line_for(kind: Kind, text: str, lang: str = "zh") -> str:
    return "\n- [" + kind.label_for(lang) + "] " + clean_for_block(text)


# When a block is made of two stores (core/scopes.py), each line names its entry's scope first.
SCOPE_LABELS = {"project": {"zh": "项目", "en": "project"}, "global": {"zh": "全局", "en": "global"}}


def _label(entry: _HasKindAndText, lang: str) -> str:
    """The bracketed part of a line: the kind's label, after the scope's when the entry has one."""
    scope = getattr(entry, "scope", None)
    label = entry.kind.label_for(lang)
    if scope is None:
        return label
    return SCOPE_LABELS[scope]["en" if lang == "en" else "zh"] + " · " + label


def core_line(entry: _HasKindAndText, lang: str = "zh") -> str:
    """An entry's line in the block (the same in the core and among the retrieved ones)."""
    return "\n- [" + _label(entry, lang) + "] " + clean_text(entry)


class Rendered:
    """A rendered block and how it was filled."""

    __slots__ = ("block", "used_chars", "fitted")

    def __init__(self, block: str, used_chars: int, fitted: int) -> None:
        self.block = block
        self.used_chars = used_chars  # characters of the retrieved entries' lines (the core's are its own)
        self.fitted = fitted  # how many of the given entries made it into the block


def render_lines(entries: Iterable[_HasKindAndText], budget: int = 2400, lang: str = "zh",
                 core: Sequence[str] = ()) -> Rendered:
    """The block for `entries` in rank order, within `budget`; with `core` (the pinned core's lines,
    `core_line`), those first, in a section of their own, and the retrieved lines under a label."""
    lines: list[str] = []
    used = 0
    for entry in entries:
        line = "\n- [" + _label(entry, lang) + "] " + clean_text(entry)
        if used + len(line) > budget:
            break
        lines.append(line)
        used += len(line)
    if not lines and not core:
        return Rendered("", 0, 0)
    en = lang == "en"
    header = HEADER_EN if en else HEADER
    if core:
        body = "\n" + (CORE_LABEL_EN if en else CORE_LABEL) + "".join(core)
        if lines:
            body += "\n\n" + (RETRIEVED_LABEL_EN if en else RETRIEVED_LABEL) + "".join(lines)
    else:
        body = "".join(lines)
    block = BLOCK_START + "\n" + header + "\n" + body + "\n\n" + BLOCK_END
    return Rendered(block, used, len(lines))


def render_core_block(core: Sequence[str], lang: str = "zh") -> str:
    """The pinned core on its own (`MemoryStore.core_block`): its lines (`core_line`) in a fence of
    its own, which `set_block` keeps apart from the retrieved block; "" when the core is empty."""
    if not core:
        return ""
    header = CORE_HEADER_EN if lang == "en" else CORE_HEADER
    return CORE_START + "\n" + header + "\n" + "".join(core) + "\n\n" + CORE_END


def render_block(entries: Iterable[_HasKindAndText], budget: int = 2400, lang: str = "zh") -> str:
    """The block for `entries` in rank order, or "" when no line fits."""
    return render_lines(entries, budget, lang).block


def set_block(system: str, block: str, *, core: bool = False) -> str:
    """Put `block` into the system prompt, replacing any earlier block of its sort; an empty block
    removes it. A core block (`MemoryStore.core_block`, its own markers) replaces only an earlier
    core block, any other only an earlier retrieved one; `core=True` says that an empty block
    removes the core block."""
    start_marker, end_marker = (CORE_START, CORE_END) if core or block.startswith(CORE_START) else (
        BLOCK_START, BLOCK_END)
    start = system.find(start_marker)
    if start != -1:
        end = system.find(end_marker, start + len(start_marker))
        tail = "" if end == -1 else system[end + len(end_marker) :]
        system = system[:start] + tail
    rest = system.rstrip()
    if not rest:
        return block
    if not block:
        return rest
    return rest + "\n\n" + block
