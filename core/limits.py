"""Every number the engine depends on, in one place, each with its reason.

A plain slotted class rather than a pydantic model: it sits on the agent's hot path
(`memtui inject`), which must not pay pydantic's import time.
"""

from __future__ import annotations

from .text.general_words import GENERAL_WORDS
from .text.stopwords import DEFAULT_STOPWORDS

_FIELDS: dict[str, tuple[type, object, str]] = {
    # name: (type, default, why)
    "max_entries": (int, 500, "a single file stays small enough to read and rank on every turn"),
    "max_text": (int, 400, "one memory is one self-contained sentence or two, never a document"),
    "top_k": (int, 4, "a handful of relevant memories helps; more dilutes the prompt"),
    "char_budget": (int, 2400, "caps the prompt cost of memory at roughly 1k tokens per turn"),
    "excerpt_chars": (int, 6000, "how much of a finished turn the distiller reads"),
    "excerpt_message_chars": (int, 1200, "one long tool result must not crowd out the rest of the turn"),
    "dedupe_min_bytes": (int, 12, "containment dedupe only for keys of 4+ CJK or 12+ ASCII characters"),
    "k1": (float, 1.2, "BM25 term-frequency saturation (the usual default)"),
    "b": (float, 0.75, "BM25 length normalisation (the usual default)"),
    "backups_keep": (int, 30, "newest backups kept, so a bad afternoon can be undone"),
    "backups_daily_days": (int, 14, "plus the newest backup of each of the last two weeks"),
    "lock_timeout": (float, 10.0, "seconds a writer waits for the lock before giving up"),
    "audit_max_bytes": (int, 4_000_000, "the audit log rotates past this size, keeping the newest events"),
    "injection_log": (int, 1, "1 logs every injection to injections.jsonl; 0 turns the log off"),
    "injection_queries": (int, 1, "1 keeps each query (secrets redacted); 0 keeps only its hash"),
    "injection_days": (int, 30, "a month of injections answers 'why was this in my prompt' and shows usage"),
    "injection_max_bytes": (int, 4_000_000, "about 10,000 injections (two files of half this), a month of heavy use"),
    "injection_query_chars": (int, 1000, "enough of a message to recognise and replay it; a pasted document is cut"),
    "import_max_bytes": (int, 5_000_000, "ten times a full store in any format; a bigger file is not memories"),
    "audit_tail_bytes": (int, 65536, "the end of the audit log read to find the last batch's file hash: many batches"),
    # Relevance (docs/ranking.md). Each was chosen by `python -m bench.relevance`.
    "stopwords": (frozenset, DEFAULT_STOPWORDS,
                  "function words match nearly every message and say nothing about which memory is relevant"),
    "general_words": (frozenset, GENERAL_WORDS,
                      "general English and Chinese words ('name', 'way', 'work', '关于') count toward a score but "
                      "are not enough alone: an entry sharing nothing else with a message is held back by the gate"),
    "language_stopwords": (int, 1, "1 also ignores the function words of the other languages the threat scan reads "
                                   "('la', 'de', 'para' in a Spanish message), in a message that reads as that "
                                   "language: many are English content words elsewhere ('final', 'die', 'bin'). "
                                   "0 ignores only the stopwords"),
    "fold_inflections": (int, 1, "1 lets an English query word the store lacks match the store's form of the same word "
                                 "('tests' finds 'test', 'cached' finds 'cache'); people do not remember which form a "
                                 "memory used. 0 matches words exactly"),
    "keyword_weight": (float, 0.6, "a keyword occurrence counts for this much of one in the text (BM25F field "
                                   "weight): keywords widen recall but are guesses, the text is what was said; "
                                   "0 ignores keywords"),
    "keyword_only_terms": (int, 1, "of the query terms an entry holds only in its keywords, this many count: "
                                   "keywords bridge a synonym or a language, they cannot claim every topic"),
    "keyword_part_weight": (float, 0.0, "a keyword of several words the message does not hold mostly still matches on "
                                        "each of its words the message holds that is not a weak word, an occurrence "
                                        "counting this share, split over the keyword's words, of a whole match; 0 "
                                        "matches such keywords only whole"),
    "min_coverage": (float, 0.3, "an entry is injected only if the query terms it holds carry this share of the "
                                 "query's idf mass (ignored terms excluded); 0 turns the gate off"),
    "relative_floor": (float, 0.3, "an entry scoring below this share of the best hit's score is held back: a "
                                   "weak tail beside a strong match is noise; 0 turns it off"),
    "semantic_floor": (float, 0.0, "meaning's keep bar: a hit the words chose is held back when the cosine between "
                                   "the message and its text with keywords (multilingual-e5-small) is below this: one "
                                   "shared ordinary word is not a shared meaning. 0 (the default) turns it off: the "
                                   "model costs a new process 0.3-1 s, a long-running one an embedding a turn; the "
                                   "semantic profile sets it"),
    "semantic_admit": (float, 0.0, "in a process that ranks by meaning, an entry sharing no word with the message is "
                                   "admitted when the cosine between the message and its text reaches this stricter "
                                   "bar (at most one a turn, into a slot the words left free). 0 (the default) turns "
                                   "it off; the semantic profile sets it"),
    "max_keywords": (int, 12, "enough for synonyms in two languages; more would let one entry claim every topic"),
    "max_keyword_chars": (int, 40, "a keyword is a word or short phrase, never a sentence smuggled past max_text"),
    # The pinned core (docs/injection.md#the-pinned-core): what is in every turn, whatever the message.
    "core_budget": (int, 1000, "characters of the core's lines in every block, beside the retrieved ones: room for "
                              "the standing preferences and corrections and a few pins, chosen by hit against "
                              "characters per turn on the relevance sets (docs/ranking.md); 0 turns the core off"),
    "core_kinds": (tuple, ("preference", "correction"),
                   "kinds in the core without a pin, newest first, as far as the budget goes: a style of answer or "
                   "'use pnpm, not npm' holds in every turn, yet rarely shares a word with the message; empty "
                   "leaves only the entries pinned by hand"),
    "max_source_chars": (int, 200, "a source names where an entry came from (a tool, a file, a task id); a longer "
                                   "one would carry text past max_text into what people and models are shown"),
}

