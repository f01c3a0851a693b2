"""The four kinds of memory, their labels and their eviction order."""

from __future__ import annotations

import enum

KIND_NAMES = "preference, correction, lesson, fact"

_ALIASES = {
    "preference": "preference",
    "pref": "preference",
    "correction": "correction",
    "feedback": "correction",
    "lesson": "lesson",
    "lesson-learned": "lesson",
    "lesson_learned": "lesson",
    "experience": "lesson",
    "fact": "fact",
    "project": "fact",
}


class Kind(str, enum.Enum):
    """What a memory is about. The order of definition is the eviction order (kept longest first)."""

    PREFERENCE = "preference"
    CORRECTION = "correction"
    LESSON = "lesson"
    FACT = "fact"

    @classmethod
    def parse(cls, value: object) -> Kind | None:
        """Accept a kind name or one of its aliases (trimmed, any case); anything else is None."""
        if isinstance(value, Kind):
            return value
        if not isinstance(value, str):
            return None
        name = _ALIASES.get(value.strip().lower())
        return cls(name) if name else None

    @classmethod
    def require(cls, value: object) -> Kind:
        """Like parse, but an unknown kind is a ValueError naming the four kinds."""
        kind = cls.parse(value)
        if kind is None:
            raise InvalidKind(value)
        return kind

    @property
    def label(self) -> str:
        return _LABELS_ZH[self]

    def label_for(self, lang: str = "zh") -> str:
        return self.value if lang == "en" else _LABELS_ZH[self]

    @property
    def eviction_rank(self) -> int:
        """0 is evicted last (preferences), 3 first (facts)."""
        return _RANKS[self]

    def __str__(self) -> str:  # f"{kind}" gives the plain value
        return self.value


class InvalidKind(ValueError):
    def __init__(self, value: object) -> None:
        shown = value if isinstance(value, str) else type(value).__name__
        super().__init__(f"unknown kind {shown!r}: use one of {KIND_NAMES}")


_LABELS_ZH = {
    Kind.PREFERENCE: "偏好",
    Kind.CORRECTION: "纠正",
    Kind.LESSON: "经验",
    Kind.FACT: "事实",
}
_RANKS = {kind: rank for rank, kind in enumerate(Kind)}
