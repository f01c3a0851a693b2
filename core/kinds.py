"""The four kinds of memory, their labels and their eviction order."""

from __future__ import annotations

import enum

KIND_NAMES = "preference, correction, lesson, fact"

_ALIASES = {
    # the names, their plurals and short forms
    "preference": "preference",
    "preferences": "preference",
    "pref": "preference",
    "prefs": "preference",
    "correction": "correction",
    "corrections": "correction",
    "feedback": "correction",
    "lesson": "lesson",
    "lessons": "lesson",
    "lesson_learned": "lesson",
    "lessons_learned": "lesson",
    "experience": "lesson",
    "experiences": "lesson",
    "fact": "fact",
    "facts": "fact",
    "project": "fact",
    "project_fact": "fact",
    "project_facts": "fact",
    # the labels the block shows a model, and their near synonyms
    "偏好": "preference",
    "喜好": "preference",
    "纠正": "correction",
    "更正": "correction",
    "经验": "lesson",
    "教训": "lesson",
    "事实": "fact",
}
# what surrounds a label a model copied from the block: "[偏好]", "【经验】"
_WRAPPERS = " \t[]【】()（）\"'`"


class Kind(str, enum.Enum):
    """What a memory is about. The order of definition is the eviction order (kept longest first)."""

    PREFERENCE = "preference"
    CORRECTION = "correction"
    LESSON = "lesson"
    FACT = "fact"

    @classmethod
    def parse(cls, value: object) -> Kind | None:
        """Accept a kind name, its plural, its label (偏好, 纠正, 经验, 事实) or another alias,
        in any case, with `-` or a space for `_`, and with the brackets of a copied label
        (`[偏好]`); anything else is None."""
        if isinstance(value, Kind):
            return value
        if not isinstance(value, str):
            return None
        exact = _BY_VALUE.get(value)  # the common case, as written by memtui: one dict lookup per entry read
        if exact is not None:
            return exact
        key = "_".join(value.strip(_WRAPPERS).lower().replace("-", " ").split())
        name = _ALIASES.get(key)
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


_BY_VALUE: dict[str, Kind] = {kind.value: kind for kind in Kind}
