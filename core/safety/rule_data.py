"""The threat scan's rule table and vocabulary, read from data (docs/threat-scan.md#the-rule-table).

core/safety/rules/ holds one TOML file per category (override.toml … secret.toml), each a list
of `[[rule]]` tables, and vocabulary.toml: the word lists and regex pieces the rules share by
name (`{DISMISS}`). A file is read the first time one of its rules is needed: redacting a query
reads secret.toml alone; the first scan of a process reads them all.

Each file's parsed form is kept beside it as JSON (rules/parsed/<name>.json, written by
scripts/gen_threat_rules.py) with the length and CRC-32 of the TOML it came from. Importing
`tomllib` (and `typing`, which it needs) would cost every turn that redacts its query about 5 ms,
and parsing every file 13 ms more on a process's first scan; a JSON file is read in a fraction of
that, with the `json` module the turn has already imported. A TOML file whose JSON no longer
matches it (someone edited it) is read from the TOML itself, so an edit takes effect at once,
and is then checked in full, every pattern compiled, until its JSON is written again; a test
fails while one is stale.

Whenever a file is read the loader checks what a reader could get wrong: fields and keys it does
not know, an id used twice or not starting with its category, a view or a category (a file)
that does not exist, a name in braces the vocabulary does not hold, a word list where a pattern
belongs or the reverse. Each error is a `RuleDataError` of one line that names the file and the
rule or word list.
"""

from __future__ import annotations

import os

from ..lazy_re import lazy_pattern
from .rule import CATEGORIES, VIEWS, Rule, RuleDataError

__all__ = ["DIRECTORY", "FAMILIES", "RuleDataError", "RuleSet", "family", "pattern", "rules", "source_digest",
           "word_list"]

DIRECTORY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rules")
# detect-secrets' key formats as secret rules (scripts/gen_secret_detector.py), beside the files.
DETECTOR = "detect_secrets.json"
# The files, in the order of the table. Where two rules reading the same view find the same span,
# the one that comes first here is listed first.
FAMILIES = ("override", "persona", "authority", "encoded", "fence", "exfiltration", "invisible", "secret")
assert set(FAMILIES) == set(CATEGORIES)

_FIELDS = ("id", "reason", "view", "languages", "triggers", "lead", "then", "unless", "together", "apart",
           "apart_pattern", "bound", "near", "window", "distinct", "needs", "shape", "prefix")
_KNOWN = frozenset(_FIELDS)
_CLAUSE_ONLY = ("bound", "near", "window", "distinct")
_PATTERN_ONLY = ("lead", "then", "unless")
_FORMS = ("not_after",)

# A name in braces: {DISMISS}, {ZH_NAMED:not_after}. Braces in a regex hold digits ({0,3}) or a
# property (\p{Han}); a literal brace is written \{.
_PLACEHOLDER = lazy_pattern(r"(?<!\\[pPN])(?<!\\)\{([A-Z][A-Z0-9_]*)(?::([a-z_]+))?\}")
_SPLICE = lazy_pattern(r"\{([A-Z][A-Z0-9_]*)\}\Z")
_NAME = lazy_pattern(r"[A-Z][A-Z0-9_]*\Z")
_LANGUAGE = lazy_pattern(r"[a-z]{2,3}\Z")


def source_digest(source: bytes) -> str:
    """What a JSON file records of the TOML it was made from: its length and CRC-32."""
    import zlib

    return f"{len(source)}:{zlib.crc32(source):08x}"


# What `re.escape` escapes, but for a space and a hyphen (plain outside a character class).
_SPECIAL = frozenset("()[]{}?*+|^$\\.&~#\t\n\r\v\f")


def _escaped(word: str) -> str:
    """A word as regex text: what `re.escape` gives, but a space and a hyphen kept readable."""
    if _SPECIAL.isdisjoint(word):
        return word
    import re

    return re.escape(word).replace("\\ ", " ").replace("\\-", "-")


