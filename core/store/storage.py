"""The one way memory.json changes: lock, read, change, back up, replace atomically, audit.

Reads take no lock (an atomic replace means a reader sees the old file or the new one, never
half of each) and are cached per file state (inode, size, mtime), so a warm read is one stat().

Every temporary file is created under the lock, so a temporary file found while holding the lock
was left by a writer that died: it is removed. The parts: `fileio` (atomic writes), `audit_log`
(the hash-chained log), `backup_files` (backups and retention), `recovery` (corrupt files and
changes a dead writer did not log). docs/storage.md describes the whole.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from collections import namedtuple

TYPE_CHECKING = False  # `typing` stays off the per-turn path (milliseconds of every `memtui inject`)
if TYPE_CHECKING:
    from typing import Any

from .audit_log import AUDIT_NAME, AuditLog, Event
from .backup_files import BACKUP_RE, Backups
from ..errors import LockTimeout, StoreUnwritable
from .folder import StoreFolder
from .fileio import atomic_write, fsync_dir, now, read_file, remove_stale_temps, stamp_time, utc_stamp
from . import derived
from ..limits import DEFAULT_LIMITS, Limits
from .records import Corrupt, Document, parse_document, written_canonical
from .recovery import BROKEN_PREFIX, FILE_NAME, Recovery, RecoveryReport

__all__ = [
    "AUDIT_NAME", "BACKUP_RE", "BROKEN_PREFIX", "FILE_NAME", "Change", "Committed", "RecoveryReport", "Storage",
    "now", "stamp_time", "utc_stamp",
]

class Change(namedtuple("Change", "events result", defaults=(None,))):
    """What a mutation did: `events`, the events to log (none: nothing to write), and `result`,
    its own result (default None)."""

    __slots__ = ()
    events: list[Event]
    result: Any


class Committed(namedtuple("Committed", "doc events result backup")):
    """What `transact` did: the resulting `doc`ument, every one of the `events` logged (a recovery
    or a change logged late first), the mutation's `result` and the `backup` of the file as it was
    (None if nothing was written or there was no file)."""

    __slots__ = ()
    doc: Document
    events: list[Event]
    result: Any
    backup: str | None


Mutation = Callable[[Document], Change]


class Storage:
    def __init__(self, directory: Path, limits: Limits = DEFAULT_LIMITS, actor: str = "api") -> None:
        self.dir = directory
        self.base_limits = limits  # the caller's; `limits` adds those the store carries (store_limits.py)
        self.limits = limits
        self.carried: dict = {}  # the valid limits memory.json carries, as last read
        self.carried_errors: list[str] = []  # what it carries that is not a valid limit
        self._adopted: object = None  # the document `limits` was last worked out from
        self.actor = actor  # recorded when a read has to quarantine a corrupt file
        self.folder = StoreFolder(directory)
        self.path = self.folder.path
        self.lock_path = self.folder.lock_path
        self.audit_path = self.folder.audit_path
        self.audit = AuditLog(self.audit_path, limits)
        self.backups = Backups(directory / "backups", limits)
        self._recovery = Recovery(self.path, self.backups, self.audit)
        # (state, document) of the last read, swapped as one value so threads never pair them wrongly
        self._cache: tuple[tuple | None, Document] | None = None
        self._lean: tuple[tuple, Document] | None = None  # (state, lean.LeanDocument) of the last lean read
        self.recovery: RecoveryReport | None = None  # set when this process quarantined a corrupt file
        self.read_error: str | None = None  # set when the last read could not show the file as it is
        self.audit_error: str | None = None  # set when this process saved a change it could not log
        self.not_a_store: str | None = None  # set when a read found a folder that is not a memtui store
        self.index_trusted = True  # False once a saved derived index was found not to add up (`drop_index`)
        self.freed: list[tuple[str, int]] = []  # what writes of this process freed on a full disk (space.py)

    @property
    def backups_dir(self) -> Path:
        return self.backups.dir

    def backup_names(self) -> list[str]:
        return self.backups.names()

    def backup_path(self, name: str) -> Path:
        return self.backups.path(name)

    def audit_lines(self) -> list[dict]:
        return self.audit.lines()

    def approval_key(self, create: bool = False) -> bytes | None:
        return self.folder.approval_key(create)

    def symlinks(self) -> list[Path]:
        return self.folder.symlinks()

    def ensure_dir(self) -> None:
        self.folder.ensure_dir()

    @property
    def where(self) -> str:  # the store as shown to people (a database store: its URL without the password)
        return str(self.path)

    # ------------------------------------------------------------------ reading

    def state(self) -> tuple | None:
        """A cheap token that changes whenever any process replaces the file (None: no file)."""
        try:
            st = os.stat(self.path)
        except (FileNotFoundError, NotADirectoryError):
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    def change_token(self) -> object:
        """Changes when any process writes, cheap enough to look at every second (a folder: one stat)."""
        return self.state()

    def loaded_state(self) -> tuple | None:
        """The state as the last read found it (a database store does not ask again; a folder: one stat)."""
        return self.state()

    def set_base_limits(self, limits: Limits) -> None:
        """Replace the caller's limits (MemoryStore.limits = ...); the store's own still apply."""
        self.base_limits = self.limits = self.backups.limits = self.audit.limits = limits
        self.carried, self.carried_errors, self._adopted = {}, [], None
        last = self._cache or self._lean
        self._adopt_limits(last[1] if last is not None else Document())

    def _adopt_limits(self, doc) -> None:
        top = getattr(doc, "top", None)
        if not self.carried and not self.carried_errors and not (isinstance(top, dict) and "limits" in top):
            self._adopted = doc  # the common case: no limits carried, before or now (store_limits stays unloaded)
            return
        from .store_limits import adopt

        adopt(self, doc)

    def load(self, lean: bool = False) -> Document:
        """The current document (and the limits it carries adopted: `limits`); see `_load`."""
        doc = self._load(lean)
        self._adopt_limits(doc)
        return doc

    def _load(self, lean: bool = False) -> Document:
        """The current document, cached while the file is unchanged. Never raises and never waits
        for the lock. A corrupt file is quarantined and recovered at once when the lock is free;
        otherwise the newest valid backup is shown (not written) and `read_error` says why.

        `lean`: the document is only queried, so a canonical file whose derived index can be
        trusted may be returned unparsed (lean.LeanDocument: its records are parsed one by one as
        a query meets them); a parsed document of the same file state is returned if there is one."""
        try:
            key = self.state()
        except OSError as exc:
            self.read_error = f"cannot read {self.path}: {exc.strerror or exc}"
            return Document()
        cached = self._cache
        if cached is not None and key is not None and cached[0] == key:
            return cached[1]
        if lean and key is not None and self._lean is not None and self._lean[0] == key:
            return self._lean[1]
        if key is None:
            if self._recovery.quarantined_names() and self._recovery.candidate() is not None:
                # a recovery was interrupted (or the file removed by hand): finish it
                return self._load_corrupt("memory.json is missing next to a quarantined file")
            doc = Document()
            self.read_error = None
            self._cache = (None, doc)
            return doc
        try:
            data = read_file(self.path)
        except FileNotFoundError:
            return self.load()
        except OSError as exc:
            self.read_error = f"cannot read {self.path}: {exc.strerror or exc}"
            return Document()
        known = None if self.index_trusted else (derived.content_key(data), None)
        if lean and self.index_trusted:
            found, known = derived.lean(self, data, self.approval_key())
            if found is not None:
                self.read_error = self.not_a_store = None
                self._lean = (key, found)
                return found
        try:
            doc = derived.parse(self, data, known)
        except Corrupt as error:
            self.not_a_store = self.folder.foreign_reason(data, str(error))
            if self.not_a_store is not None:  # someone else's file: never touch it
                self.read_error = None
                return Document()
            return self._load_corrupt(str(error))
        doc.use_key(self.approval_key())
        self.read_error = self.not_a_store = None
        self._cache = (key, doc)
        self._lean = None  # a parsed document answers queries too: the lean one's bytes are not kept twice
        return doc

    def drop_index(self) -> None:
        """The saved derived index did not add up (errors.IndexDamaged): forget every document read
        with it, and from now on derive the index from memory.json itself, saving it for the next
        process (which then finds one that does). The bad file is replaced, never trusted again."""
        self.index_trusted = False
        self._cache = self._lean = None

    def _load_corrupt(self, error: str) -> Document:
        try:
            doc = self.transact(lambda doc: Change([]), self.actor, timeout=0).doc
        except Exception as exc:  # the lock is busy, the directory is read-only, ...
            why = str(exc) or type(exc).__name__
        else:
            self.read_error = None
            return doc
        candidate = self._recovery.candidate()
        if candidate is not None:
            self.read_error = (f"{self.path} is corrupt ({error}) and not yet recovered ({why}); showing "
                               f"{'backup ' if candidate.name != AUDIT_NAME else ''}{candidate.name}: {candidate.why}")
            return candidate.doc
        self.read_error = f"{self.path} is corrupt ({error}) and not yet recovered ({why}); no backup to show"
        return Document()

    # ------------------------------------------------------------------ writing

    def _lock(self, timeout: float):
        from filelock import FileLock

        # a short poll: under contention a waiter notices a released lock within a few ms
        return FileLock(str(self.lock_path), timeout=timeout, mode=0o600, poll_interval=0.005)

    def transact(self, mutate: Mutation, actor: str = "api", *, timeout: float | None = None) -> Committed:
        """Run `mutate` on the newest document under the lock. If its change has events, the old
        file is backed up, the new one replaces it atomically and the events are appended to the
        audit log."""
        from filelock import Timeout

        wait = self.limits.lock_timeout if timeout is None else timeout
        self.folder.prepare_write()
        try:
            with self._lock(wait):
                return self._transact_locked(mutate, actor)
        except Timeout:
            raise LockTimeout(
                f"store is locked by another writer (waited {wait:g}s); nothing was written: {self.lock_path}"
            ) from None
        except OSError as exc:
            where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
            raise StoreUnwritable(f"cannot write to {self.dir}: {exc.strerror or exc}{where}") from None

    def _read_locked(self) -> tuple[bytes | None, Document, list[Event]]:
        """The file as it is (recovered first if corrupt), its document, and the events of what
        happened before this change that the log does not hold yet: a recovery, or a late change."""
        try:
            current: bytes | None = read_file(self.path)
        except FileNotFoundError:
            found = self._recovery.missing()
            if found is None:
                return None, Document(), []
            doc, current, prelude, self.recovery = found
            return current, doc.use_key(self.approval_key()), prelude
        try:
            doc = derived.parse(self, current).use_key(self.approval_key())
        except Corrupt as exc:
            doc, current, prelude, self.recovery = self._recovery.quarantine(current, str(exc))
            return current, doc.use_key(self.approval_key()), prelude
        return current, doc, self._recovery.unlogged_change(current, doc)

    def _transact_locked(self, mutate: Mutation, actor: str) -> Committed:
        remove_stale_temps(self.dir, self.backups.dir)
        current, doc, prelude = self._read_locked()
        self._adopt_limits(doc)  # the mutation sees the limits of the file as it is now
        pending = prelude  # events of what happened that are not logged yet
        backup = None
        before = set(doc.ids())
        try:
            # Secrets another program wrote into the file are redacted by this write, and kept out
            # of its backup and its audit events (only a file memtui did not leave can hold them).
            redacted = _redact_foreign(doc) if current is not None and self._changed_elsewhere(current) else {}
            imports = _import_events(doc, redacted)  # what this write will store differently from how it was read
            change = mutate(doc)
            changes = list(change.events)
            if changes:
                changes = imports + changes
                data = doc.to_bytes()
                kept = _redacted_bytes(current) if current is not None and redacted else current
                from .space import SLACK, with_room  # a full disk frees old backups and tries again

                need = len(data) + len(kept or b"") + SLACK
                if kept is not None:
                    removal = _removes(before, doc)
                    backup = with_room(self, lambda: self.backups.write(kept, removal), need, None, doc)
                batch = self.audit.batch(prelude + changes, actor, data)  # stamped after the backup
                fd, prefix = self.audit.open()
                try:
                    with_room(self, lambda: atomic_write(self.path, data, sync_dir=False), need, backup, doc)
                    pending = []
                    # straight after the replace: a writer killed in between leaves the change without
                    # its events, and the next write logs them late (see Recovery.unlogged_change)
                    self._log_saved_change(fd, prefix, batch, backup, doc)
                finally:
                    os.close(fd)
                fsync_dir(self.dir)
                # the derived index of what was just written, refreshed while the lock is held
                doc.key, doc.derived = derived.content_key(data), None
                doc.canonical = written_canonical(doc, data)
                doc.data = data if doc.canonical else None
                try:
                    derived.ensure(self, doc, written=True)
                except Exception:  # an optimisation only: the change is saved, the next reader derives it
                    doc.derived = None
        except BaseException:
            if pending:  # the recovery happened even though the change did not
                try:
                    self.audit.append(pending, actor, current)
                except OSError:
                    pass
            raise
        self.audit.append(pending, actor, current)
        self._adopted = None
        self._adopt_limits(doc)  # the change may have been to the limits themselves
        self._cache = (self.state(), doc.use_key(self.approval_key()))
        self._lean = None
        return Committed(doc, prelude + changes, change.result, backup)

    def _changed_elsewhere(self, current: bytes) -> bool:
        """Whether memory.json is not the file memtui's last logged write left."""
        from .fileio import digest

        logged = self.audit.last_logged_state()
        return logged is None or digest(current) != logged[0]

    def _log_saved_change(self, fd: int, prefix: bytes, batch: bytes, keep: str | None = None,
                          doc: Document | None = None) -> None:
        try:
            try:
                self.audit.write(fd, prefix, batch)
            except OSError as exc:
                from .space import is_full, retry_audit

                if not is_full(exc) or doc is None:
                    raise
                retry_audit(self, batch, keep, doc)
        except OSError as exc:
            # The change is saved; only its events are not. Reporting "not saved" would be false
            # and invite a retry, so the next write logs them late, as after a crash.
            self.audit_error = (
                f"a change was saved but its audit events could not be written "
                f"({exc.strerror or exc}); the next write logs them"
            )
        else:
            self.audit_error = None


