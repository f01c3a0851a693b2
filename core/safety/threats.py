"""The threat scan (docs/threat-scan.md): what in a memory's text could steer, fence-break or rob the agent.

It is a filter, not a guarantee: it blocks what its rules recognise, and text it does not flag
is not thereby safe.

Every rule is one `[[rule]]` of a file in core/safety/rules/ (read by rule_data.py, the first
time one is needed): an id, a category, a one-line reason, the view it reads, and its pattern,
written as `triggers` (plain words, one of which starts every match) followed by the rest, or
as word lists that must meet in one clause. The triggers are the only words the fast pre-check
(rule_index.py) looks for, and they are part of the pattern, so the two cannot drift apart.
Rules read a normalised view of the text (see scan_views.py): `words` for the intent rules
(leetspeak, spelling out and hyphenation undone), `text` for the rules that need punctuation and
lines, `raw` for the invisible characters normalisation removes. In a `words` or `text` pattern
a plain space stands for optional white space (`\\s*`), so a phrase also matches when its words
were run together (rule.py).

Base64, hex and percent-encoded runs are decoded and scanned again (decoders.py); what they hide
is reported under `encoded` and under its own category. Offsets in a `Finding` index the raw text.
`RULES`, the whole table, is read when first asked for.
"""

from __future__ import annotations

import re

from ..lazy_re import lazy_pattern
from .decoders import _LONG_RUN, _MAX_DEPTH, _MORSE_RUN, _decoded, _names_transform, _transformed
from .quoted import _without_quoted_examples
from .rule import CATEGORIES, Rule
from .rule_index import _index
from .scan_views import (
    _CONTROL,
    View,
    _ignorable,
    is_plain,
    strip_controls,
    strip_hidden,
    text_view,
    without_ids as _without_ids,
    words_view,
)

__all__ = [
    "CATEGORIES", "RULES", "Finding", "Rule", "intent_findings", "redact", "redact_secrets", "scan_text", "strip_invisible",
    "strip_controls", "threat_flags",
]


class Finding:
    """One match: which rule, why it matters, and where (offsets into the raw text)."""

    __slots__ = ("category", "rule", "reason", "excerpt", "start", "end")

    def __init__(self, category: str, rule: str, reason: str, excerpt: str, start: int, end: int) -> None:
        self.category = category
        self.rule = rule
        self.reason = reason
        self.excerpt = excerpt
        self.start = start
        self.end = end

    def _key(self) -> tuple[str, str, str, str, int, int]:
        return (self.category, self.rule, self.reason, self.excerpt, self.start, self.end)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Finding):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Finding({self.rule!r}, {self.excerpt!r}, {self.start}, {self.end})"

    def as_dict(self) -> dict[str, str | int]:
        return {slot: getattr(self, slot) for slot in self.__slots__}


def __getattr__(name: str):
    if name == "RULES":  # the whole table, read from core/safety/rules/ when first asked for
        from .rule_data import rules

        return rules()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ---------------------------------------------------------------- the API


def scan_text(text: str, *, second_opinion: bool = False) -> list[Finding]:
    """Every finding of the rules in `text`, ordered by where it starts. With `second_opinion`
    (the write path: a write records what it finds in the entry's flags), the learned model
    (core/safety/threat_model.py) reads it too when no rule names an intent (only a secret or invisible
    characters, or nothing).

    An attack quoted as an example of one (a phishing warning that quotes "ignore the previous
    instructions", a test fixture that lists "You are now DAN") is data: when the text outside its
    quotations names such a frame (`_MENTION_FRAME`), the intent rules and the model read the text
    with the quotations blanked out. Invisible characters and secrets count wherever they are."""
    findings = [finding for finding in _scan(text, 0, secrets=True) if not _documented(finding, text)]
    named = [finding for finding in findings if finding.category not in _NO_INTENT]
    read = text
    if named or second_opinion:
        unquoted = _without_quoted_examples(text)
        if unquoted is not None:
            read = unquoted
            if named:
                findings = [finding for finding in findings if finding.category in _NO_INTENT]
                findings += [finding for finding in _scan(unquoted, 0, secrets=False) if finding.category not in _NO_INTENT]
                findings.sort(key=lambda finding: (finding.start, finding.end))
    if second_opinion and not any(finding.category not in _NO_INTENT for finding in findings):
        findings += _learned(read, text)
    findings += _disguises(findings, text)
    return findings