class _Vocabulary:
    """The named word lists and patterns of vocabulary.toml, each expanded when first asked for."""

    def __init__(self, data: object, path: str) -> None:
        self.path = path
        self.entries: dict[str, tuple[str, object]] = {}
        if not isinstance(data, dict):
            raise RuleDataError(f"{path}: not a table of word lists and patterns")
        for name, entry in data.items():
            where = f"{path}: {name}"
            if not _NAME.match(name):
                raise RuleDataError(f"{where}: a name is written in capitals, digits and underscores")
            if not isinstance(entry, dict) or len(entry) != 1 or next(iter(entry)) not in ("words", "pattern"):
                raise RuleDataError(f"{where}: an entry holds one key, `words = [...]` or `pattern = ...`")
            kind, raw = next(iter(entry.items()))
            self.entries[name] = (kind, raw)
        self._words: dict[str, tuple[str, ...]] = {}
        self._patterns: dict[str, str] = {}
        self._rendered: dict[tuple[str, str | None], str] = {}
        self._open: list[str] = []

    def _entry(self, name: str, where: str) -> tuple[str, object]:
        entry = self.entries.get(name)
        if entry is None:
            raise RuleDataError(f"{where}: {{{name}}} is not in {os.path.basename(self.path)}")
        if name in self._open:
            raise RuleDataError(f"{self.path}: {name}: refers to itself through {' -> '.join(self._open + [name])}")
        return entry

    def words(self, name: str, where: str) -> tuple[str, ...]:
        found = self._words.get(name)
        if found is None:
            kind, raw = self._entry(name, where)
            if kind != "words":
                raise RuleDataError(f"{where}: {{{name}}} is a pattern, not a word list")
            self._open.append(name)
            try:
                found = self._words[name] = _word_list(raw, f"{self.path}: {name}", "words", lambda: self)
            finally:
                self._open.pop()
        return found

    def pattern(self, name: str, where: str) -> str:
        found = self._patterns.get(name)
        if found is None:
            kind, raw = self._entry(name, where)
            if kind != "pattern":
                raise RuleDataError(f"{where}: {{{name}}} is a word list, not a pattern")
            self._open.append(name)
            try:
                found = self._patterns[name] = _pattern(raw, f"{self.path}: {name}", "pattern", lambda: self)
            finally:
                self._open.pop()
        return found

    def render(self, name: str, form: str | None, where: str) -> str:
        """`{NAME}` in a pattern: a pattern as it is, a word list as an alternation of its words;
        `{NAME:not_after}`: a word list as one look-behind per word (not right after any of them)."""
        found = self._rendered.get((name, form))
        if found is None:
            found = self._rendered[(name, form)] = self._render(name, form, where)
        return found

    def _render(self, name: str, form: str | None, where: str) -> str:
        kind, _ = self._entry(name, where)
        if form is not None and (kind != "words" or form not in _FORMS):
            raise RuleDataError(f"{where}: {{{name}:{form}}}: only a word list takes a form, and the one form is "
                                "`:not_after`")
        if kind == "pattern":
            return self.pattern(name, where)
        words = self.words(name, where)
        if form == "not_after":
            return "".join(f"(?<!{_escaped(word)})" for word in words)
        return "(?:" + "|".join(_escaped(word) for word in words) + ")"

    def check(self) -> None:
        """Expand every entry, so an error in one no rule uses yet is found too."""
        for name, (kind, _) in self.entries.items():
            (self.words if kind == "words" else self.pattern)(name, f"{self.path}: {name}")


def _expand(text: str, where: str, vocabulary) -> str:
    at = text.find("{")
    while at != -1 and not "A" <= text[at + 1 : at + 2] <= "Z":  # most braces are a regex's {0,3}
        at = text.find("{", at + 1)
    if at == -1:
        return text
    return _PLACEHOLDER.sub(lambda match: vocabulary().render(match.group(1), match.group(2), where), text)


def _pattern(value: object, where: str, field: str, vocabulary) -> str:
    """A pattern field: one string, or a list of strings joined end to end (a long regex broken
    over lines, with comments between them)."""
    if isinstance(value, list) and all(isinstance(part, str) for part in value):
        value = "".join(value)
    if not isinstance(value, str):
        raise RuleDataError(f"{where}: `{field}` is a regex: a string, or a list of strings joined end to end")
    return _expand(value, where, vocabulary)


