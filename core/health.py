"""health(): everything a person should know about the state of a store, in one model."""

from __future__ import annotations

import errno
import os
from typing import TYPE_CHECKING

from .model import Health, InvalidEntry, Quarantine
from .fileio import stamp_time
from .storage import BROKEN_PREFIX, Storage

if TYPE_CHECKING:
    from .store import MemoryStore


def is_locked(storage: Storage) -> bool:
    """Whether a writer holds the lock right now. Probes with a non-blocking flock on a read-only
    descriptor, so it works on a read-only store and never waits."""
    try:
        import fcntl
    except ImportError:  # no flock on this platform
        return False
    try:
        fd = os.open(storage.lock_path, os.O_RDONLY)
    except OSError:
        return False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError as exc:
            return exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def quarantined_files(storage: Storage) -> list[Quarantine]:
    """Every `memory.json.broken-*` file still in the store directory, oldest first, with the
    parse error and the backup restored in its place, as the audit log recorded them."""
    errors: dict[str, str] = {}
    restored: dict[str, str] = {}
    for event in storage.audit_lines():  # lines another program wrote may hold anything: use only text
        op = event.get("op")
        if op == "quarantine" and _text(event.get("file")) and _text(event.get("error")):
            errors[event["file"]] = event["error"]
        elif op == "restore" and _text(event.get("quarantined")) and _text(event.get("backup")):
            restored[event["quarantined"]] = event["backup"]
    try:
        paths = sorted(p for p in storage.dir.iterdir() if p.name.startswith(BROKEN_PREFIX))
    except OSError:
        paths = []
    out = []
    for path in paths:
        stamp = path.name[len(BROKEN_PREFIX):].split("-", 1)[0]
        try:
            at = stamp_time(stamp)
        except ValueError:
            try:
                at = path.stat().st_mtime
            except OSError:
                continue
        out.append(Quarantine(path=str(path), at=at, error=errors.get(path.name, "unreadable memory file"),
                              restored_from=restored.get(path.name)))
    return out


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def health(store: MemoryStore) -> Health:
    storage = store.storage
    doc = storage.load()
    records = doc.records
    invalid = [InvalidEntry(index=i, raw=item.raw, error=item.error) for i, item in doc.invalid]
    blocked = [r.id for r in records if r.blocked]
    quarantined = quarantined_files(storage)
    recovered = None
    if storage.recovery is not None:
        rec = storage.recovery
        recovered = Quarantine(path=str(rec.quarantined), at=rec.at, error=rec.error, restored_from=rec.restored_from)
    names = storage.backup_names()
    exists = storage.path.exists()
    writable = (os.access(store.dir, os.W_OK | os.X_OK) if store.dir.is_dir() else _creatable(store.dir))
    warnings = []
    cap = store.limits.max_entries
    if storage.audit_error:
        warnings.append(storage.audit_error)
    if storage.read_error:
        warnings.append(storage.read_error)
    if len(records) >= cap * 0.9:
        if len(records) > cap:
            warnings.append(
                f"store is over the limit ({len(records)}/{cap}): the next add evicts "
                f"{len(records) - cap + 1} entries, facts first, oldest first"
            )
        else:
            warnings.append(f"store is nearly full ({len(records)}/{cap}); the oldest facts are evicted first")
    if invalid:
        warnings.append(f"{len(invalid)} invalid entr{'y' if len(invalid) == 1 else 'ies'} kept but not searched")
    if blocked:
        warnings.append(f"{len(blocked)} entr{'y' if len(blocked) == 1 else 'ies'} blocked by the threat scan, awaiting approval")
    for q in quarantined:
        source = f"restored from {q.restored_from}" if q.restored_from else "no backup could be restored"
        warnings.append(f"a corrupt memory file was quarantined to {os.path.basename(q.path)} ({q.error}); {source}")
    if not writable:
        warnings.append(f"store directory {store.dir} is not writable: changes cannot be saved")
    return Health(
        path=str(storage.path), exists=exists, entries=len(records), max_entries=cap, invalid=invalid,
        blocked=blocked, quarantined=quarantined, recovered=recovered, last_backup=names[0] if names else None,
        locked=is_locked(storage), writable=writable, warnings=warnings,
    )


def _creatable(path) -> bool:
    parent = path
    while not parent.exists():
        if parent.parent == parent:
            return False
        parent = parent.parent
    return parent.is_dir() and os.access(parent, os.W_OK | os.X_OK)