# Fields that may be 0 (a 0 switches a feature off); every other number must be positive.
_ZERO_OK = frozenset({"core_budget", "b", "fold_inflections", "language_stopwords", "semantic_admit", "keyword_weight", "keyword_part_weight", "min_coverage", "relative_floor", "semantic_floor",
                      "injection_log", "injection_queries"})
# Shares of something: at most 1.
_SHARES = frozenset({"keyword_part_weight", "min_coverage", "relative_floor", "semantic_floor", "semantic_admit"})


class Limits:
    """Immutable engine settings. `Limits(top_k=8)` overrides one; `limits.replace(...)` copies."""

    __slots__ = tuple(_FIELDS)

    # One declaration per field of _FIELDS, for type checkers and readers (tests/core/test_limits_types.py
    # keeps the two lists in step); the values are set in __init__.
    max_entries: int
    max_text: int
    top_k: int
    char_budget: int
    excerpt_chars: int
    excerpt_message_chars: int
    dedupe_min_bytes: int
    k1: float
    b: float
    backups_keep: int
    backups_daily_days: int
    lock_timeout: float
    audit_max_bytes: int
    injection_log: int
    injection_queries: int
    injection_days: int
    injection_max_bytes: int
    injection_query_chars: int
    import_max_bytes: int
    audit_tail_bytes: int
    stopwords: frozenset[str]
    general_words: frozenset[str]
    language_stopwords: int
    fold_inflections: int
    keyword_weight: float
    keyword_only_terms: int
    keyword_part_weight: float
    min_coverage: float
    relative_floor: float
    semantic_floor: float
    semantic_admit: float
    max_keywords: int
    max_keyword_chars: int
    core_budget: int
    core_kinds: tuple[str, ...]
    max_source_chars: int

    def __init__(self, **overrides: object) -> None:
        unknown = set(overrides) - set(_FIELDS)
        if unknown:
            raise TypeError(f"unknown limit(s): {', '.join(sorted(unknown))}")
        for name, (typ, default, _why) in _FIELDS.items():
            value = overrides.get(name, default)
            if typ is frozenset:
                object.__setattr__(self, name, _words(name, value))
                continue
            if typ is tuple:
                object.__setattr__(self, name, _kinds(name, value))
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"limit {name} must be a number, got {value!r}")
            if typ is int and value != int(value):
                raise ValueError(f"limit {name} must be a whole number, got {value!r}")
            value = typ(value)
            if value < 0 or (value == 0 and name not in _ZERO_OK):
                raise ValueError(f"limit {name} must be positive, got {value!r}")
            if name in _SHARES and value > 1:
                raise ValueError(f"limit {name} is a share and must be at most 1, got {value!r}")
            if name in ("fold_inflections", "language_stopwords") and value > 1:
                raise ValueError(f"limit {name} is a switch: 0 or 1, got {value!r}")
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Limits is immutable; use .replace(...)")

    def replace(self, **changes: object) -> Limits:
        return Limits(**{**self.as_dict(), **changes})

    @classmethod
    def nanohermes(cls, **overrides: object) -> Limits:
        """The original ranking, exactly: every query term counts, no gate, keywords ignored, no core."""
        return cls(**{**NANOHERMES_RELEVANCE, **NANOHERMES_CORE, **overrides})

    @classmethod
    def semantic(cls, **overrides: object) -> Limits:
        """The default ranking plus meaning (ranking/meaning.py): a hit far in meaning from the message is
        held back (the keep bar), an entry sharing no word but close in meaning is admitted (the admit bar)."""
        return cls(**{**SEMANTIC_RELEVANCE, **overrides})

    @classmethod
    def profile(cls, name: str, **overrides: object) -> Limits:
        """The limits of a named profile (`PROFILES`), with `overrides` on top."""
        if name not in PROFILES:
            raise ValueError(f"unknown profile {name!r} (choose {' or '.join(PROFILES)})")
        return cls(**{**PROFILES[name], **overrides})

    def with_profile(self, name: str) -> Limits:
        """These limits with the relevance settings of profile `name`; every other limit kept."""
        if name not in PROFILES:
            raise ValueError(f"unknown profile {name!r} (choose {' or '.join(PROFILES)})")
        defaults = {field: _FIELDS[field][1] for field in (*NANOHERMES_RELEVANCE, *NANOHERMES_CORE)}
        return self.replace(**{**defaults, **PROFILES[name]})

    @property
    def profile_name(self) -> str:
        """"nanohermes" when the relevance settings are the original ranking's, "semantic" when
        meaning ranks (a keep or an admit bar), else "default"."""
        relevance = {name: getattr(self, name) for name in NANOHERMES_RELEVANCE}
        if relevance == NANOHERMES_RELEVANCE:
            return "nanohermes"
        return "semantic" if self.semantic_floor > 0.0 or self.semantic_admit > 0.0 else "default"

    def as_dict(self) -> dict[str, int | float | frozenset | tuple]:
        return {name: getattr(self, name) for name in _FIELDS}

    @staticmethod
    def reasons() -> dict[str, str]:
        return {name: why for name, (_t, _d, why) in _FIELDS.items()}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Limits) and self.as_dict() == other.as_dict()

    def __hash__(self) -> int:
        return hash(tuple(self.as_dict().values()))

    def __repr__(self) -> str:
        changed = {k: (f"<{len(v)} words>" if isinstance(v, frozenset) else v)
                   for k, v in self.as_dict().items() if v != _FIELDS[k][1]}
        return "Limits(" + ", ".join(f"{k}={v!r}" for k, v in changed.items()) + ")"


