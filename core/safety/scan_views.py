"""Text normalisation for the threat scan: what a rule reads instead of the raw text.

Two views are built from the raw text, each step with maintained Unicode data:

`text` view (used by the rules that need punctuation, URLs and line structure):
1. drop default-ignorable code points, format characters (Cf) and control characters other than
   tab and line feed: `regex`'s `\\p{Default_Ignorable_Code_Point}`, `\\p{Cf}` and `\\p{Cc}`;
2. NFKC and case folding: `unicodedata` (the standard library);
3. confusables to their Unicode TS #39 prototype, for characters whose prototype is ASCII,
   inside words that hold Latin letters (or are made only of such characters, so that a word in
   another script is left alone), in text that holds a Latin letter at all: the confusables.txt
   data shipped by `confusable-homoglyphs`.

`words` view (used by the intent rules): the `text` view, then
4. hyphens and soft line breaks inside words removed, underscores between letters made spaces;
5. leetspeak undone inside words that mix letters and digits (`1gn0r3` -> `ignore`);
6. letters spelt out one at a time joined (`i g n o r e`, `I.G.N.O.R.E` -> `ignore`), and spaces
   between Chinese or Japanese characters removed;
7. every run of white space made one space;
8. accents and other combining marks dropped from Latin, Greek, Cyrillic, Arabic and Hebrew
   letters (`olvídate` -> `olvidate`, `règle` -> `regle`, `المطوّرين` -> `المطورين`): `unicodedata`'s
   decomposition (NFD) and combining classes. Rules that read this view are written folded the
   same way (`fold_marks`), so `règle` in a rule is `regle` too.

Each step can carry a map back to raw offsets, so a finding points at the raw text. That costs a
list per character, so the scan first normalises without it and only redoes the work when a rule
matched. Text made only of characters in `_PLAIN` (checked against the same Unicode data by
tests/core/safety/test_scan_views.py) skips steps 1 and 3, so the common case never loads either table.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from ..lazy_re import lazy_pattern

__all__ = ["View", "control_chars", "fold_marks", "is_plain", "prototypes", "strip_controls", "strip_hidden", "text_view",
           "without_ids", "words_view"]

# Characters that no step 1 or step 3 changes: ASCII, Latin-1 and Latin Extended-A letters and
# signs, common punctuation, arrows, boxes, dingbats, CJK punctuation, kana, CJK ideographs,
# Hangul syllables, full-width ASCII and emoji; minus the soft hyphen and the few that have an
# ASCII prototype (Æ × æ ı Œ œ ‖ ╳ 〇). tests/core/safety/test_scan_views.py checks each against the data.
_PLAIN_CLASS = (
    "\x09\x0a\x0d\x20-\x7e"
    "\u00a0-\u00ac\u00ae-\u00c5\u00c7-\u00d6\u00d8-\u00e5\u00e7-\u0130\u0132-\u0151\u0154-\u017f"
    "\u2010-\u2015\u2017-\u2027\u2030-\u205e"
    "\u2190-\u21ff\u2500-\u2572\u2574-\u27bf"
    "\u3000-\u3006\u3008-\u303f\u3041-\u3096\u3099-\u30ff"
    "\u4e00-\u9fff\uac00-\ud7a3"
    "\uff01-\uff5e"
    "\U0001f300-\U0001f5ff\U0001f600-\U0001f64f\U0001f680-\U0001f6ff\U0001f900-\U0001f9ff"
)
# A positive class: a negated one this wide costs the regex compiler ten times as long.
# Compiled on first use, like the other patterns only non-ASCII text needs: these wide classes
# cost milliseconds to compile, which every process would pay at import.
_PLAIN = cache(lambda: re.compile(f"[{_PLAIN_CLASS}]*"))
# C0 and C1 controls but tab, line feed and carriage return, from the character database.
_CONTROL_CHARS = "".join(
    chr(code) for code in range(0x100) if unicodedata.category(chr(code)) == "Cc" and chr(code) not in "\t\n\r"
)
_CONTROL = lazy_pattern(f"[{re.escape(_CONTROL_CHARS)}]")


def control_chars() -> str:
    return _CONTROL_CHARS


def is_plain(text: str) -> bool:
    return text.isascii() and _CONTROL.search(text) is None or _PLAIN().fullmatch(text) is not None


def strip_controls(text: str) -> str:
    """`text` without control characters (tab, line feed and carriage return are kept). A
    printable text has none: the expression is compiled only for a text that may."""
    if text.isprintable():
        return text
    return _CONTROL.sub("", text) if _CONTROL.search(text) else text


class View:
    """A normalised string and, if asked for, the raw offset of each of its characters."""

    __slots__ = ("text", "offsets")

    def __init__(self, text: str, offsets: list[int] | None) -> None:
        self.text = text
        self.offsets = offsets

    def raw_span(self, start: int, end: int, raw_length: int) -> tuple[int, int]:
        if self.offsets is None or not self.offsets:
            return 0, raw_length
        end = max(end, start + 1)
        return self.offsets[min(start, len(self.offsets) - 1)], self.offsets[min(end, len(self.offsets)) - 1] + 1


def _sub(pattern: re.Pattern[str], repl, view: View) -> View:
    """`pattern.sub(repl, ...)` that keeps the offset map: a replacement takes its match's first offset."""
    if view.offsets is None:
        return View(pattern.sub(repl, view.text), None)
    pieces: list[str] = []
    offsets: list[int] = []
    last = 0
    for match in pattern.finditer(view.text):
        start, end = match.span()
        pieces.append(view.text[last:start])
        offsets += view.offsets[last:start]
        new = repl(match) if callable(repl) else match.expand(repl)
        pieces.append(new)
        offsets += [view.offsets[start] if start < len(view.offsets) else 0] * len(new)
        last = end
    pieces.append(view.text[last:])
    offsets += view.offsets[last:]
    return View("".join(pieces), offsets)


