"""Pydantic models of what `memtui injections` and `memtui import` print with `--json`.

The engine works on plain dicts (the injection log is read on the app's and the agent's paths);
these models only give those dicts a checked shape at the CLI's edge and a JSON Schema.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from .kinds import Kind

__all__ = ["ImportReport", "InjectionRecord", "InjectionShown", "ReplayReport"]


class InjectionHit(BaseModel):
    id: str
    rank: int
    score: float
    chars: int
    th: str | None = None  # hash of the text as it was injected


class InjectedCore(BaseModel):
    """An entry of the pinned core a logged block carried (docs/injection.md#the-pinned-core)."""

    id: str
    chars: int
    th: str | None = None  # hash of the text as it was injected


class InjectionRecord(BaseModel):
    """One line of the injection log, as `memtui injections --json` lists it."""

    n: int
    at: float
    actor: str
    profile: str
    lang: str | None = None
    q: str | None = None  # None when the store keeps only hashes of queries
    qh: str
    cut: bool = False
    hits: list[InjectionHit]
    core: list[InjectedCore] = []  # the pinned core the block carried before the hits


class InjectedEntry(BaseModel):
    """An entry of a past injection, with the text it had then (None: no longer kept anywhere)."""

    id: str
    rank: int
    score: float | None = None
    chars: int | None = None
    kind: Kind | None = None
    text: str | None = None
    status: Literal["unchanged", "changed", "deleted"]
    today: str | None = None  # today's text, when it changed


class InjectionShown(InjectionRecord):
    """`memtui injections --show N --json`."""

    entries: list[InjectedEntry]


class ReplayEntry(BaseModel):
    id: str
    rank: int
    score: float
    chars: int
    kind: Kind
    text: str


class ReplayReport(BaseModel):
    """`memtui injections --replay N --json`: then, today, and the difference by id."""

    n: int | None
    at: float
    query: str | None
    then: list[InjectedEntry]
    now: list[ReplayEntry]
    kept: list[str]
    dropped: list[str]
    added: list[str]
    same: bool
    note: str | None = None


class ImportRow(BaseModel):
    line: int
    kind: Kind
    text: str
    truncated: bool
    redacted: bool
    blocked: bool
    id: str | None
    action: Literal["add", "refresh"]
    duplicate_of: str | None = None
    undated: bool = False  # the file gave it no time (or 0): dated by the import
    file: str | None = None  # in a folder import, the file it came from (a Hermes folder's MEMORY.md or USER.md)


class EvictedRow(BaseModel):
    id: str
    kind: Kind
    text: str


class ImportReport(BaseModel):
    """`memtui import FILE [--dry-run] --json`: each entry's fate, what is evicted, the counts."""

    file: str
    format: Literal["json", "jsonl", "hermes"]
    rows: list[ImportRow]
    evicted: list[EvictedRow]
    added: int
    refreshed: int
    truncated: int
    blocked: int
    redacted: int
    dry_run: bool
    # inside a project (docs/scopes.md), or with --scope: the store the entries went to, and where it is
    scope: Literal["project", "global"] | None = None
    store: str | None = None
