"""health(): everything a person should know about the state of a store, in one model."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from .model import Health, InvalidEntry, Quarantine
from .storage import FILE_NAME, stamp_time

if TYPE_CHECKING:
    from .store import MemoryStore


def _is_locked(store: MemoryStore) -> bool:
    if not store.storage.lock_path.exists() or not os.access(store.dir, os.W_OK):
        return False
    from filelock import FileLock, Timeout

    try:
        with FileLock(str(store.storage.lock_path), timeout=0, mode=0o600):
            return False
    except Timeout:
        return True
    except OSError:
        return False


def health(store: MemoryStore) -> Health:
    storage = store.storage
    doc = storage.load()
    records = doc.records
    invalid = [InvalidEntry(index=i, raw=item.raw, error=item.error) for i, item in doc.invalid]
    blocked = [r.id for r in records if r.blocked]
    quarantined = []
    notes = {}
    for event in storage.audit_lines():
        if event.get("op") == "quarantine" and event.get("note"):
            notes[event["note"].split(":", 1)[0]] = event["note"].split(": ", 1)[-1]
        if event.get("op") == "restore" and "after quarantining" in (event.get("note") or ""):
            broken = event["note"].rsplit(" ", 1)[-1]
            notes[broken + "#from"] = event["note"].split()[2]
    try:
        broken_files = sorted(p for p in store.dir.glob(FILE_NAME + ".broken-*"))
    except OSError:
        broken_files = []
    for path in broken_files:
        stamp = path.name.rsplit("broken-", 1)[-1]
        try:
            at = stamp_time(stamp)
        except ValueError:
            at = path.stat().st_mtime
        quarantined.append(
            Quarantine(path=str(path), at=at, error=notes.get(path.name, "unreadable"),
                       restored_from=notes.get(path.name + "#from"))
        )
    recovered = None
    if storage.recovery is not None:
        rec = storage.recovery
        recovered = Quarantine(path=str(rec.quarantined), at=rec.at, error=rec.error, restored_from=rec.restored_from)
    names = storage.backup_names()
    exists = storage.path.exists()
    writable = (os.access(store.dir, os.W_OK | os.X_OK) if store.dir.exists()
                else _creatable(store.dir))
    warnings = []
    cap = store.limits.max_entries
    if storage.read_error:
        warnings.append(storage.read_error)
    if len(records) >= cap * 0.9:
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
        locked=_is_locked(store), writable=writable, warnings=warnings,
    )


def _creatable(path) -> bool:
    parent = path
    while not parent.exists():
        if parent.parent == parent:
            return False
        parent = parent.parent
    return parent.is_dir() and os.access(parent, os.W_OK | os.X_OK)


