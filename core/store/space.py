"""Disk space: a store must stay writable when its own backups fill the disk.

Retention keeps 30 backups and one a day for two weeks (backup_files.py), whatever their size, so
on a small disk the backups alone can fill it: the fault run that found this filled one after 26
writes, and from then on every write failed with "No space left on device" while doctor saw
nothing wrong. Now:

- a write that fails for lack of space (ENOSPC, EDQUOT) frees backups, oldest first, and tries
  that step once more (`Storage.transact`); what it freed is reported (`Storage.freed`);
- doctor reports a disk too full for the next write (`disk_warning`).

What may be freed, in this order, until there is room for the write:

1. backups that removed nothing (a plain backup before an add or an edit): everything they hold
   is in a newer backup or the file, and an edit's old text is in the audit log;
2. `-removal` backups whose removed entries the audit log still holds whole (a delete's or an
   eviction's `before`), so `memtui audit` and undo keep them. A removal backup holding the only
   copy of an entry (a restore's removals, or a delete whose event was rotated away) is never
   freed: the write fails instead, and says so;
3. the derived index (memory.json.index): only time is lost, it is derived again.

Never freed: the newest backup (the last state before the file as it is), the newest backup that
parses when that one does not, and the backup this write has just made.
"""

from __future__ import annotations

import errno
import os
import stat

__all__ = ["FULL_ERRNOS", "SLACK", "available", "disk_warning", "free_space", "is_full", "retry_audit", "with_room"]

FULL_ERRNOS = frozenset({errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)})
# Room kept beyond the two copies a write makes (the backup and the new file): the audit batch,
# the directory entries, the derived index of a small store.
SLACK = 64 * 1024