def _removes(before: set[str], after: Document) -> bool:
    """Whether a write leaves out an entry that was there (a delete, an eviction, a restore)."""
    return not before <= after.ids().keys()


def _import_events(doc: Document, redacted: dict[str, list[str]] | None = None) -> list[Event]:
    """An `import` for each entry the next write stores differently from how the file held it:
    an id given on load, a kind alias or a null source written in canonical form, secrets another
    program wrote redacted (`redacted`: their ids). `before` is the entry as the file held it, its
    secrets redacted too: the audit log never holds one."""
    redacted = redacted or {}
    events = []
    for record in doc.records:
        if record.raw is None:
            continue
        stored = record.to_json()
        # fields the file lacked and now get their default (source "", ts 0) are not worth an event
        changed = sorted(key for key in record.raw if stored.get(key) != record.raw[key])
        if record.id_given or changed:
            notes = ["id given to an entry the file held without one"] if record.id_given else []
            if record.id in redacted:
                notes += redacted[record.id]
                changed = [key for key in changed if key not in ("text", "source", "flags", "keywords")]
            if changed:
                notes.append("stored in canonical form: " + ", ".join(changed))
            note = "; ".join(notes)
            before = _redacted_value(record.raw, _entry_values(record.raw)) if record.id in redacted else record.raw
            events.append({"op": "import", "id": record.id, "before": before, "after": record.view(), "note": note})
    return events