# Words a rule read only once the normalisation undid how they were written: letters of another
# script that look alike inside one word (`Instruсtіоns`, Cyrillic in Latin; `oтключи`, Latin in
# Cyrillic), styled compatibility letters (`𝐭𝐡𝐞`, full-width `ｙｏｕ`), digits for letters
# (`y0ur pr10r`), letters spelt out one by one (`d r o p`). Judged only where an intent rule matched,
# and only over what it matched: the disguise is what hid that intent from a reader or a filter.
_DISGUISE_WORD = lazy_pattern(r"[^\W_]+")
_LEET_TOKEN = lazy_pattern(r"(?<![\w])(?=\w*[^\W\d_][0-9@$])(?=\w*[0-9@$][^\W\d_])[^\W_]{3,}")
_SPELT_OUT = lazy_pattern(r"(?<!\w)(?:[^\W\d_][ .\u3000]{1,3}){4,}[^\W\d_](?!\w)")


def _disguise_in(raw: str) -> str | None:
    """How `raw` hides its words, or None."""
    import unicodedata

    from .scan_views import _script

    for word in _DISGUISE_WORD.findall(raw):
        if word.isascii():
            continue
        scripts = {_script(char) for char in word if char.isalpha()}
        if len(scripts & {"LATIN", "CYRILLIC", "GREEK"}) > 1:
            return "mixes letters of two scripts that look alike inside one word"
        for char in word:
            if ord(char) > 0x7f and char.isalnum():
                folded = unicodedata.normalize("NFKC", char)
                if folded != char and folded.isascii():
                    return "writes its words in styled letters (mathematical, full-width or enclosed)"
    if len(_LEET_TOKEN.findall(raw)) >= 2:
        return "writes its words with digits for letters"
    if _SPELT_OUT.search(raw):
        return "spells its words out one letter at a time"
    return None


def _disguises(findings: list[Finding], text: str) -> list[Finding]:
    if not any(finding.category not in _NO_INTENT for finding in findings):
        return []
    if text.isascii() and not _LEET_TOKEN.search(text) and not _SPELT_OUT.search(text):
        return []
    for finding in findings:
        if finding.category in _NO_INTENT or finding.rule.startswith(("model.", "semantic.", "encoded.", "warning.")):
            continue
        how = _disguise_in(text[finding.start:finding.end])
        if how is not None:
            return [Finding("invisible", "invisible.disguised-words",
                            f"{how}, so a reader or a filter misses what a rule read once it was undone",
                            _excerpt(text[finding.start:finding.end]), finding.start, finding.end)]
    return []


_NO_INTENT = ("secret", "invisible")


def _documented(finding: Finding, text: str) -> bool:
    """Whether a format character is one the text names by its code point: a note about cleaning
    U+200B out of a CSV that shows one ('Invoice\u200bNo') documents it. Only single format
    characters (`invisible.format`) are excused so; tag characters, runs of variation selectors and
    bidirectional controls are flagged whatever the text says, and every invisible character is
    still removed before the intent rules read the text."""
    if finding.rule != "invisible.format":
        return False
    chars = set(text[finding.start : finding.end])
    return bool(chars) and all(re.search(rf"(?i)(?:\bu\+0*|\\u\{{?0*){ord(char):x}\b", text) or _named(char, text)
                               for char in chars)


def _named(char: str, text: str) -> bool:
    """Whether `text` names `char` by its Unicode name ("soft hyphen", "zero width space") or its
    HTML entity (`&shy;`): the character database and the standard library's entity table."""
    import unicodedata
    from html.entities import codepoint2name

    lowered = " ".join(text.lower().replace("-", " ").split())
    name = unicodedata.name(char, "").lower().replace("-", " ")
    entity = codepoint2name.get(ord(char))
    return bool(name) and (name in lowered or name + "s" in lowered) or entity is not None and f"&{entity};" in text


_MODEL_MIN_WORDS = 4  # a note of a few words (a URL, a command) gives the model too little to go on


_PROSE = lazy_pattern(r"[^\W\d_]{2,}")
_PATHLIKE = lazy_pattern(r"\S*[/\\]\S*")