def is_full(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and exc.errno in FULL_ERRNOS


def available(directory) -> tuple[int, int] | None:
    """(bytes, inodes) an unprivileged process may still use on the disk holding `directory`;
    None when the system does not say."""
    try:
        st = os.statvfs(directory)
    except (OSError, AttributeError):
        return None
    inodes = st.f_favail if st.f_files else 1 << 30  # a file system without inode counts (btrfs reports 0)
    return st.f_bavail * st.f_frsize, inodes


def _size(path) -> int:
    try:
        st = os.lstat(path)
    except OSError:
        return 0
    return st.st_size if stat.S_ISREG(st.st_mode) else 0


def _protected(storage, keep: str | None) -> set[str]:
    """The backups never freed: the newest, the newest that parses, and `keep`."""
    from .records import Corrupt, parse_document

    names = storage.backups.names()
    protected = set(names[:1]) | ({keep} if keep else set())
    for name in names:
        try:
            parse_document(storage.backups.read(name))
        except (OSError, Corrupt):
            continue
        protected.add(name)
        break
    return protected


def _logged_whole(storage) -> set[str]:
    """The ids whose removal the audit log holds with the whole entry (a delete's or an eviction's
    `before`): an entry a removal backup holds and the log holds too is not lost by freeing it."""
    return {event["id"] for event in storage.audit.lines()
            if event.get("op") in ("delete", "evict") and isinstance(event.get("id"), str)
            and isinstance(event.get("before"), dict) and isinstance(event["before"].get("text"), str)}


def _only_copy(storage, name: str, current: set[str] | frozenset[str], logged: set[str]) -> bool:
    """Whether removal backup `name` holds an entry found nowhere else: not in the file, not in a
    newer backup, and not held whole by the audit log."""
    from .records import Corrupt, parse_document

    try:
        held = {record.id for record in parse_document(storage.backups.read(name)).records}
    except (OSError, Corrupt):
        return False  # it holds nothing readable
    missing = held - current - logged
    if not missing:
        return False
    key = dict(storage.backups.parsed()).get(name)
    for newer, newer_key in storage.backups.parsed():
        if key is not None and newer_key <= key:
            break
        try:
            missing -= {record.id for record in parse_document(storage.backups.read(newer)).records}
        except (OSError, Corrupt):
            continue
        if not missing:
            return False
    return bool(missing)


def free_space(storage, need: int, keep: str | None = None,
               current: set[str] | frozenset[str] = frozenset()) -> list[tuple[str, int]]:
    """Free backups (and, last, the derived index) until `need` bytes are available on the store's
    disk, in the order the module docstring gives; returns what was removed, (name, bytes), in
    the order removed. Stops as soon as there is room; frees nothing it must keep."""
    freed: list[tuple[str, int]] = []

    def room() -> bool:
        found = available(storage.dir)
        return found is not None and found[0] >= need and found[1] > 2

    if room():
        return freed
    protected = _protected(storage, keep)
    oldest_first = [(name, key) for name, key in reversed(storage.backups.parsed()) if name not in protected]
    plain = [name for name, key in oldest_first if not key.removal]
    removals = [name for name, key in oldest_first if key.removal]
    logged = _logged_whole(storage) if removals else set()

    def remove(path, label: str) -> None:
        size = _size(path)
        try:
            if stat.S_ISREG(os.lstat(path).st_mode):
                os.unlink(path)
                freed.append((label, size))
        except OSError:
            pass

    for name in plain:
        remove(storage.backups.dir / name, name)
        if room():
            return freed
    for name in removals:
        if _only_copy(storage, name, current, logged):
            continue
        remove(storage.backups.dir / name, name)
        if room():
            return freed
    from .derived import index_path

    remove(index_path(storage.path), index_path(storage.path).name)
    return freed


def with_room(storage, step, need: int, keep: str | None, doc):
    """`step()`; if the disk is full, free files (`free_space`) and run it once more. What was freed
    is added to `storage.freed`, which the warnings after the command say."""
    try:
        return step()
    except OSError as exc:
        if not is_full(exc):
            raise
        storage.freed += free_space(storage, need, keep, set(doc.ids()))
        try:
            return step()
        except OSError as again:
            if not is_full(again):
                raise
            n = len(storage.freed)
            what = (f"freed {n} old file{'s' if n != 1 else ''} of the store and it was not enough" if n else
                    "no backup could be freed (the newest, and the only copies of removed entries, are kept)")
            from ..errors import StoreUnwritable

            raise StoreUnwritable(f"cannot write to {storage.dir}: the disk is full (No space left on device); "
                                  f"{what}; nothing was written: free space on that disk") from None


def retry_audit(storage, batch: bytes, keep: str | None, doc) -> None:
    """Append an audit batch that found the disk full once more, after freeing room for it (a
    fresh descriptor: part of the batch may be there, and that line is ended first)."""
    storage.freed += free_space(storage, len(batch) + SLACK, keep, set(doc.ids()))
    fd, prefix = storage.audit.open()
    try:
        storage.audit.write(fd, prefix, batch)
    finally:
        os.close(fd)


def disk_warning(storage):
    """A health warning when the disk holding the store has no room for the next write (about two
    copies of memory.json plus `SLACK`), or no free inode; None when it has."""
    found = available(storage.dir if storage.dir.is_dir() else storage.dir.parent)
    if found is None:
        return None
    free, inodes = found
    need = 2 * _size(storage.path) + SLACK
    if free >= need and inodes > 2:
        return None
    from ..health_codes import DISK_FULL, Warning

    parsed = storage.backups.parsed()
    held = sum(_size(storage.backups.dir / name) for name, _key in parsed)
    what = ("no free inode" if inodes <= 2 else
            f"{_kib(free)} free, and a write needs about {_kib(need)} (a backup of memory.json and the new file)")
    text = (f"the disk holding {storage.dir} is full ({what}): a write first frees the oldest backups it may "
            f"(never the newest, nor the only copy of a removed entry), and fails with 'No space left on device' "
            f"when that is not enough; backups/ holds {len(parsed)} backup{'s' if len(parsed) != 1 else ''} "
            f"({_kib(held)})")
    return Warning(DISK_FULL, text, f"free space on that disk, or move old backups out of {storage.backups.dir}")


def _kib(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MiB" if n >= 1024 * 1024 else f"{max(n, 0) // 1024} KiB"
