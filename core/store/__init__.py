"""The store and its files: the one write path (lock, read, change, back up, replace atomically,
audit), the file format, the folder's boundaries, backups, the audit log, recovery, the derived
index, the injection log and health.

May import `text/`, `safety/` (every write is scanned), `ranking/` (the derived index holds what
ranking works out) and the shared modules; never `memory` or `agents/`. Internal: the store is
reached through memtui_core.MemoryStore.
"""
