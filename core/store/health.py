"""health(): everything a person should know about the state of a store, in one model.

Each warning is a `Warning(code, text, fix)` (`health_codes.py`). Callers switch on `code`,
never on the text, which may be reworded. docs/storage.md lists every code and its fix.
"""

from __future__ import annotations

import errno
import os
TYPE_CHECKING = False

from .audit_log import AUDIT_NAME
from .fileio import stamp_time
from ..health_codes import (
    AUDIT_UNLOGGED, BLOCKED, CORE_OVER_BUDGET, DUPLICATE_KEY, FLAGGED_FIELD, INVALID, JUNK_BACKUPS,
    LIMITS_INVALID, NEARLY_FULL, NOT_A_STORE, OVER_LIMIT, PERMISSIONS, QUARANTINED, RECOVERED, SPACE_FREED,
    SPECIAL_FILE, SYMLINK, TS_OUT_OF_RANGE, UNFLAGGED_THREAT, UNREADABLE, UNWRITABLE,
)
from ..limits import Limits
from .records import ts_out_of_range
from .storage import BROKEN_PREFIX, Storage

if TYPE_CHECKING:
    from ..health_codes import Warning
    from ..model import CoreReport, Health, Quarantine

__all__ = ["Warning", "health", "is_locked", "quarantined_files", "recent_warnings"]


def __getattr__(name: str):
    if name == "Warning":  # made on first use (health_codes)
        from ..health_codes import Warning

        return Warning
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _warning(code: str, text: str, fix: str | None = None) -> Warning:
    from ..health_codes import Warning

    return Warning(code, text, fix)

def is_locked(storage: Storage) -> bool:
    """Whether a writer holds the lock right now. Probes with a non-blocking flock on a read-only
    descriptor, so it works on a read-only store and never waits."""
    try:
        import fcntl
    except ImportError:  # no flock on this platform
        return False
    from .fileio import open_regular

    try:
        fd = open_regular(storage.lock_path)
    except OSError:  # missing, or not a regular file (reported as such: `special_files`)
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
    from ..model import Quarantine

    errors: dict[str, str] = {}
    restored: dict[str, str] = {}
    reasons: dict[str, str] = {}
    for event in storage.audit_lines():  # lines another program wrote may hold anything: use only text
        op = event.get("op")
        if op == "quarantine" and _text(event.get("file")) and _text(event.get("error")):
            errors[event["file"]] = event["error"]
        elif op == "restore" and _text(event.get("quarantined")) and _text(event.get("backup")):
            restored[event["quarantined"]] = event["backup"]
            if _text(event.get("why")):
                reasons[event["quarantined"]] = event["why"]
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
                              restored_from=restored.get(path.name), why=reasons.get(path.name)))
    return out


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def recent_warnings(storage: Storage) -> list[Warning]:
    """What a command should tell on its way out, cheaply (one directory listing; it runs after
    `memtui inject` too): a recovery this process made, a file it could not read, a change it
    could not log, and corrupt files still set aside."""
    out = []
    report = storage.recovery
    if report is not None:
        if report.restored_from == AUDIT_NAME:
            restored = "rebuilt it from the audit log"
        elif report.restored_from:
            restored = f"restored it from backup {report.restored_from}"
        else:
            restored = "no valid backup could be restored, so the store starts empty"
        why = f" ({report.why})" if report.why else ""
        out.append(_warning(RECOVERED, f"{storage.path} was corrupt ({report.error}): moved it to "
                                      f"{report.quarantined.name} and {restored}{why}", "memtui doctor"))
    out += _storage_errors(storage)
    broken = _broken_names(storage)
    if report is not None:
        broken = [name for name in broken if name != report.quarantined.name]
    if broken:
        files = "file" if len(broken) == 1 else "files"
        out.append(_warning(QUARANTINED, f"{len(broken)} corrupt memory {files} quarantined in {storage.dir} "
                                        f"(newest {broken[-1]})", "memtui doctor"))
    return out