def _word_list(value: object, where: str, field: str, vocabulary) -> tuple[str, ...]:
    """A word-list field: a list of words, where an item `{NAME}` stands for the words of a list
    of the vocabulary."""
    if not isinstance(value, list):
        raise RuleDataError(f"{where}: `{field}` is a list of words")
    try:
        joined = "\x00".join(value)  # most lists: plain words only, told in one pass
    except TypeError:
        joined = "{"
    if "{" not in joined and "" not in value:
        return tuple(value)
    out: list[str] = []
    for item in value:
        if not isinstance(item, str) or not item:
            raise RuleDataError(f"{where}: `{field}` holds {item!r}; a word is a non-empty string")
        splice = _SPLICE.match(item) if "{" in item else None
        if splice is not None:
            out += vocabulary().words(splice.group(1), where)
        elif "{" in item and _PLACEHOLDER.search(item):
            raise RuleDataError(f"{where}: `{field}` holds {item!r}; a word list's name stands alone in it")
        else:
            out.append(item)
    return tuple(out)


def _integer(value: object, where: str, field: str, least: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise RuleDataError(f"{where}: `{field}` is a whole number of at least {least}")
    return value


def _rule(table: object, category: str, path: str, number: int, vocabulary) -> Rule:
    rule_id = table.get("id") if isinstance(table, dict) else None
    if not isinstance(rule_id, str) or not rule_id:
        raise RuleDataError(f"{path}: rule {number}: has no `id`")
    assert isinstance(table, dict)
    where = f"{path}: {rule_id}"
    for key in table:
        if key not in _KNOWN:
            raise RuleDataError(f"{where}: unknown field `{key}` (a rule has {', '.join(_FIELDS)})")
    if not rule_id.startswith(category + ".") or rule_id == category + ".":
        raise RuleDataError(f"{where}: an id starts with its file's category, `{category}.`")
    reason = table.get("reason")
    if not isinstance(reason, str) or not reason.strip() or "\n" in reason:
        raise RuleDataError(f"{where}: `reason` is one line saying what the text does")
    view = table.get("view", "words")
    if view not in VIEWS:
        raise RuleDataError(f"{where}: unknown view {view!r} (the views are {', '.join(VIEWS)})")
    languages = table.get("languages", [])
    if not isinstance(languages, list) or not all(isinstance(code, str) and _LANGUAGE.match(code) for code in languages):
        raise RuleDataError(f"{where}: `languages` is a list of ISO 639 codes such as \"zh\"")
    kwargs: dict = {}
    for field in ("triggers", "needs"):
        if field in table:
            kwargs[field] = _word_list(table[field], where, field, vocabulary)
    for field in _PATTERN_ONLY:
        if field in table:
            kwargs[field] = _pattern(table[field], where, field, vocabulary)
    words = _word_list(table["apart"], where, "apart", vocabulary) if "apart" in table else None
    regex = _pattern(table["apart_pattern"], where, "apart_pattern", vocabulary) if "apart_pattern" in table else None
    if words is not None or regex is not None:
        kwargs["apart"] = (words, regex) if words is not None and regex is not None else words if words is not None else regex
    together = table.get("together")
    if together is not None:
        if not isinstance(together, list) or len(together) < 2:
            raise RuleDataError(f"{where}: `together` is a list of two or more word lists (or regex strings)")
        kwargs["together"] = tuple(
            _pattern(item, where, "together", vocabulary) if isinstance(item, str)
            else _word_list(item, where, "together", vocabulary) for item in together)
        for field in _PATTERN_ONLY:
            if field in table:
                raise RuleDataError(f"{where}: a clause rule (`together`) has no `{field}`")
    else:
        if "triggers" not in table and "then" not in table:
            raise RuleDataError(f"{where}: a rule has `together`, or `triggers` and/or `then`")
        for field in _CLAUSE_ONLY:
            if field in table:
                raise RuleDataError(f"{where}: `{field}` belongs to a clause rule (`together`)")
    lists = len(together) if together is not None else 0
    if "bound" in table:
        bounds = table["bound"]
        if not isinstance(bounds, list) or not bounds:
            raise RuleDataError(f"{where}: `bound` is a list of {{ list = N, before = '...', after = '...' }}")
        triples = []
        for bound in bounds:
            if not isinstance(bound, dict) or not set(bound) <= {"list", "before", "after"} or "list" not in bound \
                    or "before" not in bound:
                raise RuleDataError(f"{where}: a `bound` is {{ list = N, before = '...' }} with an optional `after`")
            index = _integer(bound["list"], where, "bound.list")
            if index >= lists:
                raise RuleDataError(f"{where}: `bound` names list {index}; the rule has {lists} (counted from 0)")
            after = _pattern(bound["after"], where, "bound.after", vocabulary) if "after" in bound else ""
            triples.append((index, _pattern(bound["before"], where, "bound.before", vocabulary), after))
        kwargs["bound"] = tuple(triples)
    if "near" in table:
        near = table["near"]
        if not isinstance(near, dict) or set(near) != {"lists", "chars"} or not isinstance(near["lists"], list) \
                or len(near["lists"]) != 2:
            raise RuleDataError(f"{where}: `near` is {{ lists = [I, J], chars = N }}")
        first, second = (_integer(index, where, "near.lists") for index in near["lists"])
        if max(first, second) >= lists:
            raise RuleDataError(f"{where}: `near` names list {max(first, second)}; the rule has {lists} (counted from 0)")
        kwargs["near"] = (first, second, _integer(near["chars"], where, "near.chars", 1))
    if "window" in table:
        kwargs["window"] = _integer(table["window"], where, "window", 1)
    for field in ("distinct", "shape", "prefix"):
        if field in table:
            if not isinstance(table[field], bool):
                raise RuleDataError(f"{where}: `{field}` is true or false")
            kwargs[field] = table[field]
    return Rule(rule_id, category, reason, view=view, languages=tuple(languages), origin=path, **kwargs)


def _family(data: object, name: str, path: str, vocabulary) -> tuple[Rule, ...]:
    if not isinstance(data, dict):
        raise RuleDataError(f"{path}: not a table of rules")
    for key in data:
        if key not in ("category", "rule"):
            raise RuleDataError(f"{path}: unknown key `{key}` (a rule file holds `category` and its [[rule]] tables)")
    if data.get("category") != name:
        raise RuleDataError(f"{path}: `category = \"{name}\"` must open the file (its name is its category)")
    tables = data.get("rule", [])
    if not isinstance(tables, list):
        raise RuleDataError(f"{path}: the rules are [[rule]] tables")
    out: list[Rule] = []
    seen: set[str] = set()
    for number, table in enumerate(tables, 1):
        rule = _rule(table, name, path, number, vocabulary)
        if rule.id in seen:
            raise RuleDataError(f"{path}: {rule.id}: two rules have this id")
        seen.add(rule.id)
        out.append(rule)
    return tuple(out)


class RuleSet:
    """The rules and vocabulary of one directory, each file read once, when first needed.
    `snapshots=False` reads every file from its TOML and checks it in full (the generator, tests)."""

    def __init__(self, directory: str = DIRECTORY, snapshots: bool = True) -> None:
        self.directory = directory
        self.snapshots = snapshots
        self._families: dict[str, tuple[Rule, ...]] = {}
        self._all: tuple[Rule, ...] | None = None
        self._vocabulary: _Vocabulary | None = None
        self._vocabulary_fresh = True

    def path(self, name: str) -> str:
        return os.path.join(self.directory, name + ".toml")

    def _read(self, name: str) -> tuple[object, bool]:
        """A file's data, and whether it came from a JSON file that matches its TOML."""
        path = self.path(name)
        try:
            with open(path, "rb") as file:
                source = file.read()
        except OSError as exc:
            raise RuleDataError(f"{path}: cannot be read: {exc.strerror or exc}") from None
        if self.snapshots:
            import json

            try:
                with open(os.path.join(self.directory, "parsed", name + ".json"), "rb") as file:
                    parsed = json.loads(file.read())
            except (OSError, ValueError):
                parsed = None
            if isinstance(parsed, dict) and parsed.get("source") == source_digest(source) and "data" in parsed:
                return parsed["data"], True
        import tomllib

        try:
            return tomllib.loads(source.decode("utf-8")), False
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise RuleDataError(f"{path}: not valid TOML: {exc}") from None

    def vocabulary(self) -> _Vocabulary:
        if self._vocabulary is None:
            data, fresh = self._read("vocabulary")
            vocabulary = _Vocabulary(data, self.path("vocabulary"))
            if not fresh:
                vocabulary.check()
            self._vocabulary, self._vocabulary_fresh = vocabulary, fresh
        return self._vocabulary

    def family(self, name: str) -> tuple[Rule, ...]:
        found = self._families.get(name)
        if found is None:
            if name not in FAMILIES:
                raise RuleDataError(f"{self.path(name)}: no such category (they are {', '.join(FAMILIES)})")
            data, fresh = self._read(name)
            found = _family(data, name, self.path(name), self.vocabulary)
            if name == "secret":
                found += self._detector(found)
            if not fresh or not self._vocabulary_fresh:
                for rule in found:
                    rule.compiled()  # a pattern that does not compile: a RuleDataError naming file and rule
            self._families[name] = found
        return found

    def _detector(self, own: tuple[Rule, ...]) -> tuple[Rule, ...]:
        """The key formats detect-secrets knows, read as rules (DETECTOR, written by
        scripts/gen_secret_detector.py; docs/threat-scan.md#secrets): after secret.toml's own, so
        where both find the same key the finding is named by memtui's rule. Checked like a rule
        file, and every pattern compiled, when the directory is not the one shipped."""
        import json

        path = os.path.join(self.directory, DETECTOR)
        try:
            with open(path, "rb") as file:
                data = json.loads(file.read())
        except FileNotFoundError:
            return ()
        except (OSError, ValueError) as exc:
            raise RuleDataError(f"{path}: cannot be read: {exc}") from None
        if not isinstance(data, dict) or not isinstance(data.get("rule"), list):
            raise RuleDataError(f"{path}: not a list of [[rule]] tables")
        found = _family({"category": "secret", "rule": data["rule"]}, "secret", path, self.vocabulary)
        taken = {rule.id for rule in own}
        for rule in found:
            if rule.id in taken:
                raise RuleDataError(f"{path}: {rule.id}: secret.toml has a rule of this id")
            if not self.snapshots:
                rule.compiled()
        return found

    def rules(self) -> tuple[Rule, ...]:
        """Every rule, in the order of FAMILIES and of each file."""
        if self._all is None:
            known = set(FAMILIES) | {"vocabulary"}
            for file in sorted(os.listdir(self.directory)):
                if file.endswith(".toml") and file[:-5] not in known:
                    raise RuleDataError(f"{os.path.join(self.directory, file)}: no such category (a rule file is named "
                                        f"for one of {', '.join(FAMILIES)})")
            # an id starts with its file's category, so two files cannot share one
            self._all = tuple(rule for name in FAMILIES for rule in self.family(name))
        return self._all

    def check(self) -> tuple[Rule, ...]:
        """Every rule and every word list, read and checked in full."""
        self.vocabulary().check()
        every = self.rules()
        for rule in every:
            rule.compiled()
        return every


_DEFAULT: list[RuleSet] = []


def _default() -> RuleSet:
    if not _DEFAULT:
        _DEFAULT.append(RuleSet())
    return _DEFAULT[0]


def family(name: str) -> tuple[Rule, ...]:
    """The rules of one category, read when first asked for (redaction asks for `secret` alone)."""
    return _default().family(name)


def rules() -> tuple[Rule, ...]:
    """The whole table, read when first asked for."""
    return _default().rules()


def word_list(name: str) -> tuple[str, ...]:
    """A word list of vocabulary.toml, for the scan's own use (words that frame a quotation, …)."""
    return _default().vocabulary().words(name, f"{_default().path('vocabulary')}: {name}")


def pattern(name: str) -> str:
    """A pattern of vocabulary.toml, for the scan's own use."""
    return _default().vocabulary().pattern(name, f"{_default().path('vocabulary')}: {name}")