def _map_chars(fn, view: View) -> View:
    pieces = [fn(char) for char in view.text]
    assert view.offsets is not None
    return View("".join(pieces), [view.offsets[i] for i, piece in enumerate(pieces) for _ in piece])


# ---------------------------------------------------------------- step 1: ignorable characters

_IGNORABLE = None


def _ignorable():
    global _IGNORABLE
    if _IGNORABLE is None:
        import regex

        _IGNORABLE = regex.compile(r"(?![\t\n\r])[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cc}]+")
    return _IGNORABLE


_HIDDEN = None


def strip_hidden(text: str) -> str:
    """`text` without default-ignorable, format and control characters (tab and line breaks
    kept), except a zero-width joiner between emoji and an emoji presentation selector after
    one, which only shape the emoji a reader sees."""
    global _HIDDEN
    if is_plain(text):
        return strip_controls(text)
    if _HIDDEN is None:
        import regex

        _HIDDEN = regex.compile(
            r"[[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cc}]--[\t\n\r\u200d\ufe0f]]"
            r"|(?<![\p{Emoji}\p{Emoji_Modifier}\ufe0f])\u200d|\u200d(?!\p{Emoji})|(?<!\p{Emoji})\ufe0f",
            regex.V1,
        )
    # Dropping one character can leave a joiner with nothing to join: repeat until nothing changes.
    while True:
        stripped = _HIDDEN.sub("", text)
        if stripped == text:
            return text
        text = stripped


def _drop_ignorable(view: View, plain: bool) -> View:
    if plain:
        return _sub(_CONTROL, "", view) if _CONTROL.search(view.text) else view
    return _sub(_ignorable(), "", view)


# ---------------------------------------------------------------- step 2: NFKC and case folding


def _fold_char(char: str) -> str:
    return unicodedata.normalize("NFKC", char).casefold()


def _fold(view: View, plain: bool) -> View:
    if view.offsets is None:
        text = view.text if view.text.isascii() else unicodedata.normalize("NFKC", view.text)
        return View(text.casefold(), None)
    if view.text.isascii():
        return View(view.text.lower(), view.offsets)
    return _map_chars(_fold_char, view)


# ---------------------------------------------------------------- step 3: confusables

_PROTOTYPES: dict[str, str] | None = None


