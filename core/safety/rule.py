"""One rule of the threat scan (docs/threat-scan.md) and how it matches a normalised view of a text.

A rule is either a pattern (`triggers`, plain words one of which starts every match, then the
regex that follows) or a clause rule (`together`: word lists one word of each of which must meet
in one clause). Its words and patterns are normalised the way the view it reads normalises text
when they are first read, and compiled when first matched: a process that only redacts a query
pays for the secret rules alone. The table of rules is data (core/safety/rules/, read by
rule_data.py); the scan that runs them is threats.py.
"""

from __future__ import annotations

import re

from ..lazy_re import lazy_pattern
from .scan_views import fold_marks

__all__ = ["CATEGORIES", "VIEWS", "Rule", "RuleDataError"]

CATEGORIES = ("override", "persona", "authority", "fence", "exfiltration", "encoded", "invisible", "secret")
VIEWS = ("words", "text", "cased", "raw")


class RuleDataError(ValueError):
    """A rule or word list that cannot be used, said in one line that names its file and rule."""


class Rule:
    """One rule of the table: a `[[rule]]` of core/safety/rules/<category>.toml (rule_data.py).

    `triggers`: plain lower-case words; every match begins with one (after `lead`, if given).
    `then`: the regex that must follow the trigger. `lead`: a regex that may precede it.
    `unless`: a regex that, found in the 40 characters before a match, cancels it ("never reveal
    the system prompt" warns against the act). A rule without triggers is tried on every text.
    `shape`: for secrets, whether the rule knows a key by its form (and names the finding).
    `needs`: substrings one of which every match holds (a cheap test made before the regex).
    `apart`: words that, found in the clause of a match, cancel it (for either kind of rule).
    `together`: word lists (any order, any script) one word of each of which must occur in one
    clause; the first list serves as triggers. An item that is a string rather than a word list is
    a regex (a class of things no word list can name: a remote address, a placeholder).
    `bound`: (i, before, after) for a clause rule: a word of list i does not count when `before`
    matches the text just before it or `after` the text just after it. It names what an object
    is: "the deploy instructions", "las instrucciones de instalación" are not the model's. Several
    triples may be given, one per list; an empty `after` binds by what comes before only.
    `window`: for a clause rule, how many clauses in a row may hold its words (1: one clause).
    `near`: (i, j, n): a word of list i and one of list j must be at most n characters apart
    ("your ... instructions", not "your" in one half of a long clause and "prompt" in the other).
    `distinct`: for a clause rule, some word of the first list must not overlap a word of the other
    lists ("consent" in "without consent" is what is waived, not a claim that it was given).
    A rule has either `together` or a pattern (`triggers`, `then`, `lead`).
    `prefix`: the triggers may run on into a longer word (key prefixes such as `ghp_`); such
    triggers are looked for as substrings rather than as words. True for `shape` rules.
    `languages`: the languages a rule written for a few of them reads (documentation only; the
    clause rules' word lists hold every language the scan reads). `origin`: the file it came from.
    """

    __slots__ = ("id", "category", "reason", "view", "triggers", "then", "lead", "unless", "shape", "needs", "prefix",
                 "together", "apart", "bound", "window", "near", "distinct", "languages", "origin", "_compiled", "_raw")

    def __init__(
        self,
        id: str,
        category: str,
        reason: str,
        *,
        view: str = "words",
        triggers: tuple[str, ...] = (),
        then: str = "",
        lead: str = "",
        unless: str | None = None,
        shape: bool = False,
        needs: tuple[str, ...] = (),
        prefix: bool | None = None,
        together: tuple[tuple[str, ...], ...] = (),
        apart: tuple[str, ...] | str = (),
        bound: tuple | None = None,
        window: int = 1,
        near: tuple[int, int, int] | None = None,
        distinct: bool = False,
        languages: tuple[str, ...] = (),
        origin: str = "",
    ) -> None:
        assert category in CATEGORIES and view in VIEWS, (category, view)
        self.id = id
        self.category = category
        self.reason = reason
        self.view = view
        self.shape = shape
        self.needs = needs
        self.prefix = True if together and not triggers else shape if prefix is None else prefix
        self.window = window
        self.near = near
        self.distinct = distinct
        self.languages = languages
        self.origin = origin
        self._compiled: tuple | None = None
        # The words and patterns, normalised when first read (`__getattr__`): every process imports
        # the rules, and normalising them all costs 20 ms that a turn redacting one query never needs.
        self._raw: tuple | None = (triggers, then, lead, unless, together, apart, bound)

    def __getattr__(self, name: str):
        if name in _LAZY and self._raw is not None:
            self._normalise()
            return getattr(self, name)
        raise AttributeError(name)

    def _normalise(self) -> None:
        raw = self._raw
        if raw is None:
            return
        triggers, then, lead, unless, together, apart, bound = raw
        if self.view == "words":  # a rule is normalised as the view it reads (_rule_text)
            word, pattern = _rule_text, lambda text: _rule_text(text, regex=True)
            triggers, then, lead = tuple(map(word, triggers)), pattern(then), pattern(lead)
            unless = None if unless is None else pattern(unless)
            together = tuple(pattern(item) if isinstance(item, str) else tuple(map(word, item)) for item in together)
            if _PAIRED(apart):
                apart = (tuple(map(word, apart[0])), pattern(apart[1]))
            else:
                apart = pattern(apart) if isinstance(apart, str) else tuple(map(word, apart))
            bound = tuple((i, pattern(before), pattern(after)) for i, before, after in _bounds(bound))
        self.then = then
        self.lead = lead
        self.unless = unless
        self.together = together
        self.apart = apart
        self.bound = bound
        self.triggers = together[0] if together and not triggers else triggers
        self._raw = None

    @property
    def source(self) -> str:
        triggers = _word_alternation(self.triggers, boundary=self.view != "cased") if self.triggers else ""
        body = self.lead + triggers + self.then
        return body if self.view in ("raw", "cased") else body.replace(" ", r"\s*")

    def _has_needs(self, text: str) -> bool:
        """Whether `text` holds one of `needs`: plain substring tests, nothing compiled (a turn
        that redacts its query tests the needs of some forty key formats). A pattern that ignores
        case (`(?i)` in front) has its needs written in lower case and finds them in any case."""
        if self.then.startswith("(?i)"):
            text = text.lower()
        return any(need in text for need in self.needs)

    def compiled(self) -> tuple:
        if self._compiled is None:
            try:
                self._compile()
            except ImportError:
                raise
            except Exception as exc:  # re.error, regex.error
                where = f"{self.origin}: " if self.origin else ""
                raise RuleDataError(f"{where}{self.id}: its pattern does not compile: {exc}") from None
        return self._compiled  # type: ignore[return-value]

    def _compile(self) -> None:
        if self._compiled is None and self.together:
            words = tuple(re.compile(item if isinstance(item, str) else _lexicon(item)) for item in self.together)
            bound = tuple((index, re.compile(rf"(?:{before})\s*\Z"),
                           re.compile(rf"\w*(?:/|\.[a-z]{{2,4}}\b|\s*(?:{after}))") if after else None)
                          for index, before, after in _bounds(self.bound)) or None
            self._compiled = (words, _apart(self.apart), bound)
        if self._compiled is None:
            apart = _apart(self.apart)
            if self.view == "raw":
                import regex

                pattern = regex.compile(self.source, regex.V1)
            else:
                pattern = re.compile(self.source, re.MULTILINE)
            unless = re.compile(rf"(?:{self.unless})[^.!?。！？\n]*\Z") if self.unless else None
            self._compiled = (pattern, unless, apart)

    def spans(self, text: str) -> list[tuple[int, int]]:
        if self.needs and not self._has_needs(text):
            return []
        if self.together:
            return self._clause_spans(text)
        pattern, unless, apart = self.compiled()
        out = []
        for match in pattern.finditer(text):
            start, end = match.span()
            if unless is not None and unless.search(text, max(0, start - 40), start):
                continue
            if apart is not None and apart(_clause_around(text, start, end)):
                continue
            if "value" in pattern.groupindex and match.group("value") is not None:
                start, end = match.span("value")
            if end > start:
                out.append((start, end))
        return out

    def _clause_spans(self, text: str) -> list[tuple[int, int]]:
        lexicons, apart, bound = self.compiled()
        out = []
        clauses = [clause.span() for clause in _CLAUSE.finditer(text)]
        if len(clauses) > 1 and not all(lexicon.search(text) for lexicon in lexicons):
            return out  # some list has no word anywhere in the text
        window = min(self.window, len(clauses))  # a text of fewer clauses than the window is read whole
        if window > 1:  # a claim and what it licenses often sit in two sentences
            clauses += [(clauses[k][0], clauses[k + window - 1][1]) for k in range(len(clauses) - window + 1)]
        for start, end in clauses:
            if all(lexicon.search(text, start, end) for lexicon in lexicons):
                if apart is not None and apart(text[start:end]):
                    continue
                found = self._distinct(text, start, end, lexicons) if self.distinct else None
                if self.distinct and found is None:
                    continue
                if bound is not None and not all(self._unbound(text, start, end, lexicons, b, found) for b in bound):
                    continue
                if self.near is not None and not self._near(text, start, end, lexicons, found):
                    continue
                out.append((start, end))
        return out

    def _near(self, text: str, start: int, end: int, lexicons, found: list | None = None) -> bool:
        i, j, chars = self.near
        if found is not None:  # the matches `distinct` left
            firsts, seconds = found[i], found[j]
        else:
            firsts = [match.span() for match in lexicons[i].finditer(text, start, end)]
            seconds = [match.span() for match in lexicons[j].finditer(text, start, end)]
        return any(b_start - a_end <= chars and a_start - b_end <= chars
                   for a_start, a_end in firsts for b_start, b_end in seconds)

    @staticmethod
    def _distinct(text: str, start: int, end: int, lexicons) -> list | None:
        """The matches of each list when no two lists count the same characters, or None when some
        list is left with none. A word of the first list inside a word of another is not one of its
        own (in "без разрешения", *without permission*, "разрешен" is the safeguard, not a claim);
        a word of another list inside a word of the first is part of it ("verif" in "verified"). A
        word both lists hold counts for both ("exempt" both vouches and waives)."""
        spans = [[match.span() for match in lexicon.finditer(text, start, end)] for lexicon in lexicons]
        others = [span for rest in spans[1:] for span in rest]
        first = [(a, b) for a, b in spans[0] if not any(c <= a and b <= d and (c, d) != (a, b) for c, d in others)]
        rest = [[(c, d) for c, d in items if not any(a < d and c < b and (c, d) != (a, b) for a, b in first)]
                for items in spans[1:]]
        return [first] + rest if first and all(rest) else None

    @staticmethod
    def _unbound(text: str, start: int, end: int, lexicons, bound, found: list | None = None) -> bool:
        """Whether some word of the bound list is not tied to another object (see `bound`)."""
        index, before, after = bound
        spans = found[index] if found is not None else [m.span() for m in lexicons[index].finditer(text, start, end)]
        for match_start, match_end in spans:
            if before.search(text, max(start, match_start - 40), match_start):
                continue
            if after is not None and after.match(text, match_end, end):
                continue
            return True
        return False

    def __repr__(self) -> str:
        return f"Rule({self.id!r})"