def _storage_errors(storage: Storage) -> list[Warning]:
    """Problems the storage itself ran into or can see at a glance (cheap: one listing of backups/)."""
    out = []
    if storage.not_a_store:
        out.append(_warning(NOT_A_STORE, storage.not_a_store, "use --dir with a folder of its own for memtui"))
    links, special = storage.folder.odd_files()
    for link in links:
        out.append(_warning(SYMLINK, f"{link} is a symlink: memtui refuses to read or write through it",
                           f"replace {link} with a real file or folder"))
    if special:
        essential = set(storage.folder.essential_paths()) | {storage.backups.dir}
        for path, what in special:
            effect = ("the store reads as empty and every write is refused" if path == storage.path else
                      "every write is refused" if path in essential else
                      _SPECIAL_EFFECTS.get(path.name, "it is left alone"))
            should = "a folder" if path == storage.backups.dir else "a regular file"
            out.append(_warning(SPECIAL_FILE, f"{path} is {what}, not {should}: memtui never opens it, "
                                              f"so {effect}", f"rm {path}"))
    if storage.freed:
        n, total = len(storage.freed), sum(size for _name, size in storage.freed)
        names = [name for name, _size in storage.freed]
        shown = ", ".join(names[:3]) + (f" and {n - 3} more" if n > 3 else "")
        out.append(_warning(SPACE_FREED, f"the disk was full: freed {n} old file{'s' if n != 1 else ''} of the store "
                                        f"({total // 1024} KiB) so the change could be saved: {shown}",
                           "memtui doctor"))
    if storage.audit_error:
        out.append(_warning(AUDIT_UNLOGGED, storage.audit_error, "memtui doctor"))
    if storage.read_error and not any(path == storage.path for path, _what in special):  # said above
        out.append(_warning(UNREADABLE, storage.read_error, "memtui doctor"))
    junk = storage.backups.junk()
    if junk:
        shown = ", ".join(junk[:3]) + (f" and {len(junk) - 3} more" if len(junk) > 3 else "")
        out.append(_warning(JUNK_BACKUPS, f"{len(junk)} file{'s' if len(junk) != 1 else ''} in {storage.backups.dir} "
                                         f"{'are' if len(junk) != 1 else 'is'} not a memtui backup and "
                                         f"{'are' if len(junk) != 1 else 'is'} skipped: {shown}",
                           f"mv {storage.backups.dir}/<file> elsewhere"))
    return out


_SPECIAL_EFFECTS = {
    "memory.json.index": "the index is derived in memory by every process",
    "injections.jsonl": "the injection log is not written",
    "injections.jsonl.1": "the older part of the injection log is not read",
    "probes.json": "the probes cannot be read or saved",
}


def _broken_names(storage: Storage) -> list[str]:
    try:
        return sorted(name for name in os.listdir(storage.dir) if name.startswith(BROKEN_PREFIX))
    except OSError:
        return []


