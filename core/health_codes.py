"""The health warning: `Warning(code, text, fix)`, and every code it can carry.

Its own module, without imports, so the pydantic models, the health check and the app can all
use it without importing each other (`Warning` itself is made when first asked for).
docs/storage.md lists every code with its fix.
"""

from __future__ import annotations

from _thread import allocate_lock

__all__ = [
    "AUDIT_UNLOGGED", "BLOCKED", "CORE_OVER_BUDGET", "DISK_FULL", "DUPLICATE_KEY", "FLAGGED_FIELD", "INVALID",
    "JUNK_BACKUPS", "LIMITS_INVALID", "NEARLY_FULL", "NOT_A_STORE", "OVER_LIMIT", "PERMISSIONS", "QUARANTINED",
    "RECOVERED", "SPACE_FREED", "SPECIAL_FILE", "SYMLINK", "TS_OUT_OF_RANGE", "UNFLAGGED_THREAT", "UNREADABLE",
    "UNWRITABLE", "Warning",
]

AUDIT_UNLOGGED = "audit-unlogged"  # a change was saved but its audit events were not
UNREADABLE = "unreadable"  # memory.json could not be read, or is corrupt and not yet recovered
RECOVERED = "recovered"  # this process found memory.json corrupt and recovered it
QUARANTINED = "quarantined"  # a corrupt memory file is set aside in the store directory
NEARLY_FULL = "nearly-full"
OVER_LIMIT = "over-limit"
INVALID = "invalid"  # items of entries that are not valid entries
BLOCKED = "blocked"  # entries held back by the threat scan
UNFLAGGED_THREAT = "unflagged-threat"  # blocked by the scan, but stored without the flag: another program wrote them
FLAGGED_FIELD = "flagged-field"  # an entry's source or a keyword the threat scan flags
UNWRITABLE = "unwritable"
NOT_A_STORE = "not-a-store"  # the folder holds another program's memory.json: nothing is read or written
SYMLINK = "symlink"  # a store file is a symbolic link: refused
SPECIAL_FILE = "special-file"  # a store file is a FIFO, a socket, a device or a folder: never opened
PERMISSIONS = "permissions"  # other users can write to the store directory
DUPLICATE_KEY = "duplicate-entries-key"  # memory.json has its entries key twice; the non-empty list is used
TS_OUT_OF_RANGE = "ts-out-of-range"  # entries whose ts no date can hold (1e300): read as unknown (0)
DISK_FULL = "disk-full"  # the disk has no room for the next write (about two copies of memory.json)
SPACE_FREED = "space-freed"  # a write found the disk full and freed old backups to be saved
LIMITS_INVALID = "limits-invalid"  # the store's own limits hold something that is not a valid limit: ignored
JUNK_BACKUPS = "junk-backups"  # files in backups/ that memtui did not write: skipped, never deleted
CORE_OVER_BUDGET = "core-over-budget"  # entries pinned by hand do not fit the pinned core's budget


def __getattr__(name: str):
    # `Warning` is made on first use: a frozen dataclass costs about a millisecond to create
    # (its methods are generated and compiled), and `memtui inject` asks for warnings after every
    # turn but almost never has one.
    if name == "Warning":
        return _make_warning()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_making = allocate_lock()


def _make_warning():
    global Warning
    with _making:  # one class, even if two threads ask at once
        made = globals().get("Warning")
        if made is not None:
            return made
        from dataclasses import dataclass

        @dataclass(frozen=True)
        class Warning:  # noqa: A001 -- the name the health model uses; shadows the builtin only here
            """One problem: a stable `code` to switch on, the `text` to show, and a `fix` to run."""

            code: str
            text: str
            fix: str | None = None

            def __str__(self) -> str:
                return self.text

        return Warning
