"""The pydantic models at the edge of the core: what the API returns and the CLI prints as JSON.

Inside, the engine works on light records (`memtui_core.store.records`) so the agent's hot path never imports
pydantic; these models are built from them on demand.

Every model defers building its validator and serializer (`defer_build`) to its first validation or
dump: a process uses a few of these models, and building all of them at import was about a third of
the module's import time (the app's start, every CLI command that prints JSON).
"""

from __future__ import annotations

import enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .health_codes import Warning
from .kinds import Kind


class Entry(BaseModel):
    """One memory. Unknown fields read from the file are kept and written back."""

    model_config = ConfigDict(extra="allow", frozen=True, defer_build=True)

    id: str = Field(pattern=r"^[0-9a-f]{12}$")
    kind: Kind
    text: str = Field(min_length=1)
    source: str = ""
    ts: int = 0
    flags: list[str] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)  # retrieval only, never rendered in the block
    pinned: bool = False  # pinned into the core by hand: in every block (docs/injection.md#the-pinned-core)

    @field_validator("kind", mode="before")
    @classmethod
    def _kind(cls, value: object) -> Kind:
        return Kind.require(value)

    @property
    def label(self) -> str:
        return self.kind.label

    @property
    def blocked(self) -> bool:
        return "blocked" in self.flags

    @property
    def extra(self) -> dict[str, Any]:
        return dict(self.__pydantic_extra__ or {})


class InvalidEntry(BaseModel, defer_build=True):
    """An item of the file that is not a valid entry. Kept verbatim, never searched or injected."""

    index: int
    raw: Any
    error: str


class RememberResult(BaseModel, defer_build=True):
    added: bool
    entry: Entry
    evicted: list[Entry] = Field(default_factory=list)
    truncated: bool = False
    """The text was longer than `Limits.max_text` and was cut to it: never silent."""
    original_length: int | None = None
    """Its length in characters before the cut (after trimming and secret redaction); None if not cut."""


class Hit(BaseModel, defer_build=True):
    entry: Entry
    score: float


class Status(str, enum.Enum):
    INJECTED = "injected"
    CUT_TOP_K = "cut_top_k"
    CUT_BUDGET = "cut_budget"
    BELOW_THRESHOLD = "below_threshold"
    ZERO_SCORE = "zero_score"
    BLOCKED = "blocked"
    PINNED = "pinned"  # in the pinned core: in every block, whatever the message

    def __str__(self) -> str:
        return self.value


class TermRow(BaseModel, defer_build=True):
    term: str
    qtf: int
    tf: int  # occurrences in the entry's text and kind label
    df: int
    idf: float
    contribution: float
    keyword_tf: int = 0  # occurrences in the entry's keywords (0 when the profile ignores keywords)
    from_keywords: bool = False  # the keywords add to this term's match
    ignored: str | None = None  # why the query term is not scored (a function word), else None


class EntryExplanation(BaseModel, defer_build=True):
    id: str
    kind: Kind
    text: str
    rank: int | None
    score: float
    status: Status
    # BM25's document length: the text's tokens, plus keyword_weight × the keywords' tokens when the
    # entry has keywords (so it can be fractional; explain schema v2)
    doc_len: float
    terms: list[TermRow]
    reason: str
    flags: list[str] = Field(default_factory=list)
    cosine: float | None = None  # meaning's closeness to the message, when meaning judged this entry
    meaning: str | None = None  # the rule of meaning that kept, held back or admitted it, in words
    scope: str | None = None  # the store it came from (project or global) when a command reads both (scopes.py)


class Explanation(BaseModel, defer_build=True):
    query: str
    tokens: list[str]
    n: int
    avg_len: float
    top_k: int
    budget: int
    block: str
    used_chars: int
    entries: list[EntryExplanation]
    ignored: list[str] = Field(default_factory=list)  # query terms not scored (function words)
    profile: str = "default"
    semantic_floor: float = 0.0  # the profile's semantic floor (0: off)
    semantic_note: str | None = None  # why meaning was not applied, when the profile asks for it
    semantic_admit: float = 0.0  # the profile's admit bar for entries the words did not pick (0: off)
    # the pinned core (its entries have status `pinned`): their ids in the core's order, the
    # characters of their lines, its budget (0: no core), and what it left out for the budget
    core: list[str] = Field(default_factory=list)
    core_used: int = 0
    core_budget: int = 0
    core_left_out: list[str] = Field(default_factory=list)

    def for_id(self, entry_id: str) -> EntryExplanation:
        for row in self.entries:
            if row.id == entry_id:
                return row
        raise KeyError(entry_id)