def health(storage: Storage, limits: Limits, log=None, core: CoreReport | None = None) -> Health:
    """Everything a person should know about the store in `storage`, without changing anything.
    `log`: the store's InjectionLog (for its usage and its write errors); by default one is opened.
    `core`: the store's pinned core (MemoryStore.core), for what it holds and what does not fit."""
    from ..model import Health, InvalidEntry, Quarantine

    doc = storage.load()
    records = doc.records
    invalid = [InvalidEntry(index=i, raw=item.raw, error=item.error) for i, item in doc.invalid]
    blocked = [r.id for r in records if r.blocked]
    quarantined = quarantined_files(storage)
    recovered = None
    if storage.recovery is not None:
        rec = storage.recovery
        recovered = Quarantine(path=str(rec.quarantined), at=rec.at, error=rec.error, restored_from=rec.restored_from,
                               why=rec.why)
    names = storage.backup_names()
    exists = storage.path.exists()
    directory = storage.dir
    can_write = getattr(storage, "can_write", None)  # a database store: whether this role may write it
    writable = can_write() if can_write is not None else (
        os.access(directory, os.W_OK | os.X_OK) if directory.is_dir() else _creatable(directory))
    warnings = _storage_errors(storage)
    cap = limits.max_entries
    if len(records) > cap:
        warnings.append(_warning(
            OVER_LIMIT,
            f"store is over the limit ({len(records)}/{cap}): the next add evicts "
            f"{len(records) - cap + 1} entries, facts first, oldest first",
            "memtui list --kind fact",
        ))
    elif len(records) >= cap * 0.9:
        warnings.append(_warning(NEARLY_FULL, f"store is nearly full ({len(records)}/{cap}); the oldest facts are evicted first",
                                "memtui list --kind fact"))
    if storage.carried_errors:
        n = len(storage.carried_errors)
        warnings.append(_warning(
            LIMITS_INVALID, f"the store's own limits (memory.json's limits) hold {n} item{'s' if n != 1 else ''} that "
                            f"{'are' if n != 1 else 'is'} not a valid limit, ignored: "
                            + "; ".join(storage.carried_errors[:3]), "memtui limits"))
    if doc.duplicate_keys:
        warnings.append(_warning(
            DUPLICATE_KEY, f"memory.json has {doc.duplicate_keys} top-level entries keys; the one non-empty list "
                           f"({len(doc.items)} items) is used, and the next write keeps only it", "memtui doctor"))
    odd_times = [r for r in records if r.ts == 0 and r.raw is not None and ts_out_of_range(r.raw)]
    if odd_times:
        n = len(odd_times)
        shown = ", ".join(f"{r.id} ({float(r.raw['ts']):.3g})" for r in odd_times[:3]) + (" ..." if n > 3 else "")
        warnings.append(_warning(
            TS_OUT_OF_RANGE, f"{n} entr{'y has' if n == 1 else 'ies have'} a time (ts) no date can hold, shown as "
                             f"unknown: {shown}; the next write stores 0 (the old value stays in its backup and "
                             f"the audit log)"))
    if invalid:
        warnings.append(_warning(INVALID, f"{len(invalid)} invalid entr{'y' if len(invalid) == 1 else 'ies'} kept but not searched",
                                "memtui doctor"))
    if blocked:
        warnings.append(_warning(
            BLOCKED, f"{len(blocked)} entr{'y' if len(blocked) == 1 else 'ies'} blocked by the threat scan, awaiting approval",
            "memtui approve <id>"))
    unflagged = [r.id for r in records if r.blocked and "blocked" not in r.flags]
    if unflagged:
        warnings.append(_warning(
            UNFLAGGED_THREAT, f"{_entries(len(unflagged))} the threat scan blocks {'were' if len(unflagged) != 1 else 'was'} "
                              f"stored without the flag (written by another program, or before a rule was added): "
                              f"{', '.join(unflagged[:5])}{' …' if len(unflagged) > 5 else ''}", "memtui approve ID, or memtui rm ID"))
    fields = _flagged_fields(records)
    if fields:
        warnings.append(_warning(
            FLAGGED_FIELD, f"{_entries(len(fields))} {'hold' if len(fields) != 1 else 'holds'} a source or keyword the "
                           f"threat scan flags (shown to people and models, never injected): "
                           f"{', '.join(f'{i} ({why})' for i, why in fields[:3])}{' …' if len(fields) > 3 else ''}",
            "memtui edit ID --keyword K (sets the keywords anew); any write drops such a source"))
    for q in quarantined:
        source = f"restored from {q.restored_from}" if q.restored_from else "no backup could be restored"
        if q.restored_from and q.why:
            source += f" ({q.why})"
        warnings.append(_warning(
            QUARANTINED, f"a corrupt memory file was quarantined to {os.path.basename(q.path)} ({q.error}); {source}",
            "memtui doctor"))
    try:
        mode = os.stat(directory).st_mode & 0o777 if directory.is_dir() else 0
    except OSError:
        mode = 0
    if mode & 0o022:  # others can replace memory.json (the next write tightens a folder we own to 0700)
        warnings.append(_warning(PERMISSIONS, f"store directory {directory} is writable by other users (mode {mode:o})",
                                f"chmod 700 {directory}"))
    from .space import disk_warning

    full = disk_warning(storage)
    if full is not None:
        warnings.append(full)
    if not writable and can_write is not None:
        warnings.append(_warning(UNWRITABLE, f"this database role cannot write to {storage.where}: changes cannot "
                                 f"be saved", "ask the database's owner for write access (docs/storage.md)"))
    elif not writable:
        warnings.append(_warning(UNWRITABLE, f"store directory {directory} is not writable: changes cannot be saved",
                                f"chmod u+rwx {directory}"))
    injections, share = _injection_usage(storage, limits, log, records, warnings)
    if core is not None and core.pinned_left_out:
        warnings.append(core_warning(core))
    return Health(
        path=storage.where, exists=exists, entries=len(records), max_entries=cap, invalid=invalid,
        blocked=blocked, quarantined=quarantined, recovered=recovered, last_backup=names[0] if names else None,
        locked=is_locked(storage), writable=writable, warnings=warnings,
        injections=injections, injected_share=share,
        core_entries=len(core.entries) if core else 0, core_used=core.used if core else 0,
        core_budget=core.budget if core else limits.core_budget,
        core_left_out=[member.entry.id for member in core.left_out] if core else [],
    )


