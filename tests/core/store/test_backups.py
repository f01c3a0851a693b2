"""Backups (docs/storage.md): the file as it was before each write, kept under a retention rule,
listed with what each holds, and restorable — atomically, by id, audited, undoable."""

from __future__ import annotations

import hashlib
import json
import stat
from datetime import datetime, timedelta, timezone

import pytest

import memtui_core.store.fileio
from memtui_core.errors import BackupNotFound
from memtui_core.limits import Limits
from memtui_core.memory import MemoryStore
from memtui_core.store.storage import utc_stamp


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_each_write_first_backs_up_the_file_it_replaces(tmp_path):
    store = MemoryStore(tmp_path)
    store.remember("preference", "回复用中文，代码注释用英文")
    assert store.backups() == []  # there was no file to back up
    states = []
    for text in ("部署脚本默认先 dry-run，确认后再真正执行", "the staging database listens on port 5433"):
        states.append(store.path.read_bytes())
        store.remember("fact", text)
        newest = store.backups()[0]
        assert (tmp_path / "backups" / newest.name).read_bytes() == states[-1]
    entry = store.entries()[0]
    states.append(store.path.read_bytes())
    store.update(entry.id, text="回复用中文")
    states.append(store.path.read_bytes())
    store.delete(entry.id)
    held = [(tmp_path / "backups" / b.name).read_bytes() for b in reversed(store.backups())]
    assert held == states


def test_backups_are_listed_newest_first_with_what_they_hold(tmp_path):
    store = MemoryStore(tmp_path)
    for i in range(4):
        store.remember("fact", f"a fact worth keeping, number {i}")
    listed = store.backups()
    assert [b.entries for b in listed] == [3, 2, 1]
    assert [b.at for b in listed] == sorted((b.at for b in listed), reverse=True)
    for backup in listed:
        path = tmp_path / "backups" / backup.name
        assert backup.name.startswith("memory-") and backup.name.endswith(".json")
        assert backup.path == str(path) and backup.size == path.stat().st_size and backup.valid
        stamp = backup.name[len("memory-"):].split("-")[0]
        assert abs(backup.at - datetime.strptime(stamp, "%Y%m%dT%H%M%S.%fZ").replace(tzinfo=timezone.utc).timestamp()) < 1e-6
    assert [e.text for e in store.backup_entries(listed[0].name)] == [f"a fact worth keeping, number {i}" for i in range(3)]


def test_files_are_private_to_their_owner(tmp_path):
    store = MemoryStore(tmp_path / "store")
    store.remember("fact", "first")
    store.remember("fact", "second entry")
    directory = tmp_path / "store"
    assert mode(directory) == 0o700
    assert mode(directory / "backups") == 0o700
    assert mode(directory / "memory.json") == 0o600
    assert mode(directory / "audit.jsonl") == 0o600
    assert mode(directory / "memory.json.lock") == 0o600
    for backup in (directory / "backups").iterdir():
        assert mode(backup) == 0o600


def test_retention_keeps_the_newest_30_and_one_per_day_for_14_days(tmp_path, monkeypatch):
    """60 backups over 20 days, three a day; one more write at a fixed 'now' prunes them."""
    now = datetime(2026, 3, 20, 12, 0, tzinfo=timezone.utc)
    store = MemoryStore(tmp_path)
    store.remember("fact", "the file that the next write backs up")
    backups = tmp_path / "backups"
    backups.mkdir()
    crafted = []
    for days_ago in range(20):
        for hour in (3, 9, 11):
            at = now - timedelta(days=days_ago, hours=12 - hour)
            name = f"memory-{utc_stamp(at.timestamp())}.json"
            (backups / name).write_text('{"entries": []}')
            crafted.append((at, name))
    monkeypatch.setattr(memtui_core.store.fileio, "now", lambda: now.timestamp())
    store.remember("fact", "the write that prunes")

    newest_first = [name for _, name in sorted(crafted, reverse=True)]
    own = f"memory-{utc_stamp(now.timestamp())}-s1.json"  # numbered after the unnumbered ones
    ranked = [own] + newest_first
    expected = set(ranked[:30])
    for days_ago in range(14):  # the newest backup of each of the last 14 days, today included
        day = (now - timedelta(days=days_ago)).strftime("%Y%m%d")
        expected.add(next(n for n in ranked if n[7:15] == day))
    kept = {b.name for b in store.backups()}
    assert kept == expected
    # the newest 30 reach back 10 days (own + 29 crafted); days 10..13 add one each
    assert len(kept) == 34
    assert min(kept)[7:15] == (now - timedelta(days=13)).strftime("%Y%m%d")