def prototypes() -> dict[str, str]:
    """Each character whose TS #39 prototype is ASCII letters or digits, mapped to it (lower case)."""
    global _PROTOTYPES
    if _PROTOTYPES is None:
        import importlib.util
        import os

        import orjson

        spec = importlib.util.find_spec("confusable_homoglyphs")
        table: dict[str, str] = {}
        if spec is not None and spec.submodule_search_locations:
            path = os.path.join(list(spec.submodule_search_locations)[0], "confusables.json")
            with open(path, "rb") as handle:
                data = orjson.loads(handle.read())
            for char, homoglyphs in data.items():
                if char.isascii() or len(char) != 1:
                    continue
                for homoglyph in homoglyphs:
                    target = homoglyph.get("c", "")
                    if target and target.isascii() and target.isalnum():
                        table[char] = target.lower()
                        break
        _PROTOTYPES = table
    return _PROTOTYPES


_WORD = lazy_pattern(r"[^\W_]+")


def _disguised(word: str, table: dict[str, str]) -> bool:
    """A word to map: it holds Latin letters (`ấ` as well as `a`), or every character has an ASCII
    prototype (a word wholly in another script that cannot pass for ASCII is left as it is)."""
    return any("a" <= char <= "z" or char > "\x7f" and _script(char) == "LATIN" for char in word) or all(
        char in table for char in word)


@cache
def _script(char: str) -> str:
    """The script of a letter as the character database names it (`CYRILLIC`, `GREEK`, `LATIN`…)."""
    return unicodedata.name(char, "?").split(" ", 1)[0]


_INTO: dict[str, dict[str, str]] = {}


def _into(script: str, table: dict[str, str]) -> dict[str, str]:
    """ASCII letter -> the letter of `script` that TS #39 gives the same prototype (`o` -> Cyrillic
    `о`): how a Latin letter slipped into a Cyrillic or Greek word is read back into it."""
    if script not in _INTO:
        found: dict[str, str] = {}
        for char, target in sorted(table.items(), key=lambda item: len(unicodedata.name(item[0], ""))):
            if len(target) == 1 and char.islower() and _script(char) == script:
                found.setdefault(target, char)
        _INTO[script] = found
    return _INTO[script]


def _foreign(word: str, table: dict[str, str]) -> str | None:
    """The script of a word that holds a letter of Cyrillic or Greek with no ASCII lookalike (`т`,
    `ы`, `λ`): such a word cannot pass for Latin, so its Latin letters are the disguise."""
    for char in word:
        if char > "\x7f" and char not in table and char.isalpha():
            script = _script(char)
            if script in ("CYRILLIC", "GREEK"):
                return script
    return None


_LATIN = lazy_pattern("[a-z]")


def _skeleton(view: View, plain: bool) -> View:
    # Text without a Latin letter has nothing to pass itself off as: a Russian sentence is left
    # alone, and the table is not even loaded.
    if plain or not _LATIN.search(view.text):
        return view
    table = prototypes()
    pieces: list[str] = []
    offsets: list[int] | None = None if view.offsets is None else []
    last = 0
    for match in _WORD.finditer(view.text):
        word = match.group()
        if word.isascii() or not _disguised(word, table):
            continue
        start, end = match.span()
        pieces.append(view.text[last:start])
        script = _foreign(word, table)
        if script is not None:
            if not any("a" <= char <= "z" for char in word):
                continue
            into = _into(script, table)
            mapped = [into.get(char, char) if "a" <= char <= "z" else char for char in word]
        else:
            mapped = [table.get(char, char) for char in word]
        pieces += mapped
        if offsets is not None:
            offsets += view.offsets[last:start]
            offsets += [view.offsets[start + i] for i, piece in enumerate(mapped) for _ in piece]
        last = end
    if not pieces:
        return view
    pieces.append(view.text[last:])
    if offsets is not None:
        offsets += view.offsets[last:]
    return View("".join(pieces), offsets)


# ---------------------------------------------------------------- steps 4-7: the words view

_INNER_HYPHEN = lazy_pattern(r"[-\u2010\u2011](?<=[^\W\d_].)(?=[^\W\d_])")
_INNER_UNDERSCORE = lazy_pattern(r"_(?<=[^\W\d_]_)_*(?=[^\W\d_])")
_LEET_WORD = lazy_pattern(r"(?=[a-z0-9@$]*[a-z])(?=[a-z0-9@$]*[0-9@$])[a-z0-9@$]{2,}")
_LEET = str.maketrans("0134578@$", "oieastbas")
_SPELT = lazy_pattern(r"(?<![^\W\d_])[^\W\d_](?:[ .*·\-][^\W\d_](?![^\W\d_])){2,}")
_SPELT_GAP = lazy_pattern(r"[ .*·\-]")
_CJK_GAP = cache(lambda: re.compile(r"(?<=[\u3040-\u30ff\u4e00-\u9fff]) +(?=[\u3040-\u30ff\u4e00-\u9fff])"))
_SPACES = lazy_pattern(r"\s+")


