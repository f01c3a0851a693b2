"""Listing, reading, comparing and restoring backups."""

from __future__ import annotations

import orjson

from ..errors import BackupNotFound
from ..model import Backup, RestoreResult
from .records import Corrupt, Document, _check, parse_document
from .storage import Change, Storage


def list_backups(storage: Storage) -> list[Backup]:
    """Every backup, newest first, with how many valid entries it holds (None if it does not parse).
    Entries are validated but not threat-scanned: listing stays fast for 40+ backups of 500 entries."""
    out = []
    for name, key in storage.backups.parsed():
        try:
            data = storage.backups.read(name)
        except (OSError, BackupNotFound):
            continue
        count = _count_entries(data)
        out.append(Backup(name=name, path=storage.backups.where(name), at=key.at, entries=count, size=len(data),
                          valid=count is not None))
    return out


def _count_entries(data: bytes) -> int | None:
    try:
        top = orjson.loads(data[3:] if data.startswith(b"\xef\xbb\xbf") else data)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(top, dict) or not isinstance(top.get("entries"), list):
        return None
    return sum(1 for raw in top["entries"] if _check(raw)[0] is not None)


def read_backup(storage: Storage, name: str) -> Document:
    data = storage.backups.read_named(name)
    try:
        return parse_document(data).use_key(storage.approval_key())
    except Corrupt as exc:
        raise BackupNotFound(name, problem=f"is not a valid memory file ({exc})") from None


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
    """Replace the store by a backup, atomically. The current file is backed up first, like any
    write (`backup_of_current` names that backup; None when there was no file)."""
    try:
        data = storage.backups.read_named(name)
    except OSError as exc:
        raise BackupNotFound(name, problem=f"cannot be read ({exc.strerror or exc})") from None
    try:
        target = parse_document(data)
    except Corrupt as exc:
        raise BackupNotFound(name, problem=f"is not a valid memory file ({exc})") from None

    def mutate(doc: Document) -> Change:
        diff = diff_documents(name, doc, target)
        doc.top, doc.items = target.top, target.items
        note = f"restored {name}: {len(diff.added)} added, {len(diff.removed)} removed, {len(diff.changed)} changed"
        return Change([{"op": "restore", "id": None, "before": None, "after": None, "note": note, "backup": name,
                        "added": diff.added, "removed": diff.removed, "changed": diff.changed}], diff)

    committed = storage.transact(mutate, actor)
    diff = committed.result
    diff.backup_of_current = committed.backup
    return diff
