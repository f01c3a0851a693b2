"""The shape of `memtui limits --json` (pydantic, imported only when the command runs)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

__all__ = ["LimitShown", "LimitsOutput"]


class LimitShown(BaseModel):
    """One limit: its value in force, where that comes from, its default and why it is what it is."""

    value: Any
    source: Literal["default", "store", "option"]  # the default; the store's own; the caller's (a CLI option)
    default: Any
    reason: str


class LimitsOutput(BaseModel):
    """`memtui limits [set|unset] --json`: every limit in force, what the store carries itself
    (memory.json's `limits`, valid items), and each item it carries that is not a valid limit."""

    limits: dict[str, LimitShown]
    store: dict[str, Any]
    invalid: list[str]