def _unleet(match: re.Match[str]) -> str:
    return match.group().translate(_LEET)


def _unspell(match: re.Match[str]) -> str:
    return _SPELT_GAP.sub("", match.group())


def text_view(raw: str, *, tracked: bool = False, plain: bool | None = None) -> View:
    if plain is None:
        plain = is_plain(raw)
    view = View(raw, list(range(len(raw))) if tracked else None)
    view = _drop_ignorable(view, plain)
    view = _fold(view, plain)
    return _skeleton(view, plain)


# Cheap tests that tell whether a step can change anything (each starts with a character class,
# which the regex engine skips along quickly; the steps' own patterns start with lookarounds).
_MIXED = lazy_pattern(r"[a-z][0-9@$]|[0-9@$][a-z]")
_SPELT_HINT = lazy_pattern(r"[ .*·\-][^\W\d_][ .*·\-]")


# ---------------------------------------------------------------- step 8: combining marks

# Scripts whose letters carry marks that spelling leaves out or varies (accents, harakat, niqqud):
# Latin, Greek, Cyrillic, Hebrew, Arabic. Hangul, kana and Indic letters are left whole.
_MARKED = lazy_pattern("[\u00c0-\u024f\u0300-\u036f\u0370-\u04ff\u0591-\u05c7\u0610-\u061a\u064b-\u065f"
                     "\u0670\u06d6-\u06ed\u1e00-\u1fff]")


@cache
def _unmark_char(char: str) -> str:
    if not _MARKED.match(char):
        return char
    return "".join(c for c in unicodedata.normalize("NFD", char) if not unicodedata.combining(c))


def fold_marks(text: str) -> str:
    """`text` without the combining marks of step 8 (used on the words view and on the rules that read it)."""
    if text.isascii() or not _MARKED.search(text):
        return text
    return "".join(map(_unmark_char, text))  # cached per character: no pattern call per character


def _fold_marks(view: View) -> View:
    if view.text.isascii() or not _MARKED.search(view.text):
        return view
    if view.offsets is None:
        return View(fold_marks(view.text), None)
    return _map_chars(lambda char: _unmark_char(char) if _MARKED.match(char) else char, view)


def words_view(text: View) -> View:
    view = _fold_marks(text)
    raw = view.text
    if "-" in raw or "\u2010" in raw or "\u2011" in raw:
        view = _sub(_INNER_HYPHEN, "", view)
    if "_" in raw:
        view = _sub(_INNER_UNDERSCORE, " ", view)
    if _MIXED.search(view.text):
        view = _sub(_LEET_WORD, _unleet, view)
    if _SPELT_HINT.search(view.text):
        view = _sub(_SPELT, _unspell, view)
    if " " in view.text and not view.text.isascii():
        view = _sub(_CJK_GAP(), "", view)
    if "  " in view.text or "\n" in view.text or "\t" in view.text or "\r" in view.text:
        view = _sub(_SPACES, " ", view)
    return view


# A token of digits and letters that names something (w06, i049, k3418243383, sha256, a1b2c3): at
# least one digit, and at most two letters or no more letters than digits (`_is_id`). Leetspeak
# (y0ur, pr10r, 1nstruct10ns) keeps more letters than digits and stays.
_TOKEN_WITH_DIGIT = lazy_pattern(r"(?<![\w.-])[A-Za-z0-9._-]*\d[A-Za-z0-9._-]*(?![\w-])")


def without_ids(read: str) -> str:
    """`read` without its id-like tokens, for the learned opinions: ids, hashes and codes say
    nothing of intent, and alone they are never a threat ("w06 i049 k3418243383 note on kettles")."""
    if not any(char.isdigit() for char in read):
        return read
    return _TOKEN_WITH_DIGIT.sub(lambda match: " " if _is_id(match.group()) else match.group(), read)


def _is_id(token: str) -> bool:
    letters = sum(char.isalpha() for char in token)
    digits = sum(char.isdigit() for char in token)
    return digits > 0 and (letters <= 2 or letters <= digits)
