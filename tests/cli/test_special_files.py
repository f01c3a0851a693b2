"""A store file that is a FIFO (or any file that is not a regular file) never hangs memtui.

Opening a FIFO for reading waits for a writer, forever; `add` used to wait so while holding the
lock, so every other writer timed out too. Every command here runs with a timeout: without the
fix the test fails by `subprocess.TimeoutExpired`, it does not hang the suite."""

from __future__ import annotations

import os

import pytest

from .conftest import run_memtui

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this platform")

WAIT = 25  # seconds: a command that takes longer is stuck on the FIFO (each takes about one)

# every file of a store that memtui opens, and whether a write needs it
STORE_FILES = {
    "memory.json": True,
    "memory.json.lock": True,
    "audit.jsonl": True,
    "audit.jsonl.1": True,
    "approval.key": True,
    "memory.json.index": False,
    "injections.jsonl": False,
    "probes.json": False,
}


def _store_with_a_fifo(tmp_path, name):
    store = tmp_path / "store"
    assert run_memtui("add", "fact", "the deploy script runs a dry run first", store=store).code == 0
    assert run_memtui("inject", "deploy dry run", store=store).code == 0  # the injection log exists too
    path = store / name
    if path.exists():
        path.unlink()
    os.mkfifo(path, 0o600)
    return store, path


@pytest.mark.parametrize("name", list(STORE_FILES))
def test_a_fifo_in_place_of_a_store_file_hangs_no_command(tmp_path, name):
    store, path = _store_with_a_fifo(tmp_path, name)
    for args in (["list"], ["doctor", "--json"], ["inject", "deploy dry run"], ["search", "deploy", "--json"],
                 ["backups"], ["probe", "list"]):
        result = run_memtui(*args, store=store, timeout=WAIT)
        assert "Traceback" not in result.err, (args, result.err)
        if args[0] == "probe" and name == "probes.json":
            assert result.code == 1 and "FIFO" in result.error_line
        else:
            assert result.code == 0, (args, result.err)
            assert f"{path} is a FIFO (named pipe), not a regular file" in result.err or args[0] == "doctor"
    doctor = run_memtui("doctor", "--json", store=store, timeout=WAIT).json()
    assert [p for p in doctor["problems"] if p["code"] == "special-file" and str(path) in p["message"]]

    added = run_memtui("add", "fact", "a second note about the staging host", store=store, timeout=WAIT)
    if STORE_FILES[name]:  # refused before the lock is taken, with one line naming the file
        assert added.code == 1
        assert f"refusing to use {path}: it is a FIFO (named pipe)" in added.error_line
    else:  # the feature that uses the file is off; the write goes on
        assert added.code == 0, added.err
    assert os.path.exists(path) and not os.path.isfile(path)  # never replaced or removed by memtui


def test_the_lock_being_a_fifo_does_not_stop_readers_or_lock_out_writers_once_removed(tmp_path):
    store, path = _store_with_a_fifo(tmp_path, "memory.json.lock")
    assert run_memtui("add", "fact", "refused while the lock is a FIFO", store=store, timeout=WAIT).code == 1
    path.unlink()
    assert run_memtui("add", "fact", "accepted once it is gone", store=store, timeout=WAIT).code == 0
    assert "accepted once it is gone" in run_memtui("list", store=store, timeout=WAIT).out


def test_a_fifo_named_like_a_backup_is_skipped_by_listing_and_by_recovery(tmp_path):
    store = tmp_path / "store"
    for text in ("first note about the deploy", "second note about the build", "third note about tests"):
        assert run_memtui("add", "fact", text, store=store).code == 0
    os.mkfifo(store / "backups" / "memory-20991231T000000.000000Z-s999999.json", 0o600)
    listed = run_memtui("backups", "--json", store=store, timeout=WAIT)
    assert listed.code == 0 and all("s999999" not in b["name"] for b in listed.json())
    (store / "memory.json").write_bytes(b'{"entries": [')  # corrupt: recovery reads the backups
    shown = run_memtui("list", "--json", store=store, timeout=WAIT)
    assert shown.code == 0, shown.err
    assert {e["text"] for e in shown.json()} >= {"first note about the deploy", "second note about the build"}