_LAZY = frozenset({"triggers", "then", "lead", "unless", "together", "apart", "bound"})


def _rule_text(text: str, regex: bool = False) -> str:
    """A rule's words or pattern normalised the way the words view normalises text: NFKC, case
    folding (in a pattern only outside ASCII, where it cannot touch an escape like \\S), the Latin
    ligatures' TS #39 prototypes (æ -> ae, œ -> oe, ı -> i) and the combining marks dropped. So a rule
    written `κανόνες`, `คำสั่ง` or `begrænsning` meets the text as the view has it."""
    import unicodedata

    if text.isascii():
        return text
    text = unicodedata.normalize("NFKC", text)
    text = "".join(char if char.isascii() else char.casefold() for char in text) if regex else text.casefold()
    # the Turkish dotless ı too: the views give it its prototype i ("kullanıcı" reads "kullanici")
    return fold_marks(text.replace("æ", "ae").replace("œ", "oe").replace("ı", "i"))


def _bounds(bound) -> tuple:
    """A rule's `bound` as a tuple of (list, before, after) triples (one triple may stand alone)."""
    if not bound:
        return ()
    return (bound,) if isinstance(bound[0], int) else tuple(bound)


def _PAIRED(apart) -> bool:
    return isinstance(apart, tuple) and len(apart) == 2 and isinstance(apart[0], tuple)


