"""A store's history as MemoryStore reads it: its backups (list, read, compare, restore), its audit
log, and its health. Apart from memory.py so that MemoryStore stays one unit of reading and
retrieval; `MemoryStore` is a `History`.
"""

from __future__ import annotations

TYPE_CHECKING = False

from .entries import _entry

if TYPE_CHECKING:
    from ..limits import Limits
    from ..model import AuditEvent, Backup, CoreReport, Entry, Health, RestoreResult
    from .injections import InjectionLog
    from .storage import Storage

__all__ = ["History"]


class History:
    """Backups, the audit log and health, read through the store's storage (no state of its own)."""

    if TYPE_CHECKING:
        limits: Limits
        actor: str
        _storage: Storage

        @property
        def injection_log(self) -> InjectionLog: ...

        def core(self, lang: str | None = None) -> CoreReport: ...

    def backups(self) -> list[Backup]:
        from .backups import list_backups

        return list_backups(self._storage)

    def backup_entries(self, name: str) -> list[Entry]:
        from .backups import read_backup

        return [_entry(r) for r in read_backup(self._storage, name).records]

    def preview_restore(self, name: str) -> RestoreResult:
        from .backups import diff_documents, read_backup

        return diff_documents(name, self._storage.load(), read_backup(self._storage, name))

    def restore(self, name: str) -> RestoreResult:
        from .backups import restore

        return restore(self._storage, name, self.actor)

    def audit(self, id: str | None = None, op: str | None = None) -> list[AuditEvent]:
        """Audit events, oldest first. With `id`, that entry's history -- including restores
        that brought it back, removed it or changed it."""
        from ..model import AuditEvent

        events = []
        for raw in self._storage.audit_lines():
            event = AuditEvent.parse(raw)
            if event is None or (op is not None and event.op != op) or (id is not None and id not in event.touched_ids()):
                continue
            events.append(event)
        return events

    def health(self) -> Health:
        from .health import health

        core = None
        try:
            core = self.core()
        except Exception:  # health reports what it can: an unreadable store has no core to show
            pass
        return health(self._storage, self.limits, self.injection_log, core)