def test_retention_with_many_writes_in_one_day_keeps_the_newest_backups_keep(tmp_path):
    store = MemoryStore(tmp_path, limits=Limits(backups_keep=5))
    for i in range(9):
        store.remember("fact", f"an entry written in a busy hour, number {i}")
    listed = store.backups()
    assert len(listed) == 5
    assert [b.entries for b in listed] == [8, 7, 6, 5, 4]
    assert len(MemoryStore(tmp_path).backups()) == 5
    assert Limits().backups_keep == 30


def test_restore_brings_back_a_backup_and_reports_what_changed(tmp_path):
    store = MemoryStore(tmp_path, actor="tui")
    kept = store.remember("preference", "回复用中文，代码注释用英文").entry
    edited = store.remember("lesson", "部署脚本默认先 dry-run，确认后再真正执行").entry
    staging = store.remember("fact", "the staging database listens on port 5433").entry
    target = store.backups()[0]  # the file before that last write: kept + edited
    store.update(edited.id, text="部署脚本先 dry-run")
    later = store.remember("fact", "a note written after that backup").entry
    store.delete(kept.id)
    before_restore = store.path.read_bytes()

    preview = store.preview_restore(target.name)
    assert store.path.read_bytes() == before_restore  # a preview writes nothing

    result = store.restore(target.name)
    assert result.name == target.name
    assert (result.added, result.removed, result.changed) == ([kept.id], [staging.id, later.id], [edited.id])
    assert preview.model_dump(exclude={"backup_of_current"}) == result.model_dump(exclude={"backup_of_current"})
    assert [e.text for e in store.entries()] == ["回复用中文，代码注释用英文", "部署脚本默认先 dry-run，确认后再真正执行"]

    # the file it replaced was backed up first, so the restore can itself be undone
    assert result.backup_of_current == store.backups()[0].name
    assert (tmp_path / "backups" / result.backup_of_current).read_bytes() == before_restore
    [event] = store.audit(op="restore")
    assert event.actor == "tui" and event.id is None and target.name in event.note
    assert (event.added, event.removed, event.changed) == (result.added, result.removed, result.changed)

    undo = store.restore(result.backup_of_current)
    assert store.path.read_bytes() == before_restore
    assert (undo.added, undo.removed, undo.changed) == (result.removed, result.added, result.changed)


def test_restore_of_an_unknown_or_invalid_backup_writes_nothing(tmp_path):
    store = MemoryStore(tmp_path)
    store.remember("fact", "the only entry")
    store.remember("fact", "the second entry")
    before = store.path.read_bytes()
    for name in ("memory-20990101T000000.000000Z.json", "../memory.json", "memory.json", "", "backups"):
        with pytest.raises(BackupNotFound) as err:
            store.restore(name)
        assert isinstance(err.value, KeyError) and "\n" not in str(err.value)
    bad = tmp_path / "backups" / "memory-20200101T000000.000000Z.json"
    bad.write_bytes(b'{"entries": 5}')
    with pytest.raises(BackupNotFound, match="not a valid memory file"):
        store.restore(bad.name)
    assert [b.valid for b in store.backups()] == [True, False]
    assert store.path.read_bytes() == before
    assert [e.op.value for e in store.audit()] == ["add", "add"]


def test_restore_of_a_legacy_backup(tmp_path):
    """A backup in the original 4-field format (no ids): its entries get their stable legacy ids,
    and those ids are written into the file by the restore."""
    store = MemoryStore(tmp_path)
    store.remember("fact", "an entry the legacy backup does not have")
    legacy = [
        {"kind": "preference", "text": "回复用中文", "source": "auto", "ts": 1761200000},
        {"kind": "lesson-learned", "text": "先 dry-run 再执行", "source": "auto", "ts": 1761200100},
    ]
    name = "memory-20251023T060000.000000Z.json"
    (tmp_path / "backups").mkdir(exist_ok=True)
    (tmp_path / "backups" / name).write_text(json.dumps({"entries": legacy}, ensure_ascii=False))

    ids = [hashlib.sha256(f"{e['ts']}\n{e['kind']}\n{e['text']}".encode()).hexdigest()[:12] for e in legacy]
    assert [e.id for e in store.backup_entries(name)] == ids
    result = store.restore(name)
    assert result.added == ids and len(result.removed) == 1 and result.changed == []
    written = json.loads(store.path.read_text())["entries"]
    assert [e["id"] for e in written] == ids
    assert [e["kind"] for e in written] == ["preference", "lesson"]
    assert [e.id for e in MemoryStore(tmp_path).entries()] == ids


def test_restore_into_a_store_without_a_file(tmp_path):
    store = MemoryStore(tmp_path)
    store.remember("fact", "first entry of the store")
    store.remember("fact", "second entry of the store")
    name = store.backups()[0].name
    store.path.unlink()
    result = store.restore(name)
    assert result.backup_of_current is None and len(result.added) == 1
    assert [e.text for e in store.entries()] == ["first entry of the store"]