class AuditOp(str, enum.Enum):
    ADD = "add"
    REFRESH = "refresh"
    EDIT = "edit"
    RECLASSIFY = "reclassify"
    DELETE = "delete"
    EVICT = "evict"
    APPROVE = "approve"
    RESTORE = "restore"
    QUARANTINE = "quarantine"
    IMPORT = "import"
    LIMITS = "limits"  # the limits the store carries changed (before/after: the object as it was and is)
    PIN = "pin"  # pinned into the core, or moved in its order
    UNPIN = "unpin"  # out of the core: pinned no more, or kept out by hand

    def __str__(self) -> str:
        return self.value


class AuditEvent(BaseModel):
    """One line of the audit log. Fields another version wrote that are not listed are kept."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    at: float
    actor: str
    op: AuditOp
    id: str | None = None
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None
    note: str | None = None
    # restore: the backup brought back and the entries it added, removed or changed
    backup: str | None = None
    added: list[str] | None = None
    removed: list[str] | None = None
    changed: list[str] | None = None
    # recovery: the file set aside, why, and how many logged changes were replayed
    quarantined: str | None = None
    file: str | None = None
    error: str | None = None
    replayed: int | None = None
    file_sha: str | None = None  # the hash of memory.json after this event's batch

    def touched_ids(self) -> set[str]:
        """Every entry this event concerns: its own id, and those a restore added, removed or changed."""
        ids = {self.id} if self.id else set()
        for group in (self.added, self.removed, self.changed):
            ids.update(group or ())
        return ids

    @classmethod
    def parse(cls, raw: object) -> "AuditEvent | None":
        """The event in a log line, or None when another program wrote something else there."""
        try:
            return cls.model_validate(raw)
        except ValueError:
            return None


class CoreMember(BaseModel, defer_build=True):
    """An entry of the pinned core (or one left out of it), with what its line costs."""

    entry: Entry
    how: str  # "pinned": pinned by hand; "kind": its kind is in the core's policy (Limits.core_kinds)
    chars: int  # characters of its line in the block


class CoreReport(BaseModel, defer_build=True):
    """The pinned core: what is in every block, in order, and what does not fit its budget."""

    budget: int  # Limits.core_budget (0: no core)
    used: int  # characters of the core's lines
    kinds: list[str]  # Limits.core_kinds: the kinds in the core without a pin
    lang: str  # the language its lines were measured in (labels differ in length)
    entries: list[CoreMember] = Field(default_factory=list)
    left_out: list[CoreMember] = Field(default_factory=list)  # for the budget: pinned by hand first, then newest
    blocked: list[Entry] = Field(default_factory=list)  # pinned by hand, held back by the threat scan
    kept_out: list[Entry] = Field(default_factory=list)  # kept out of the core by hand (`"pinned": false`)

    @property
    def over_budget(self) -> bool:
        return bool(self.left_out)

    @property
    def pinned_left_out(self) -> list[CoreMember]:
        return [member for member in self.left_out if member.how == "pinned"]


class Backup(BaseModel, defer_build=True):
    name: str
    path: str
    at: float
    entries: int | None
    size: int
    valid: bool = True


class RestoreResult(BaseModel, defer_build=True):
    name: str
    added: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
    changed: list[str] = Field(default_factory=list)
    backup_of_current: str | None = None


class Quarantine(BaseModel, defer_build=True):
    path: str
    at: float
    error: str
    restored_from: str | None = None
    why: str | None = None  # why recovery chose `restored_from` (docs/storage.md, "What recovery trusts")


class Health(BaseModel, defer_build=True):
    path: str
    exists: bool
    entries: int
    max_entries: int
    invalid: list[InvalidEntry] = Field(default_factory=list)
    blocked: list[str] = Field(default_factory=list)
    quarantined: list[Quarantine] = Field(default_factory=list)
    recovered: Quarantine | None = None
    last_backup: str | None = None
    locked: bool = False
    writable: bool = True
    warnings: list[Warning] = Field(default_factory=list)
    # the injection log over its retention window: how many injections, and the share of entries
    # injected at least once (None when the log is off or the store is empty)
    injections: int = 0
    injected_share: float | None = None
    # the pinned core: entries in it, characters used of its budget, and the ids left out for the budget
    core_entries: int = 0
    core_used: int = 0
    core_budget: int = 0
    core_left_out: list[str] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.warnings

    def codes(self) -> list[str]:
        return [warning.code for warning in self.warnings]


class TextCheck(BaseModel, defer_build=True):
    """What writing a text would do, for live warnings while a person types."""

    length: int
    cut: bool
    original_length: int | None = None
    """The length before the cut to `max_text`, when `cut`."""
    duplicate_of: Entry | None = None
    findings: list[dict[str, Any]] = Field(default_factory=list)

    @property
    def blocked(self) -> bool:
        return any(f.get("category") != "secret" for f in self.findings)