def _apart(apart):
    """A test of a clause for a rule's `apart`: a word list is looked for anywhere in it, a regex
    is matched at its start (so it can look ahead over the whole clause); a pair of both is either."""
    if not apart:
        return None
    if _PAIRED(apart):
        words, pattern = re.compile(_lexicon(apart[0])).search, re.compile(apart[1]).match
        return lambda clause: words(clause) is not None or pattern(clause) is not None
    if isinstance(apart, str):
        return re.compile(apart).match
    return re.compile(_lexicon(apart)).search


# A clause: text between sentence marks or line breaks (a dot inside a word, as in a file name,
# does not end one).
_CLAUSE = lazy_pattern(r"(?:[^.!?;。！？；\n]|\.(?=\w)|\.{3}(?= [^\s.]))+")  # an ellipsis ends no clause


def _clause_around(text: str, start: int, end: int) -> str:
    """The clause a match sits in (see _CLAUSE)."""
    for clause in _CLAUSE.finditer(text, max(0, start - 200), min(len(text), end + 200)):
        if clause.start() <= start < clause.end():
            return text[clause.start() : max(end, clause.end())]
    return text[start:end]


def _trie(words, space: str = " ") -> str:
    """An alternation of `words` that shares their common beginnings and prefers the longest, so
    the engine tries each position against a few branches rather than every word. A space in a
    word becomes `space`."""
    branches: dict[str, list[str]] = {}
    for word in words:
        if word:
            branches.setdefault(word[0], []).append(word[1:])
    parts = [(space if first == " " else re.escape(first)) + _trie(rests, space) for first, rests in sorted(branches.items())]
    if not parts:
        return ""
    body = parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"
    return f"(?:{body})?" if "" in words else body


