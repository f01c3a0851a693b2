"""Attacks quoted as examples of attacks: a note that warns about a phishing mail and quotes it.

The threat scan's intent rules and both learned opinions read such a text with its quotations
blanked out (threats.scan_text, threat_model_semantic.batch), so this module stands below both.
"""

from __future__ import annotations

import re

from ..lazy_re import lazy_pattern
from .rule import _lexicon, _rule_text
from .scan_views import text_view, words_view

__all__ = ["_without_quoted_examples"]

# Quotations: paired marks of the common scripts; a straight single quote opens only where a word
# does not continue ("the user's" holds no quotation). Code spans are commands, not quotations.
_QUOTED = lazy_pattern(r"(?<!\w)'[^'\n]{2,400}?'(?![A-Za-z0-9])|\"[^\"\n]{2,400}?\"|“[^”\n]{2,400}?”|„[^“”\n]{2,400}?[“”]"
                     r"|‘[^’\n]{2,400}?’|«[^»\n]{2,400}?»|‹[^›\n]{2,400}?›|「[^」\n]{1,400}?」|『[^』\n]{1,400}?』"
                     r"|《[^》\n]{1,400}?》")
# The words that say a quotation is an example of an attack, not an order (a warning about
# phishing, a test of a model's defences, a list of known jailbreaks): MENTION_FRAME in
# vocabulary.toml.


def _without_quoted_examples(text: str) -> str | None:
    """`text` with its quotations blanked (same length, so offsets hold) when the words outside
    them say the quotations are examples of an attack; None otherwise."""
    if not _QUOTED.search(text):
        return None
    blanked = _QUOTED.sub(lambda match: " " * len(match.group()), text)
    outside = words_view(text_view(blanked)).text
    return blanked if _mention_frame().search(outside) else None


_FRAME: list[re.Pattern[str]] = []


def _mention_frame() -> re.Pattern[str]:
    if not _FRAME:
        from .rule_data import word_list

        _FRAME.append(re.compile(_lexicon(tuple(_rule_text(word) for word in word_list("MENTION_FRAME")))))
    return _FRAME[0]
