"""Errors the core raises. Every message is one line a person can act on."""

from __future__ import annotations

from .kinds import InvalidKind

__all__ = [
    "BackupNotFound",
    "ConflictError",
    "EntryNotFound",
    "EvictionRefused",
    "IndexDamaged",
    "InvalidInput",
    "InvalidKind",
    "LockTimeout",
    "MemtuiError",
    "NotAStore",
    "StoreUnavailable",
    "StoreUnwritable",
]


class MemtuiError(Exception):
    """Base class for every error the store raises on purpose."""

    def __str__(self) -> str:
        return " ".join(str(self.args[0]).split()) if self.args else self.__class__.__name__


class InvalidInput(MemtuiError, ValueError):
    """Bad text or arguments (empty text, wrong type, ...)."""


class EntryNotFound(MemtuiError, KeyError):
    def __init__(self, entry_id: object) -> None:
        super().__init__(f"no entry with id {entry_id!r}")
        self.id = entry_id


class BackupNotFound(MemtuiError, KeyError):
    """No backup of that name, or one that cannot be read as a memory file."""

    def __init__(self, name: object, why: str = "no such backup", *, problem: str | None = None) -> None:
        super().__init__(f"backup {name} {problem}" if problem else f"{why}: {name!r}")
        self.name = name


class ConflictError(MemtuiError):
    """The entry on disk is not the one the caller last saw: someone else changed it."""

    def __init__(self, entry_id: str, current: object, expected: object) -> None:
        what = "was deleted" if current is None else "was changed by someone else"
        super().__init__(f"entry {entry_id} {what} since you loaded it; reload and try again")
        self.id = entry_id
        self.current = current
        self.expected = expected


class EvictionRefused(MemtuiError):
    """A write would evict more entries than the caller allowed (`remember(..., max_evict=N)`):
    nothing was written. `count` entries would go, to stay within `cap`; the store holds `held`."""

    def __init__(self, count: int, cap: int, held: int) -> None:
        super().__init__(f"this write would evict {count} entr{'y' if count == 1 else 'ies'} to stay within "
                         f"max_entries {cap} (the store holds {held}); nothing was written")
        self.count, self.cap, self.held = count, cap, held


class IndexDamaged(MemtuiError):
    """A saved derived index (memory.json.index) whose key and checksum hold but whose contents do
    not add up: a posting past the last entry, an entry's byte span that is not that entry. The
    store derives it again and answers from that; a caller never sees this."""


class LockTimeout(MemtuiError):
    pass


class StoreUnwritable(MemtuiError):
    pass


class NotAStore(StoreUnwritable):
    """The folder holds a memory.json that is not memtui's, and nothing else of a memtui store."""


class StoreUnavailable(MemtuiError):
    """The store's database cannot be reached (down, unreachable, refused the login): nothing was
    read or written. The message names the database without its password."""
