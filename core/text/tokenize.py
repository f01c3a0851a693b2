"""The tokenizer: lowercase ASCII words of 2+ characters, and overlapping bigrams of CJK runs.

Runs of ASCII letters and digits, and runs of CJK characters, are found; everything that is
neither ends a run, and a switch between the two scripts ends the other one
(`前端用Vite` -> 前端 端用 vite).

Two ways find the same runs. A regular expression is fastest on long texts, but compiling its
CJK class costs 2-7 ms (the regex compiler walks the class code point by code point), more than a
whole turn's scoring; a one-shot `memtui inject` only tokenizes its query. So a process splits its
first characters by a loop over the ranges' bounds, and compiles the expression once it has
been given more text than the compile costs (a long text, or many: deriving an index); from then
on the expression serves every text. Both give the same runs (tests/core/text/test_tokenize.py).

Every CJK run is folded to one script first (`fold_han`): traditional Chinese characters become
simplified ones, as OpenCC's tw2s conversion makes them (單位 -> 单位, 回覆 -> 回复), so a text, a
keyword or a query written in either script gives the same terms. The table (han_fold_data.py,
generated from OpenCC) is read the first time a CJK run is met.
"""

from __future__ import annotations

import re
from bisect import bisect
from itertools import groupby

__all__ = ["tokenize", "fold_han", "CJK_RANGES"]

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


_fold: tuple | None = None  # (character table, phrases, each first character's phrase lengths, longest first)


def _fold_tables() -> tuple:
    global _fold
    if _fold is None:
        from .han_fold_data import FROM, PHRASES, TO

        # each entry is a phrase followed by its fold, of the same length
        phrases = {pair[: len(pair) // 2]: pair[len(pair) // 2 :] for pair in PHRASES.split()}
        sizes: dict[str, set[int]] = {}
        for phrase in phrases:
            sizes.setdefault(phrase[0], set()).add(len(phrase))
        _fold = (str.maketrans(FROM, TO), phrases, {char: sorted(found, reverse=True) for char, found in sizes.items()})
    return _fold


def fold_han(text: str) -> str:
    """`text` with its traditional Chinese folded to simplified (docs/ranking.md, "Tokens"): a phrase
    OpenCC converts as a whole first (longest first, from the left), then character by character."""
    table, phrases, first = _fold_tables()
    folded = text.translate(table)
    if first.keys().isdisjoint(text):
        return folded
    parts: list[str] = []
    done = 0  # where the text is folded up to
    for at in [at for at, char in enumerate(text) if char in first]:
        if at < done:
            continue
        for size in first[text[at]]:
            phrase = phrases.get(text[at : at + size])
            if phrase is not None:  # the same length as what it replaces
                parts += (folded[done:at], phrase)
                done = at + size
                break
    if not parts:
        return folded
    parts.append(folded[done:])
    return "".join(parts)


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
            append(fold_han(run))
        else:
            run = fold_han(run)
            extend([run[i : i + 2] for i in range(len(run) - 1)])
    return tokens
