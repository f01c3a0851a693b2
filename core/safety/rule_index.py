"""The threat scan's pre-check: which rules could match a text, found without running them.

Every rule a text could match is found by plain lookups of the text's words and a few substring
tests (`_Index`); only those rules run. The indexes are built from the rule table (rule_data.py)
when first used: redaction builds the one of the secret rules alone.
"""

from __future__ import annotations

import re

from ..lazy_re import lazy_pattern
from .rule import Rule, _trie
from .rule_data import family, rules

_TOKEN = lazy_pattern(r"[a-z0-9]+(?:'[a-z]+)?")


class _Index:
    """Which rules could match a text, found cheaply. A trigger that begins with a Latin letter
    or digit can only match where a word begins (`Rule.source` makes sure), so it is looked up
    by its first word among the beginnings of the text's words: dict lookups, no regex. Any
    other trigger (symbols, CJK) by a substring test; there are a few hundred, each a fraction
    of a microsecond, and nothing to compile. A trigger of several words is then looked for
    whole (white space squeezed out, as the rules let it be), so "the new system prompt" does not
    make its rule a candidate of every text holding "the". A rule without triggers is always a
    candidate."""

    def __init__(self, rules: list[Rule]) -> None:
        self.always = tuple(rule for rule in rules if not rule.triggers)
        self.order = {rule.id: i for i, rule in enumerate(rules)}
        self.exact: dict[str, list[tuple[str | None, Rule]]] = {}
        self.by_start: dict[str, list[tuple[str, str | None, Rule]]] = {}
        self.by_other: dict[str, set[Rule]] = {}
        for rule in rules:
            for trigger in rule.triggers:
                trigger = trigger.lower()
                words = _TOKEN.findall(trigger)
                if not words or not trigger.startswith(words[0]):
                    self.by_other.setdefault(trigger.replace(" ", ""), set()).add(rule)
                    continue
                first = words[0]
                phrase = "".join(trigger.split())
                whole = None if phrase == first else phrase
                # A one-word trigger of one or two letters must be a whole word of the text; any
                # other may run on ("revoked"). A trigger of several words may have had its spaces
                # squeezed out ("systemprompt"): its first word is looked for as a beginning, and
                # the whole trigger in the squeezed text.
                if whole is None and (len(first) <= 2 or (len(trigger) > len(first) and not trigger[len(first)].isalnum())):
                    self.exact.setdefault(first, []).append((whole, rule))
                else:
                    self.by_start.setdefault(first[:3], []).append((first, whole, rule))
        # Triggers that are not Latin words: the ASCII ones ("<|", "://") are tested one by one;
        # the rest (CJK, Cyrillic, Arabic...) by one alternation, and only in text that is not ASCII.
        self.known: dict[str, tuple[tuple[Rule, tuple[str, ...] | None], ...]] = {}
        self.others = tuple((key, found) for key, found in self.by_other.items() if key.isascii())
        wide = [key for key in self.by_other if not key.isascii()]
        self.wide = re.compile(f"(?=({_trie(wide)}))") if wide else None

    def of_token(self, token: str) -> tuple[tuple[Rule, tuple[str, ...] | None], ...]:
        """The rules a word of the text can start, each with the whole triggers one of which must
        then be in the text (None: the word is the trigger), remembered per word (a store's texts
        share most of their words)."""
        pairs = list(self.exact.get(token, ())) + [
            (whole, rule) for first, whole, rule in self.by_start.get(token[:3], ()) if token.startswith(first)]
        wholes: dict[Rule, list[str] | None] = {}
        for whole, rule in pairs:
            if whole is None or wholes.get(rule, ()) is None:
                wholes[rule] = None
            else:
                wholes.setdefault(rule, []).append(whole)
        found = tuple((rule, None if needed is None else tuple(needed)) for rule, needed in wholes.items())
        if len(self.known) < 50_000:
            self.known[token] = found
        return found

    def candidates(self, text: str) -> list[Rule]:
        rules = set(self.always)
        squeezed = "".join(text.split())
        known, of_token = self.known, self.of_token
        tokens = set(_TOKEN.findall(text))
        # an elided article or preposition ("l'assistant", "dell'IA", "d'instructions") begins a
        # word the rules read on its own
        tokens.update([token.split("'", 1)[1] for token in tokens if "'" in token])
        for token in tokens:
            found = known.get(token)
            if found is None:
                found = of_token(token)
            for rule, wholes in found:
                if rule not in rules and (wholes is None or any(whole in squeezed for whole in wholes)):
                    rules.add(rule)
        for key, found in self.others:
            if key in squeezed:
                rules.update(found)
        if self.wide is not None and not text.isascii():
            by_other = self.by_other
            for match in self.wide.finditer(squeezed):
                # The alternation prefers the longest key; a shorter key that starts there too
                # is a trigger of its own.
                key = match.group(1)
                for length in range(len(key), 0, -1):
                    found = by_other.get(key[:length])
                    if found:
                        rules.update(found)
        if len(rules) == 1:
            return list(rules)
        return sorted(rules, key=lambda rule: self.order[rule.id])


_INDEXES: dict[str, _Index] = {}


def _index(name: str) -> _Index:
    """`raw`: the invisible-character rules; `views`: all others, whose triggers are looked for
    in the text view and, where it differs, the words view; `secrets`: the secret rules of
    `views` alone (what redaction runs: a per-turn process redacting its query builds the index of
    60 triggers, not of 1,300)."""
    if name not in _INDEXES:
        if name == "secrets":
            chosen = [r for r in family("secret") if r.view != "raw"]
        else:
            chosen = [r for r in rules() if (r.view == "raw") == (name == "raw")]
        _INDEXES[name] = _Index(chosen)
    return _INDEXES[name]
