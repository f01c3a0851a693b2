"""Listing, reading, comparing and restoring backups."""

from __future__ import annotations

import os

from .errors import BackupNotFound
from .model import Backup, RestoreResult
from .records import Corrupt, Document, parse_document
from .storage import BACKUP_RE, Storage, stamp_time


def list_backups(storage: Storage) -> list[Backup]:
    """Every backup, newest first, with how many entries it holds (None if it does not parse)."""
    out = []
    for name in storage.backup_names():
        path = storage.backups_dir / name
        try:
            data = path.read_bytes()
        except OSError:
            continue
        try:
            count: int | None = len(parse_document(data).records)
            valid = True
        except Corrupt:
            count, valid = None, False
        stamp = BACKUP_RE.match(name).group(1)  # type: ignore[union-attr]
        out.append(Backup(name=name, path=str(path), at=stamp_time(stamp), entries=count, size=len(data), valid=valid))
    return out


def read_backup(storage: Storage, name: str) -> Document:
    path = storage.backup_path(name)
    try:
        return parse_document(path.read_bytes())
    except Corrupt as exc:
        raise BackupNotFound(name, f"backup is not a valid memory file ({exc})") from None


def diff_documents(name: str, current: Document, target: Document) -> RestoreResult:
    """What replacing `current` by `target` changes, by entry id."""
    now = {r.id: r.view() for r in current.records}
    then = {r.id: r.view() for r in target.records}
    return RestoreResult(
        name=name,
        added=[i for i in then if i not in now],
        removed=[i for i in now if i not in then],
        changed=[i for i in then if i in now and then[i] != now[i]],
    )


def restore(storage: Storage, name: str, actor: str) -> RestoreResult:
    """Replace the store by a backup. The current file is backed up first, like any write."""
    path = storage.backup_path(name)
    data = path.read_bytes()
    try:
        target = parse_document(data)
    except Corrupt as exc:
        raise BackupNotFound(name, f"backup is not a valid memory file ({exc})") from None
    result: dict[str, RestoreResult] = {}

    def mutate(doc: Document) -> list[dict]:
        diff = diff_documents(name, doc, target)
        doc.top, doc.items = target.top, target.items
        result["diff"] = diff
        note = f"restored {name}: {len(diff.added)} added, {len(diff.removed)} removed, {len(diff.changed)} changed"
        return [{"op": "restore", "id": None, "before": None, "after": None, "note": note,
                 "added": diff.added, "removed": diff.removed, "changed": diff.changed}]

    storage.transact(mutate, actor)
    names = storage.backup_names()
    diff = result["diff"]
    diff.backup_of_current = names[0] if names and names[0] != name else None
    return diff


def backup_age(storage: Storage) -> float | None:
    names = storage.backup_names()
    if not names:
        return None
    try:
        return os.path.getmtime(storage.backups_dir / names[0])
    except OSError:
        return None