def _redacted_value(value: Any, values: list[str] = ()) -> Any:
    """`value` (a string, or JSON made of lists and objects) with the secrets in its strings
    redacted, and every occurrence of `values` (secrets found elsewhere in the entry); `value`
    itself when it holds none. Walked with a stack, not recursion: another program's field may be
    nested deeper than Python recurses."""
    from ..safety.redaction import redact_values
    from ..safety.threats import redact_secrets as redact_one

    def redact_secrets(string: str) -> str:
        return redact_values(redact_one(string), values) if values else redact_one(string)

    if isinstance(value, str):
        return redact_secrets(value)
    if not isinstance(value, (list, dict)):
        return value
    changed = False
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(value, root, 0)]
    while stack:
        item, parent, key = stack.pop()
        if isinstance(item, str):
            parent[key] = redact_secrets(item)
            changed = changed or parent[key] != item
        elif isinstance(item, list):
            parent[key] = copy = [None] * len(item)
            stack += [(child, copy, i) for i, child in enumerate(item)]
        elif isinstance(item, dict):
            parent[key] = copy = dict.fromkeys(item)
            stack += [(child, copy, name) for name, child in item.items()]
        else:
            parent[key] = item
    return root[0] if changed else value


def _redact_foreign(doc: Document) -> dict[str, list[str]]:
    """Redact, in place, the secrets in every stored field of the entries (text, source, keywords
    and any field another program added), and drop a source the threat scan flags; the ids of the
    entries changed, each with what was done. A value found secret in one field is redacted in all
    of them, and a keyword holding part of one is dropped (core/safety/redaction.py). A text that
    changes is judged again and marked `secret-redacted`, as a write through memtui would be."""
    from ..safety.redaction import redact_entry
    from ..safety.threats import intent_findings

    changed: dict[str, list[str]] = {}
    for record in doc.records:
        keywords = record.keywords
        whole = redact_entry(record.text, record.source, keywords)
        text, source = whole.text, whole.source
        extra = _redacted_value(record.extra, whole.values)
        if whole.changed:
            if keywords:
                kept = [k for i, k in enumerate(whole.keywords) if i not in whole.fragments]
                extra = {**extra, "keywords": kept} if kept else {k: v for k, v in extra.items() if k != "keywords"}
        notes = []
        if text != record.text or source != record.source or extra is not record.extra:
            notes.append("secrets another program wrote were redacted")
        found = intent_findings(source) if isinstance(source, str) else []
        if found:  # shown to people and, through the MCP resource, to models: never kept
            source = ""
            notes.append(f"a source the threat scan flags was dropped ({found[0].category}: {found[0].reason})")
        if not notes:
            continue
        if text != record.text:
            record.set_text(text, ["secret-redacted"])
        record.source, record.extra = source, extra
        changed[record.id] = notes
    return changed


def _redacted_bytes(data: bytes) -> bytes:
    """A copy of a memory file with the secrets in its strings redacted, for its backup; the bytes
    as they are when they are not JSON (a corrupt file is quarantined whole, never backed up)."""
    import orjson

    try:
        top = orjson.loads(data)
        if isinstance(top, dict) and isinstance(top.get("entries"), list):  # each entry with its own values
            top = {**top, "entries": [_redacted_value(item, _entry_values(item)) for item in top["entries"]]}
        return orjson.dumps(_redacted_value(top))
    except (orjson.JSONDecodeError, orjson.JSONEncodeError):  # also JSON nested deeper than orjson goes
        return data


def _entry_values(item: Any) -> list[str]:
    """The secret values of an entry object as another program wrote it (its text, source and
    keywords read together): what is redacted in every string of it."""
    from ..safety.redaction import redact_entry

    if not isinstance(item, dict):
        return []
    text, source, keywords = item.get("text"), item.get("source"), item.get("keywords")
    keywords = [k for k in keywords if isinstance(k, str)] if isinstance(keywords, list) else []
    return redact_entry(text if isinstance(text, str) else "", source if isinstance(source, str) else "",
                        keywords).values