def _kinds(name: str, value: object) -> tuple[str, ...]:
    """Kind names, each once, in the order given (aliases such as `prefs` read as the kind)."""
    from .kinds import Kind

    if isinstance(value, str) or not isinstance(value, (set, frozenset, list, tuple)):
        raise ValueError(f"limit {name} must be a collection of kinds, got {value!r}")
    kinds = []
    for item in value:
        kind = Kind.parse(item)
        if kind is None:
            raise ValueError(f"limit {name}: unknown kind {item!r} (use preference, correction, lesson or fact)")
        kinds.append(kind.value)
    return tuple(dict.fromkeys(kinds))


def _words(name: str, value: object) -> frozenset[str]:
    if not isinstance(value, (set, frozenset, list, tuple)) or not all(isinstance(word, str) for word in value):
        raise ValueError(f"limit {name} must be a collection of words, got {value!r}")
    return frozenset(word.lower() for word in value)


# The relevance settings of the original ranking: no stopwords, no gate, no keywords.
NANOHERMES_RELEVANCE: dict[str, object] = {
    "stopwords": frozenset(), "general_words": frozenset(), "language_stopwords": 0, "fold_inflections": 0, "keyword_weight": 0.0, "keyword_part_weight": 0.0, "min_coverage": 0.0, "relative_floor": 0.0,
    "semantic_floor": 0.0, "semantic_admit": 0.0,
}
# The original ranking has no core: no entry is in every turn, pinned or not, so its block stays byte for byte.
NANOHERMES_CORE: dict[str, object] = {"core_budget": 0, "core_kinds": ()}
# The default profile plus meaning: the keep bar (the semantic floor) and the admit bar, chosen on
# sets A-E leaving one out (docs/ranking.md, "Meaning in a long-running process").
SEMANTIC_FLOOR = 0.81
SEMANTIC_ADMIT = 0.88
SEMANTIC_RELEVANCE: dict[str, object] = {"semantic_floor": SEMANTIC_FLOOR, "semantic_admit": SEMANTIC_ADMIT}
PROFILES: dict[str, dict[str, object]] = {"default": {}, "nanohermes": {**NANOHERMES_RELEVANCE, **NANOHERMES_CORE},
                                          "semantic": SEMANTIC_RELEVANCE}

DEFAULT_LIMITS = Limits()
