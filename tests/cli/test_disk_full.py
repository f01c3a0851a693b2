"""The store's own backups must not fill a small disk for good (issue 28, item 4).

On a 2 MiB disk the backups filled it after a few writes; retention never freed space, every
write then failed with "No space left on device", and doctor reported no problem. These tests
mount a real 2 MiB tmpfs (root only; skipped with the reason otherwise) and run the CLI on it."""

from __future__ import annotations

import os
import random
import string
import subprocess

import pytest

from memtui_core.kinds import Kind
from memtui_core.memory import MemoryStore
from memtui_core.store.records import Record
from memtui_core.store.storage import Change

from .conftest import run_memtui


@pytest.fixture
def small_disk(tmp_path):
    mount = tmp_path / "disk"
    mount.mkdir()
    try:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m,mode=0700", "tmpfs", str(mount)],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        pytest.skip(f"cannot mount a 2 MiB tmpfs to fill: {exc}")
    if done.returncode != 0:
        pytest.skip(f"cannot mount a 2 MiB tmpfs to fill (needs root): {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True, timeout=30)


def _big_store(directory, entries: int = 300):
    """About 130 KB of memory.json, written once through the API (one write, no backup yet)."""
    rng = random.Random(28)

    def fill(doc):
        for i in range(entries):
            words = " ".join("".join(rng.choices(string.ascii_lowercase, k=7)) for _ in range(40))
            doc.items.append(Record(f"{i:012x}", Kind.FACT, words, "bulk", 1_700_000_000))
        return Change([{"op": "add", "id": f"{i:012x}", "before": None, "after": None} for i in range(1)])

    MemoryStore(directory, limits=None).storage.transact(fill)
    return directory


def _fill(path) -> None:
    """Someone else's data fills the disk to the last block."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError:
        pass
    finally:
        os.close(fd)


def test_writes_keep_succeeding_on_a_small_disk_by_freeing_the_oldest_backups(small_disk):
    store = _big_store(small_disk / "store")
    told = []
    for n in range(30):
        result = run_memtui("add", "fact", f"note {n} written while the disk fills up", store=store)
        assert result.code == 0, (n, result.err)
        told += [line for line in result.err.splitlines() if "the disk was full: freed" in line]
    assert told, "no write had to free space: the disk was not filled"
    assert "memory-" in told[0] and "-s1.json" in told[0]  # the oldest backup goes first
    texts = {e["text"] for e in run_memtui("list", "--json", store=store).json()}
    assert {f"note {n} written while the disk fills up" for n in range(30)} <= texts
    backups = run_memtui("backups", "--json", store=store).json()
    assert backups and backups[0]["valid"]  # the last good backup is kept
    assert run_memtui("audit", "--json", store=store).code == 0


def test_doctor_reports_a_disk_too_full_for_the_next_write_and_a_write_fails_with_one_line(small_disk):
    store = _big_store(small_disk / "store")
    healthy = run_memtui("doctor", "--json", store=store).json()
    assert not [w for w in healthy["warnings"] if w["code"] == "disk-full"]

    _fill(small_disk / "filler")
    before = (store / "memory.json").read_bytes()
    doctor = run_memtui("doctor", "--json", store=store).json()
    [warning] = [w for w in doctor["warnings"] if w["code"] == "disk-full"]
    assert "is full" in warning["text"] and "'No space left on device'" in warning["text"]
    assert [p for p in doctor["problems"] if p["code"] == "disk-full"]

    failed = run_memtui("add", "fact", "a write that cannot fit", store=store)
    assert failed.code == 1 and "the disk is full (No space left on device)" in failed.error_line
    assert (store / "memory.json").read_bytes() == before  # nothing was written
    os.unlink(small_disk / "filler")
    assert run_memtui("add", "fact", "a write once there is room again", store=store).code == 0
    assert not [w for w in run_memtui("doctor", "--json", store=store).json()["warnings"] if w["code"] == "disk-full"]
