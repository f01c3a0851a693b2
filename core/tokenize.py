"""The tokenizer: lowercase ASCII words of 2+ characters, and overlapping bigrams of CJK runs.

One regex pass finds the runs; everything that is neither ASCII alphanumeric nor CJK ends a run,
and a switch between the two scripts ends the other one (`前端用Vite` -> 前端 端用 vite).
"""

from __future__ import annotations

import re

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

_RUNS = re.compile(f"[A-Za-z0-9]+|[{CJK_RANGES}]+")


def tokenize(text: str) -> list[str]:
    tokens: list[str] = []
    append = tokens.append
    extend = tokens.extend
    for run in _RUNS.findall(text):
        if run[0] < "\x80":
            if len(run) > 1:
                append(run.lower())
        elif len(run) == 1:
            append(run)
        else:
            extend([run[i : i + 2] for i in range(len(run) - 1)])
    return tokens
