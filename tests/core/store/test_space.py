"""What a write may free on a full disk, and what it never frees (core/store/space.py).
The real full disk is in tests/cli/test_disk_full.py (a 2 MiB tmpfs, root only)."""

from __future__ import annotations

import errno

import pytest

from memtui_core.memory import MemoryStore
from memtui_core.store import space, storage as storage_module
from memtui_core.store.backup_files import BackupName


def _names(store):
    return [(name, key) for name, key in store.storage.backups.parsed()]


@pytest.fixture
def never_room(monkeypatch):
    monkeypatch.setattr(space, "available", lambda directory: (0, 1 << 30))


def test_a_full_disk_frees_plain_backups_and_logged_removals_oldest_first_but_never_the_newest_or_an_only_copy(
        tmp_path, never_room):
    store = MemoryStore(tmp_path)
    a = store.remember("fact", "alpha note about the deploy").entry
    b = store.remember("fact", "bravo note about the build").entry
    c = store.remember("fact", "charlie note about the tests").entry
    store.delete(b.id)  # a removal backup; the audit log holds bravo whole (the delete's before)
    first = _names(store)[-1][0]
    store.restore(first)  # a removal backup: charlie's only copy (a restore's removal has no before)
    store.remember("fact", "delta note after the restore")
    parsed = _names(store)
    # newest first: before delta (plain), the restore's (removal), the delete's (removal), two plain
    assert [key.removal for _name, key in parsed] == [False, True, True, False, False]
    only_copy = parsed[1][0]  # the restore's removal backup
    newest = parsed[0][0]

    freed = space.free_space(store.storage, need=1, current=set(store.storage.load().ids()))
    left = [name for name, _key in _names(store)]
    assert left == [newest, only_copy]
    freed_names = [name for name, _size in freed]
    plain_oldest_first = [name for name, key in reversed(parsed) if not key.removal and name != newest]
    assert freed_names[: len(plain_oldest_first)] == plain_oldest_first  # plain ones first, oldest first
    assert freed_names[-1] == "memory.json.index"  # the derived index last
    assert {e.id for e in store.entries()} >= {a.id}
    assert c.id in {e.id for e in store.backup_entries(only_copy)}  # charlie is still restorable


def test_a_write_that_hits_a_full_disk_frees_space_retries_once_and_says_what_it_freed(tmp_path, monkeypatch):
    store = MemoryStore(tmp_path)
    for n in range(4):
        store.remember("fact", f"note number {n} about something different {n * 7}")
    oldest = _names(store)[-1][0]
    real = storage_module.atomic_write
    calls = {"n": 0}

    def full_once(path, data, sync_dir=True):
        if path.name == "memory.json" and calls["n"] == 0:
            calls["n"] += 1
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(path, data, sync_dir)

    monkeypatch.setattr(storage_module, "atomic_write", full_once)
    room = iter([False, True])  # full, then room once the oldest backup is gone
    monkeypatch.setattr(space, "available", lambda directory: (1 << 30, 1 << 30) if next(room, True) else (0, 1 << 30))
    result = store.remember("fact", "the write that found the disk full")
    assert result.added and store.get(result.entry.id)
    assert [name for name, _size in store.storage.freed] == [oldest]
    from memtui_core.store.health import recent_warnings

    [warning] = [w for w in recent_warnings(store.storage) if w.code == "space-freed"]
    assert oldest in warning.text and "the disk was full" in warning.text


def test_a_write_that_still_finds_no_room_fails_with_one_line_and_writes_nothing(tmp_path, monkeypatch, never_room):
    from memtui_core.errors import StoreUnwritable

    store = MemoryStore(tmp_path)
    store.remember("fact", "the only note")
    before = store.path.read_bytes()

    def always_full(path, data, sync_dir=True):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(storage_module, "atomic_write", always_full)
    with pytest.raises(StoreUnwritable, match=r"the disk is full \(No space left on device\).*nothing was written"):
        store.remember("fact", "a note that cannot fit")
    assert store.path.read_bytes() == before


def test_the_audit_batch_is_retried_after_freeing_space_instead_of_being_logged_late(tmp_path, monkeypatch, never_room):
    store = MemoryStore(tmp_path)
    for n in range(3):
        store.remember("fact", f"note {n} of a small store, number {n * 11}")
    real = store.storage.audit.write
    calls = {"n": 0}

    def full_once(fd, prefix, batch):
        if calls["n"] == 0:
            calls["n"] += 1
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, prefix, batch)

    monkeypatch.setattr(store.storage.audit, "write", full_once)
    added = store.remember("fact", "logged after the retry").entry
    assert store.storage.audit_error is None
    assert [e.op.value for e in store.audit(id=added.id)] == ["add"]
    assert BackupName.parse(store.storage.freed[0][0]) is not None
