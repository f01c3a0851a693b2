"""The tokenizer: lowercase ASCII words of 2+ characters, and overlapping bigrams of CJK runs.

Runs of ASCII letters and digits, and runs of CJK characters, are found; everything that is
neither ends a run, and a switch between the two scripts ends the other one
(`前端用Vite` -> 前端 端用 vite).

Two ways find the same runs. A regular expression is fastest on long texts, but compiling its
CJK class costs 2-7 ms (the regex compiler walks the class code point by code point), more than a
whole turn's scoring; a one-shot `memtui inject` only tokenizes its query. So a process splits its
first characters by a loop over the ranges' bounds, and compiles the expression once it has
been given more text than the compile costs (a long text, or many: deriving an index); from then
on the expression serves every text. Both give the same runs (tests/core/test_tokenize.py).
"""

from __future__ import annotations

import re
from bisect import bisect
from itertools import groupby

__all__ = ["tokenize", "CJK_RANGES"]

CJK_RANGES = (
    "\u3400-\u4dbf"  # Han, extension A
    "\u4e00-\u9fff"  # Han, unified ideographs
    "\uf900-\ufaff"  # Han, compatibility ideographs
    "\U00020000-\U0002fa1f"  # Han, extensions B-F and compatibility supplement
    "\u3040-\u30ff"  # Hiragana and Katakana
    "\u31f0-\u31ff"  # Katakana phonetic extensions
    "\uac00-\ud7af"  # Hangul syllables
)

# The ranges as sorted half-open bounds [start, end): a code point is CJK when an odd number of
# bounds are <= it.
_BOUNDS = tuple(sorted(b for i in range(0, len(CJK_RANGES), 3)
                       for b in (ord(CJK_RANGES[i]), ord(CJK_RANGES[i + 2]) + 1)))

# Up to this many characters in all, the loop costs less than compiling the expression (about
# 1.5 us a character against 2-7 ms).
SHORT_TEXT = 1000

_runs_re: re.Pattern[str] | None = None
_loop_left = SHORT_TEXT  # characters the loop may still take before the expression is compiled


def _kind(ch: str) -> int:
    """1 for an ASCII letter or digit, 2 for a CJK character, 0 for anything else."""
    if ch < "\x80":
        return 1 if ch.isalnum() else 0
    return 2 if bisect(_BOUNDS, ord(ch)) & 1 else 0


def short_runs(text: str) -> list[str]:
    """The runs of `text`, by the character loop."""
    return ["".join(group) for kind, group in groupby(text, _kind) if kind]


def regex_runs(text: str) -> list[str]:
    """The runs of `text`, by the regular expression (compiled on first use)."""
    global _runs_re
    if _runs_re is None:
        _runs_re = re.compile(f"[A-Za-z0-9]+|[{CJK_RANGES}]+")
    return _runs_re.findall(text)


def tokenize(text: str) -> list[str]:
    global _loop_left
    if _runs_re is None and len(text) <= _loop_left:
        _loop_left -= len(text)
        runs = short_runs(text)
    else:
        runs = regex_runs(text)
    tokens: list[str] = []
    append = tokens.append
    extend = tokens.extend
    for run in runs:
        if run[0] < "\x80":
            if len(run) > 1:
                append(run.lower())
        elif len(run) == 1:
            append(run)
        else:
            extend([run[i : i + 2] for i in range(len(run) - 1)])
    return tokens