def core_warning(core: CoreReport) -> Warning:
    """The pinned entries that do not fit the core's budget, by id: never left out silently."""
    left = core.pinned_left_out
    n = len(left)
    ids = ", ".join(member.entry.id for member in left[:8]) + (f" and {n - 8} more" if n > 8 else "")
    need = sum(member.chars for member in left)
    return _warning(CORE_OVER_BUDGET,
                    f"the pinned core is over its budget ({core.used}/{core.budget} characters used): "
                    f"{n} pinned entr{'y' if n == 1 else 'ies'} ({need} characters) left out of every block: {ids}",
                    "memtui core")


def _injection_usage(storage: Storage, limits: Limits, log, records: list,
                     warnings: list[Warning]) -> tuple[int, float | None]:
    """How many injections the log holds, and the share of entries injected at least once."""
    from .injections import LOG_CORRUPT, LOG_UNWRITTEN, log_for, usage

    if log is None:
        log = log_for(storage, limits)
    lines, skipped = log.read()
    if log.error:
        warnings.append(_warning(LOG_UNWRITTEN, log.error, f"check {log.path}, or set MEMTUI_INJECTION_LOG=off"))
    if skipped:
        warnings.append(_warning(LOG_CORRUPT, f"{len(skipped)} corrupt line{'s' if len(skipped) != 1 else ''} in the "
                                             f"injection log skipped (first: {skipped[0]})", "memtui injections"))
    if not log.enabled or not records:
        return len(lines), None
    used = usage(lines)
    return len(lines), sum(1 for r in records if r.id in used) / len(records)


def _entries(count: int) -> str:
    return f"{count} entr{'y' if count == 1 else 'ies'}"


def _flagged_fields(records: list) -> list[tuple[str, str]]:
    """(id, what) for each entry whose source or a keyword the threat scan flags: memtui's writes
    refuse them (docs/threat-scan.md#every-field), so another program wrote them. Each distinct
    value is scanned once: most sources are the same few labels."""
    from ..safety.threats import intent_findings

    seen: dict[str, str | None] = {}

    def flagged(value: str) -> str | None:
        if value not in seen:
            found = intent_findings(value)
            seen[value] = found[0].category if found else None
        return seen[value]

    out = []
    for record in records:
        why = flagged(record.source) if record.source else None
        if why is not None:
            out.append((record.id, f"source: {why}"))
            continue
        for keyword in record.keywords:
            why = flagged(keyword)
            if why is not None:
                out.append((record.id, f"keyword: {why}"))
                break
    return out


def _creatable(path) -> bool:
    parent = path
    while not parent.exists():
        if parent.parent == parent:
            return False
        parent = parent.parent
    return parent.is_dir() and os.access(parent, os.W_OK | os.X_OK)
