"""Retrieval keywords: extra words an entry is found by, never shown in the block.

Keywords steer retrieval, so every write passes them through `clean_keywords`: a list of
strings only, each stripped and at most `max_keyword_chars` long, duplicates (case-insensitive)
and pure function words dropped, at most `max_keywords` of them, and nothing the threat scan
flags or secret redaction would change. With `strict` (a person or a tool call named them) a
bad keyword is an `InvalidInput` with a one-line reason; otherwise (a model's distillation) it
is dropped and the rest are kept.
"""

from __future__ import annotations

from ..errors import InvalidInput
from ..limits import Limits
from ..safety.threats import Finding, redact, scan_text, strip_controls
from ..text.tokenize import tokenize

__all__ = ["clean_keywords", "merge_keywords"]


def _short(keyword: str) -> str:
    return keyword if len(keyword) <= 24 else keyword[:23] + "…"


SPLIT_WINDOW = 6
"""An instruction split across keywords is looked for in up to this many consecutive keywords.

Keywords are never rendered into the prompt, so what the scan of the list guards is the list
itself: an order spelt out piece by piece ("ignore", "all", "previous", "instructions"). Read as
one text, a long list of unrelated terms can also meet a rule by coincidence: `风速过滤` (a
wind-speed filter) near `remove records` reads as "remove the filters" across ten keywords. So a
flag of the whole list counts only when some run of at most this many consecutive keywords
carries it too; the scan of the windows runs only after the whole list was flagged."""


def _threats(text: str) -> list[Finding]:
    """What the threat scan finds in `text`, secrets aside (they are redacted, not refused)."""
    return [f for f in scan_text(text) if f.category != "secret"]


def _split_instruction(kept: list[str]) -> Finding | None:
    """The finding of an instruction spread over consecutive keywords, or None."""
    found = _threats("\n".join(kept))
    if not found or len(kept) <= SPLIT_WINDOW:
        return found[0] if found else None
    for size in range(2, SPLIT_WINDOW + 1):
        for start in range(len(kept) - size + 1):
            window = _threats("\n".join(kept[start : start + size]))
            if window:
                return window[0]
    return None


def clean_keywords(value: object, limits: Limits, strict: bool = True) -> tuple[list[str], list[str]]:
    """The keywords to store, and a one-line reason for each one dropped (non-strict only)."""
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise InvalidInput(f"keywords must be a list of strings, got {type(value).__name__}")
    kept: list[str] = []
    seen: set[str] = set()
    dropped: list[str] = []

    def refuse(reason: str) -> None:
        if strict:
            raise InvalidInput(reason)
        dropped.append(reason)

    for position, raw in enumerate(value, start=1):
        if not isinstance(raw, str):
            refuse(f"keyword {position} is a {type(raw).__name__}, not a string")
            continue
        keyword = " ".join(strip_controls(raw.lstrip("\ufeff")).split())  # NUL, ESC...: never stored
        if not keyword:
            continue
        try:
            keyword.encode("utf-8")
        except UnicodeEncodeError:
            refuse(f"keyword {position} is not valid Unicode")
            continue
        redacted, secrets = redact(keyword)
        if secrets or redacted != keyword:
            refuse(f"keyword {position} holds a secret ({secrets[0].rule if secrets else 'redacted'}); "
                   "keywords are indexed, never put secrets in them")
            continue
        if len(keyword) > limits.max_keyword_chars:
            refuse(f"keyword {_short(keyword)!r} is {len(keyword)} characters; at most {limits.max_keyword_chars}")
            continue
        threats = _threats(keyword)
        if threats:
            refuse(f"keyword {_short(keyword)!r} was flagged by the threat scan ({threats[0].category}: "
                   f"{threats[0].reason})")
            continue
        folded = keyword.casefold()
        if folded in seen:
            continue
        tokens = tokenize(keyword)
        if not tokens or all(token in limits.stopwords for token in tokens):
            continue  # nothing searchable, or only function words: it would match every message
        seen.add(folded)
        kept.append(keyword)
    joined = _split_instruction(kept)
    if joined is not None:
        refuse(f"the keywords together were flagged by the threat scan ({joined.category}: {joined.reason})")
        return [], dropped
    if len(kept) > limits.max_keywords:
        refuse(f"{len(kept)} keywords; at most {limits.max_keywords}")
        dropped_count = len(kept) - limits.max_keywords
        kept = kept[: limits.max_keywords]
        dropped[-1] = f"{dropped_count} keyword(s) over the limit of {limits.max_keywords} dropped"
    return kept, dropped


def merge_keywords(old: list[str], new: list[str], limits: Limits) -> list[str]:
    """`old` plus the new keywords it lacks (case-insensitive), within `max_keywords`."""
    merged = list(old)
    seen = {keyword.casefold() for keyword in old}
    for keyword in new:
        if keyword.casefold() not in seen and len(merged) < limits.max_keywords:
            merged.append(keyword)
            seen.add(keyword.casefold())
    return merged