def _prose_words(words: str) -> int:
    """Words of prose in a words view: letter runs outside URLs and paths, and each two CJK
    characters (written without spaces) count as one."""
    count = 0
    for run in _PROSE.findall(_PATHLIKE.sub(" ", words)):
        count += max(1, len(run) // 2) if run[0] >= "\u3000" else 1
    return count


def _second_opinion(read: str, text: str) -> list[Finding]:
    """The model's finding about `read` (the text, or the text without its quoted examples),
    its id-like tokens left out."""
    read = _without_ids(read)
    words = words_view(text_view(read)).text
    if _prose_words(words) < _MODEL_MIN_WORDS:
        return []
    from .threat_model import load

    verdict = load().judge(words)
    if verdict is None or not _evidence(verdict[0], text):
        return []
    category, probability = verdict
    return [Finding(category, f"model.{category}",
                    f"reads like a hostile memory ({category}) to the model learned from memtui's threat corpora "
                    f"(probability {probability:.2f}); no rule names it, so read it before approving",
                    _excerpt(text), 0, len(text))]


# A learned verdict with no rule behind it blocks only when it is sure; otherwise it is a warning
# (`warning.<rule>`: shown by the editor's live check, never a flag). Measured on every corpus and
# on tests/core/safety/data/threat_classes.json (docs/threat-scan.md#what-a-learned-verdict-needs):
# - the text has at least `_SURE_WORDS` words of prose: on fewer the character model is not
#   calibrated ("nota sobre chaleiras: filtro" reads 0.87 persona);
# - a character-model verdict is not contradicted by the sentence model: its score (weighed as
#   for its own verdict) is at least `_AGREE` when the embedder is there. A sentence-model
#   verdict already needs the character model's agreement (threat_model_semantic.Model.score).
_SURE_WORDS = 6
_AGREE = 0.5


def _learned(read: str, text: str) -> list[Finding]:
    """The learned opinions about `read` (the second, else the third), each either blocking or a warning."""
    found = _second_opinion(read, text)
    third = not found
    if third:
        found = _third_opinion(read, text)
    if not found:
        return []
    words = words_view(text_view(_without_ids(read))).text
    why = None
    if _prose_words(words) < _SURE_WORDS:
        why = f"fewer than {_SURE_WORDS} words of prose, too few for a learned verdict alone to block"
    elif not third:
        from .threat_model import load
        from .threat_model_semantic import score

        agreement = score(_without_ids(read), load().hostile(words))
        if agreement is not None and agreement < _AGREE:
            why = f"the sentence model does not agree (score {agreement:.2f})"
    if why is None:
        return found
    return [Finding(f.category, "warning." + f.rule, f"{f.reason}; a warning only, not blocked: {why}", f.excerpt,
                    f.start, f.end) for f in found]


def _evidence(category: str, text: str) -> bool:
    """Whether `text` holds what a learned verdict of `category` is about, where that is a thing a
    reader can point at: hidden characters for `invisible`, an encoded run or a named transformation
    for `encoded`. A short plain note ("nota sui bollitori: filtro") the character model finds
    "invisible" holds nothing invisible: the verdict is the model's mistake, not a threat."""
    if category == "invisible":
        return not is_plain(text) and _ignorable().search(text) is not None or _has_control(text)
    if category == "encoded":
        return bool(_LONG_RUN.search(text) or _names_transform(text) or "\\" in text or "&#" in text
                    or "%" in text or _MORSE_RUN.search(text))
    return True


def _third_opinion(read: str, text: str) -> list[Finding]:
    """The semantic model's finding about `read` (core/safety/threat_model_semantic.py) when neither the
    rules nor the character model named an intent; nothing without the embedder."""
    read = _without_ids(read)
    words = words_view(text_view(read)).text
    if _prose_words(words) < _MODEL_MIN_WORDS:
        return []
    from .threat_model import load
    from .threat_model_semantic import judge

    # The character model's probability is weighed in (threat_model_semantic.Model.score): a text
    # the sentence model alone finds hostile, spelt like nothing hostile, needs a surer sentence model.
    char = load().hostile(words)
    verdict = judge(read, char)
    if verdict is None or not _evidence(verdict[0], text):
        return []
    category, probability, score = verdict
    weighed = f", {score:.2f} weighed with the character model's {char:.2f}" if score != probability else ""
    return [Finding(category, f"semantic.{category}",
                    f"means much what hostile memories ({category}) mean, to the sentence model learned from "
                    f"memtui's threat corpora (probability {probability:.2f}{weighed}); no rule names it, so read "
                    "it before approving", _excerpt(text), 0, len(text))]


def _scan(text: str, depth: int, secrets: bool) -> list[Finding]:
    plain = is_plain(text)
    findings: list[Finding] = []
    if not plain or _has_control(text):
        findings += _run(_index("raw").candidates(text), View(text, None), text)
    text_v = text_view(text, plain=plain)
    words_v = words_view(text_v)
    by_view: dict[str, list[Rule]] = {"words": [], "text": [], "cased": [], "secret": []}
    searched = text_v.text
    if words_v.text != searched:
        searched += "\n" + words_v.text
    if not plain:
        searched += "\n" + text.lower()
    for rule in _index("views").candidates(searched):
        by_view["secret" if rule.category == "secret" else rule.view].append(rule)
    findings += _run(by_view["cased"], View(text, None), text)
    for view_name, view in (("words", words_v), ("text", text_v)):
        matched = [(rule, spans) for rule in by_view[view_name] for spans in (rule.spans(view.text),) if spans]
        if not matched:
            continue
        # Something matched: redo the view with its map back to raw offsets.
        tracked = text_view(text, tracked=True, plain=plain)
        if view_name == "words":
            tracked = words_view(tracked)
        if tracked.text != view.text:  # the same steps give the same text; never trust that blindly
            findings += _run([rule for rule, _ in matched], tracked, text)
            continue
        for rule, spans in matched:
            findings += _findings(rule, spans, tracked, text)
    if secrets and by_view["secret"]:
        findings += _secrets(text, by_view["secret"])
    if depth < _MAX_DEPTH and (_LONG_RUN.search(text) or _names_transform(text) or "\\" in text or "&#" in text
                               or "-" in text and "." in text and _MORSE_RUN.search(text)
                               or '""' in text or "''" in text):
        for kind, start, end, decoded in _decoded(text) + _transformed(text, depth):
            inner = [f for f in _scan(decoded, depth + 1, secrets=False) if f.category != "invisible"]
            if not inner:
                continue
            first = inner[0]
            excerpt = _excerpt(text[start:end])
            findings.append(Finding("encoded", f"encoded.{kind}", f"{kind} that decodes to text which {first.reason}",
                                    excerpt, start, end))
            for category in dict.fromkeys(f.category for f in inner if f.category != "encoded"):
                finding = next(f for f in inner if f.category == category)
                findings.append(Finding(category, finding.rule, f"{finding.reason} (hidden as {kind})", excerpt, start, end))
    findings.sort(key=lambda finding: (finding.start, finding.end))
    return findings


def _has_control(text: str) -> bool:
    return _CONTROL.search(text) is not None


def _run(rules: list[Rule], view: View, raw: str) -> list[Finding]:
    findings = []
    for rule in rules:
        findings += _findings(rule, rule.spans(view.text), view, raw)
    return findings


def _findings(rule: Rule, spans: list[tuple[int, int]], view: View, raw: str) -> list[Finding]:
    findings = []
    for start, end in spans:
        raw_start, raw_end = view.raw_span(start, end, len(raw)) if view.offsets is not None else (start, end)
        findings.append(Finding(rule.category, rule.id, rule.reason, _excerpt(raw[raw_start:raw_end]), raw_start, raw_end))
    return findings


def _secrets(text: str, rules: list[Rule] | None = None, depth: int = 0) -> list[Finding]:
    """Secret findings over the raw text (the `text` rules read its lower case), overlaps
    merged into one finding named by a key shape among them when there is one. A base64, hex or
    percent-encoded run that decodes to text holding a secret is a secret as a whole."""
    if rules is None:
        rules = _index("secrets").candidates(text.lower())
    # `text` rules read lower case (offsets kept: a character whose lower case is longer stays).
    lower = text.lower()
    if len(lower) != len(text):
        lower = "".join(char.lower() if len(char.lower()) == 1 else char for char in text)
    matches: list[tuple[Rule, int, int, str]] = []
    for rule in rules:
        spans = rule.spans(lower if rule.view == "text" else text)
        if spans and rule.origin.endswith(_DETECTOR):
            spans = [_whole_token(text, start, end) for start, end in spans]
        matches += [(rule, start, end, rule.reason) for start, end in spans if end > start]
    if depth < _MAX_DEPTH and _LONG_RUN.search(text):
        for kind, start, end, decoded in _decoded(text):
            inner = _secrets(decoded, None, depth + 1)
            if inner:
                matches.append((_rule_of(inner[0].rule), start, end, f"{inner[0].reason} (hidden as {kind})"))
    if not matches:
        return []
    matches.sort(key=lambda match: (match[1], -match[2]))
    groups: list[list[tuple[Rule, int, int, str]]] = []
    for match in matches:
        if groups and match[1] < max(end for _, _, end, _ in groups[-1]):
            groups[-1].append(match)
        else:
            groups.append([match])
    findings = []
    for group in groups:
        start, end = group[0][1], max(end for _, _, end, _ in group)
        rule, _, _, reason = next((match for match in group if match[0].shape), group[0])
        findings.append(Finding("secret", rule.id, reason, _mask(text[start:end]), start, end))
    return findings


_DETECTOR = "detect_secrets.json"  # rule_data.DETECTOR, named here so importing the scan reads no more modules
_TOKEN_CHAR = lazy_pattern(r"[A-Za-z0-9_-]")
_SPACE = lazy_pattern(r"\s")


def _whole_token(text: str, start: int, end: int) -> tuple[int, int]:
    """A key detect-secrets' expression found, as the whole token it sits in: its expressions fix
    a length (`sk_live_` and 24 characters) and would leave the rest of a longer key readable, and
    one (`_authToken=npm_.+`) runs to the end of the line, over the words after the key."""
    space = _SPACE.search(text, start, end)
    if space is not None and space.start() > start:
        end = space.start()
    while end < len(text) and _TOKEN_CHAR.match(text, end):
        end += 1
    while start > 0 and _TOKEN_CHAR.match(text, start - 1):
        start -= 1
    return start, end


def _rule_of(rule_id: str) -> Rule:
    from .rule_data import family

    return next(rule for rule in family("secret") if rule.id == rule_id)


def redact(text: str) -> tuple[str, list[Finding]]:
    """Replace each secret with `[REDACTED:<type>]`; a text without secrets is returned as it is."""
    findings = _secrets(text)
    if not findings:
        return text, []
    pieces, last = [], 0
    for finding in findings:
        pieces += [text[last : finding.start], f"[REDACTED:{_label(finding.rule)}]"]
        last = finding.end
    pieces.append(text[last:])
    return "".join(pieces), findings


def _label(rule_id: str) -> str:
    """What `[REDACTED:...]` names: the rule's type, without the number of one of its expressions."""
    label = rule_id.removeprefix("secret.")
    stem, _, number = label.rpartition("-")
    return stem if stem and number.isdigit() else label


def redact_secrets(value: str) -> str:
    """Any string a store keeps (text, source, keywords, notes) with its secrets redacted."""
    return redact(value)[0] if isinstance(value, str) and value else value


def strip_invisible(text: str) -> str:
    """`text` without the characters the normalisation drops (default-ignorable, format and
    control characters, but for tab and line breaks), emoji sequences kept whole."""
    return strip_hidden(text)


def intent_findings(value: str) -> list[Finding]:
    """What the rules find in a field that is not the text (a source, a keyword): every finding
    but a secret's (secrets are redacted there, not refused). No learned opinion: a source or a
    keyword is a few words, too little for one."""
    return [finding for finding in scan_text(value) if finding.category != "secret"] if value else []


def threat_flags(findings: list[Finding]) -> list[str]:
    """`["blocked", "threat:<category>", ...]` for findings that block an entry; `[]` when none do.
    A warning (`warning.<rule>`, a learned verdict not sure enough to block) blocks nothing."""
    found = {finding.category for finding in findings if not finding.rule.startswith("warning.")}
    categories = [category for category in CATEGORIES if category in found and category != "secret"]
    return ["blocked", *(f"threat:{category}" for category in categories)] if categories else []


_EXCERPT_CHARS = 60


def _excerpt(raw: str) -> str:
    """One short line; every character normalisation would drop is shown as <U+XXXX>."""
    hidden = _CONTROL if is_plain(raw) else _ignorable()
    shown = hidden.sub(lambda match: "".join(f"<U+{ord(c):04X}>" for c in match.group()), raw)
    shown = " ".join(shown.split())
    if len(shown) > _EXCERPT_CHARS:
        shown = shown[: _EXCERPT_CHARS - 1] + "…"
    return shown


def _mask(secret: str) -> str:
    """A secret's excerpt shows only its first characters, so findings can be shown and logged."""
    return secret[:4] + "…"
