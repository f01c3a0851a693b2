"""Every number the engine depends on, in one place, each with its reason.

A plain slotted class rather than a pydantic model: it sits on the agent's hot path
(`memtui inject`), which must not pay pydantic's import time.
"""

from __future__ import annotations

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
    "audit_tail_bytes": (int, 65536, "the end of the audit log read to find the last batch's file hash: many batches"),
}


class Limits:
    """Immutable engine settings. `Limits(top_k=8)` overrides one; `limits.replace(...)` copies."""

    __slots__ = tuple(_FIELDS)

    def __init__(self, **overrides: object) -> None:
        unknown = set(overrides) - set(_FIELDS)
        if unknown:
            raise TypeError(f"unknown limit(s): {', '.join(sorted(unknown))}")
        for name, (typ, default, _why) in _FIELDS.items():
            value = overrides.get(name, default)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"limit {name} must be a number, got {value!r}")
            if typ is int and value != int(value):
                raise ValueError(f"limit {name} must be a whole number, got {value!r}")
            value = typ(value)
            if value < 0 or (value == 0 and name not in ("b",)):
                raise ValueError(f"limit {name} must be positive, got {value!r}")
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Limits is immutable; use .replace(...)")

    def replace(self, **changes: object) -> Limits:
        return Limits(**{**self.as_dict(), **changes})

    def as_dict(self) -> dict[str, int | float]:
        return {name: getattr(self, name) for name in _FIELDS}

    @staticmethod
    def reasons() -> dict[str, str]:
        return {name: why for name, (_t, _d, why) in _FIELDS.items()}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Limits) and self.as_dict() == other.as_dict()

    def __hash__(self) -> int:
        return hash(tuple(self.as_dict().values()))

    def __repr__(self) -> str:
        changed = {k: v for k, v in self.as_dict().items() if v != _FIELDS[k][1]}
        return "Limits(" + ", ".join(f"{k}={v!r}" for k, v in changed.items()) + ")"


DEFAULT_LIMITS = Limits()
