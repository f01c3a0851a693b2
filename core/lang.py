"""The language memtui speaks to the agent: `zh`, `en`, or `auto` (by the user's message).

One setting governs the block's header and labels, the tool and MCP answers, and the CLI output
that goes to a model (`inject`, `explain`'s block). It is chosen, first match wins, by:
an explicit `lang=` argument, the store's `lang` (`MemoryStore(lang=...)`), `$MEMTUI_LANG`,
else `auto`: the user's own language. `zh` is the original block, byte for byte (the nanohermes
profile keeps it whatever the setting says).

`auto` looks at the text being answered (the user's message, the saved text, the query) and
picks `zh` when it holds at least as many CJK characters as Latin words, else `en`; a text with
neither (`42`, an empty query) gets `zh`, the original. It is one regular-expression count over
at most the first 500 characters: cheap enough for every turn, and it imports nothing beyond
`re` (which the block needs anyway).
"""

from __future__ import annotations

import os
import re

from .errors import InvalidInput

__all__ = ["LANGS", "DEFAULT_LANG", "UNDECIDED_LANG", "ENV_VAR", "check_lang", "configured_lang", "resolve_lang", "detect_lang"]

LANGS = ("zh", "en", "auto")
DEFAULT_LANG = "auto"  # the setting when none is given: the language of the user's message
UNDECIDED_LANG = "zh"  # what `auto` picks for a text with neither CJK characters nor Latin words
ENV_VAR = "MEMTUI_LANG"

# Han, kana and hangul: a CJK message gets the Chinese block (its labels are Han characters).
_CJK = "[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]"
_LATIN_WORD = "[A-Za-z\u00c0-\u024f]+"
_SAMPLE = 500


def check_lang(value: object, where: str = "lang") -> str:
    """`value` normalised (trimmed, lower case) if it is one of LANGS; else an InvalidInput
    (a ValueError) naming them."""
    if isinstance(value, str) and value.strip().lower() in LANGS:
        return value.strip().lower()
    raise InvalidInput(f"{where} must be one of {', '.join(LANGS)}, got {value!r}")


def configured_lang(value: object = None) -> str:
    """The setting in force: `value` if given, else `$MEMTUI_LANG`, else `auto`. A bad value is an
    InvalidInput that names the setting it came from."""
    if value is not None:
        return check_lang(value)
    env = os.environ.get(ENV_VAR)
    if env is None or not env.strip():
        return DEFAULT_LANG
    return check_lang(env, "$" + ENV_VAR)


def detect_lang(text: object) -> str:
    """`zh` when the text has at least as many CJK characters as Latin words (and some of
    either), `en` when it has Latin words and fewer CJK characters; `zh` when it has neither."""
    if not isinstance(text, str):
        return UNDECIDED_LANG
    sample = text[:_SAMPLE]
    # compiled on first use (`re` keeps them): a process that never meets `auto` never compiles them
    cjk = len(re.findall(_CJK, sample))
    words = len(re.findall(_LATIN_WORD, sample))
    return "en" if words > cjk else "zh"


def resolve_lang(setting: str, text: object = None) -> str:
    """`zh` or `en`: the setting itself, or for `auto` the language of `text`."""
    return detect_lang(text) if setting == "auto" else setting
