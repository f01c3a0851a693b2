"""Several processes writing one store at the same time lose nothing (docs/storage.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from memtui_core.memory import MemoryStore

WRITER = textwrap.dedent(
    """
    import os, sys, time
    from memtui_core.memory import MemoryStore

    directory, worker, count, go = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    store = MemoryStore(directory, actor=f"worker-{worker}")
    print("ready", flush=True)
    while not os.path.exists(go):  # all writers start together
        time.sleep(0.001)
    kinds = ["preference", "correction", "lesson", "fact"]
    for i in range(count):
        result = store.remember(kinds[i % 4], f"writer {worker} entry {i:04d} done", source=f"w{worker}")
        assert result.added, result
    """
)


def text_of(worker: int, i: int) -> str:
    return f"writer {worker} entry {i:04d} done"


def run_writers(directory, workers: int, count: int) -> None:
    env = {k: v for k, v in os.environ.items() if k != "MEMTUI_DIR"}
    go = directory.parent / f"{directory.name}.go"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(directory), str(w), str(count), str(go)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )
        for w in range(workers)
    ]
    for proc in procs:  # wait until every interpreter has started and imported the core
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read() if proc.poll() is not None else ""
    go.touch()
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err


def check_nothing_lost(directory, workers: int, count: int) -> None:
    store = MemoryStore(directory)
    entries = store.entries()
    expected = {text_of(w, i) for w in range(workers) for i in range(count)}
    assert len(entries) == workers * count
    assert {e.text for e in entries} == expected
    assert len({e.id for e in entries}) == len(entries)
    # each writer's entries stay in the order that writer appended them
    for w in range(workers):
        mine = [e.text for e in entries if e.source == f"w{w}"]
        assert mine == [text_of(w, i) for i in range(count)]
    # the file on disk is whole, valid JSON holding all of them
    on_disk = json.loads(store.path.read_bytes())
    assert len(on_disk["entries"]) == workers * count
    assert store.invalid() == []
    # one audited add per write, from every writer
    adds = store.audit(op="add")
    assert len(adds) == workers * count
    assert {event.actor for event in adds} == {f"worker-{w}" for w in range(workers)}


def test_texts_do_not_dedupe_against_each_other(store):
    # The check below is only meaningful if every text is distinct under the dedupe rule of docs/format.md.
    for i in range(30):
        assert store.remember("fact", text_of(0, i)).added
    assert store.remember("fact", text_of(1, 0)).added


def test_two_processes_writing_at_once_lose_nothing(tmp_path):
    directory = tmp_path / "store"
    run_writers(directory, workers=2, count=25)
    check_nothing_lost(directory, workers=2, count=25)


@pytest.mark.slow
def test_many_processes_writing_at_once_lose_nothing(tmp_path):
    # 480 entries: below the 500-entry cap, so nothing is evicted
    directory = tmp_path / "store"
    run_writers(directory, workers=6, count=80)
    check_nothing_lost(directory, workers=6, count=80)