# Scripts written with spaces between words and no prefixes glued to them, whose words a rule's
# word must begin (Latin with diacritics, Greek, Cyrillic, Devanagari): "ты" is not the end of
# "работы". Hebrew and Arabic glue prepositions and articles to the front of a word (מכל, بال),
# Korean its particles to the end: their words match anywhere.
_SPACED = lazy_pattern("[\u00c0-\u024f\u0370-\u052f\u0900-\u097f]")


def _word_alternation(words, space: str = " ", boundary: bool = True) -> str:
    """Any of `words`: one that begins with a Latin letter or digit must begin a word (it may
    run on: `revoke` matches `revoked`), and so must one in a script written with spaces
    (`_SPACED`); any other (Chinese, Japanese, Thai, symbols) matches anywhere. A word written
    with a space at its end, in a script written with spaces, must also end a word: "sin " is
    Spanish "without", not the start of "since"."""
    def ends(word: str) -> bool:  # Korean and Arabic glue particles on: there a space ends nothing
        return word.endswith(" ") and bool(word.strip()) and (word.isascii() or bool(_SPACED.match(word[:1])))

    whole = [word.strip() for word in words if ends(word)]
    words = [word for word in words if not ends(word)]
    latin = [word for word in words if word[:1].isascii() and word[:1].isalnum()]
    spaced = [word for word in words if word not in latin and _SPACED.match(word[:1])]
    other = [word for word in words if word not in latin and word not in spaced]
    parts = []
    short = [word for word in latin if len(word) <= 2]
    if short:  # a word of one or two letters must also end a word ("ai" is not "aim")
        parts.append((r"(?<![a-z0-9])" if boundary else "") + "(?:" + _trie(short, space) + ")(?![a-z0-9])")
    latin = [word for word in latin if len(word) > 2]
    if latin:
        parts.append((r"(?<![a-z0-9])" if boundary else "") + "(?:" + _trie(latin, space) + ")")
    if spaced:
        parts.append((r"(?<!\w)" if boundary else "") + "(?:" + _trie(spaced, space) + ")")
    if other:
        parts.append(_trie(other, space))
    if whole:
        parts.append((r"(?<!\w)" if boundary else "") + "(?:" + _trie(whole, space) + r")(?!\w)")
    return "(?:" + "|".join(parts) + ")"


def _lexicon(words: tuple[str, ...]) -> str:
    """One regex for a word list of a clause rule (see _word_alternation); a space matches any
    run of spaces."""
    return _word_alternation(tuple(word.casefold() for word in words), r"\s*")
