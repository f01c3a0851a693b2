"""Storage under pressure, with real processes: many writers at once, writers killed with SIGKILL
at random moments, a held lock, a directory that cannot be written, and conflicting edits.

Every test here is bounded in time. The long variants are marked `slow` (run them with `-m slow`).
Each stress test prints its figures (run with `-s` to see them).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import orjson
import pytest
from filelock import FileLock

from memtui_core.errors import ConflictError, EntryNotFound, LockTimeout, StoreUnwritable
from memtui_core.store.fileio import atomic_write
from memtui_core.limits import Limits
from memtui_core.store.records import parse_document
from memtui_core.memory import MemoryStore

ROOT = Path(__file__).resolve().parents[3]
BIG = Limits(max_entries=100_000, lock_timeout=60)


def child_env() -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path}


def audit_events(directory: Path) -> list[dict]:
    return MemoryStore(directory).storage.audit_lines()


def temp_files(directory: Path) -> list[str]:
    found = [p.name for p in directory.glob(".*.tmp")]
    found += [p.name for p in (directory / "backups").glob(".*.tmp")]
    return found


# ---------------------------------------------------------------------------------------------
# Many writers at once: nothing lost, nothing doubled.

WRITER = r"""
import sys, time
from pathlib import Path
from memtui_core.limits import Limits
from memtui_core.memory import MemoryStore

directory, sync, writer, count = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
store = MemoryStore(directory, limits=Limits(max_entries=100000, lock_timeout=60), actor=f"writer-{writer}")
(sync / f"ready-{writer}").touch()
while not (sync / "go").exists():
    time.sleep(0.001)
for i in range(count):
    store.remember("fact", f"writer {writer} note {i:04d} zq", source=f"w{writer}")
"""


def note(writer: int, i: int) -> str:
    return f"writer {writer} note {i:04d} zq"


def run_writers(tmp_path: Path, writers: int, count: int) -> float:
    directory, sync = tmp_path / "store", tmp_path / "sync"
    sync.mkdir()
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(directory), str(sync), str(w), str(count)],
                         env=child_env(), stderr=subprocess.PIPE)
        for w in range(writers)
    ]
    deadline = time.monotonic() + 30
    while len(list(sync.glob("ready-*"))) < writers:
        assert time.monotonic() < deadline, "writers did not start"
        assert all(p.poll() is None for p in procs), [p.stderr.read() for p in procs if p.poll() is not None]
        time.sleep(0.005)
    started = time.monotonic()
    (sync / "go").touch()
    for p in procs:
        _out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()
    elapsed = time.monotonic() - started

    texts = [r.text for r in parse_document((directory / "memory.json").read_bytes()).records]
    expected = {note(w, i) for w in range(writers) for i in range(count)}
    assert len(texts) == writers * count
    assert set(texts) == expected
    for w in range(writers):  # each writer's own notes keep their order
        own = [t for t in texts if t.startswith(f"writer {w} ")]
        assert own == [note(w, i) for i in range(count)]

    adds = [e for e in audit_events(directory) if e["op"] == "add"]
    assert len(adds) == writers * count
    ids = {r.id for r in parse_document((directory / "memory.json").read_bytes()).records}
    assert {e["id"] for e in adds} == ids
    assert sorted(e["after"]["text"] for e in adds) == sorted(expected)
    assert {e["actor"] for e in adds} == {f"writer-{w}" for w in range(writers)}
    assert temp_files(directory) == []
    print(f"\n[writers] {writers} processes x {count} writes = {writers * count} entries in {elapsed:.2f}s")
    return elapsed


def test_concurrent_writer_processes_lose_nothing(tmp_path):
    run_writers(tmp_path, writers=4, count=50)


@pytest.mark.slow
def test_concurrent_writer_processes_lose_nothing_long(tmp_path):
    run_writers(tmp_path, writers=8, count=100)


def test_writer_threads_of_one_process_lose_nothing(tmp_path):
    """The app writes from worker threads: one store object shared by threads, plus a second one."""
    shared = MemoryStore(tmp_path, limits=BIG, actor="tui")
    other = MemoryStore(tmp_path, limits=BIG, actor="tui")
    errors: list[BaseException] = []

    def work(n: int) -> None:
        store = shared if n % 2 else other
        try:
            for i in range(25):
                store.remember("lesson", note(n, i))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    texts = sorted(e.text for e in MemoryStore(tmp_path).entries())
    assert texts == sorted(note(n, i) for n in range(6) for i in range(25))
    assert len([e for e in shared.audit() if e.op == "add"]) == 150
    assert temp_files(tmp_path) == []


def test_atomic_replace_from_many_threads_never_mixes_two_writes(tmp_path):
    """Even without the lock, two threads replacing one file never share a temporary file: the
    file always holds one whole write."""
    storage = MemoryStore(tmp_path).storage
    storage.ensure_dir()
    target = tmp_path / "target.json"
    payloads = [orjson.dumps({"entries": [], "writer": n, "pad": "x" * (20_000 + n)}) for n in range(8)]
    seen: set[int] = set()
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for _ in range(40):
                atomic_write(target, payloads[n])
                seen.add(orjson.loads(target.read_bytes())["writer"])
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    assert target.read_bytes() in payloads
    assert seen <= set(range(8))
    assert temp_files(tmp_path) == []


# ---------------------------------------------------------------------------------------------
# A writer killed at any instant leaves the old state or the new one, never a partial file.

def kill_text(op: int) -> str:
    return f"kill test note {op:05d} alpha"


def state_after(ops: int) -> list[str]:
    """The texts a single writer has committed after `ops` operations: two adds, then an edit
    of the note just added, over and over."""
    texts: list[str] = []
    for op in range(ops):
        if op % 3 == 2:
            texts[-1] = kill_text(op - 1) + " edited"
        else:
            texts.append(kill_text(op))
    return texts


def kill_child(directory: Path, first_op: int, report: int) -> None:
    """Runs in a forked child until it is killed: reports `b<op>` before and `d<op>` after each."""
    store = MemoryStore(directory, limits=BIG)
    op = first_op
    while True:
        os.write(report, b"b%d\n" % op)
        if op % 3 == 2:
            last = next(e for e in store.entries() if e.text == kill_text(op - 1))
            store.update(last.id, text=kill_text(op - 1) + " edited")
        else:
            store.remember("fact", kill_text(op))
        os.write(report, b"d%d\n" % op)
        op += 1


def drain(fd: int) -> list[bytes]:
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).split()


def run_kills(tmp_path: Path, kills: int, budget: float) -> dict[str, int]:
    directory = tmp_path / "store"
    MemoryStore(directory, limits=BIG).remember("preference", "kill test baseline preference kept")
    base = ["kill test baseline preference kept"]
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)
    rng = random.Random(20240611)
    committed = 0  # operations known to be in the file
    figures = {"kills": 0, "mid_operation": 0, "committed_unreported": 0, "ops": 0}
    started = time.monotonic()
    try:
        while figures["kills"] < kills:
            assert time.monotonic() - started < budget, f"only {figures['kills']} kills in {budget}s"
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the child never returns
                try:
                    os.close(read_end)
                    kill_child(directory, committed, write_end)
                finally:
                    os._exit(1)
            time.sleep(rng.uniform(0.0, 0.03))
            os.kill(pid, signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
            assert os.WIFSIGNALED(status), "the writer died on its own"
            figures["kills"] += 1

            messages = drain(read_end)
            done = committed + sum(1 for m in messages if m.startswith(b"d"))
            began = bool(messages) and messages[-1].startswith(b"b")

            data = (directory / "memory.json").read_bytes()
            texts = [r.text for r in parse_document(data).records]  # always parses
            if texts == base + state_after(done):
                committed = done
            else:
                assert began and texts == base + state_after(done + 1), (done, texts[-3:])
                committed = done + 1
                figures["committed_unreported"] += 1
            figures["mid_operation"] += began
            with FileLock(str(directory / "memory.json.lock"), timeout=0):
                pass  # the dead writer's lock is gone
    finally:
        os.close(read_end)
        os.close(write_end)
    elapsed = time.monotonic() - started
    figures["ops"] = committed

    # the store is fully usable afterwards, and the next write sweeps away the dead writers' temp files
    store = MemoryStore(directory, limits=BIG)
    store.remember("fact", "written after the last kill")
    assert [e.text for e in store.entries()] == base + state_after(committed) + ["written after the last kill"]
    assert temp_files(directory) == []
    states, texts = {(), }, []
    for op in range(committed):
        if op % 3 == 2:
            texts[-1] = kill_text(op - 1) + " edited"
        else:
            texts.append(kill_text(op))
        states.add(tuple(texts))
    for backup in store.backups():  # every backup is a state some writer committed
        held = [e.text for e in store.backup_entries(backup.name)]
        assert held[: len(base)] == base and tuple(held[len(base):]) in states
    # every committed change has exactly one audit event: one killed between the replace and the
    # append is logged late by the next writer, from the newest backup
    events = audit_events(directory)
    adds = [e["after"]["text"] for e in events if e["op"] == "add"]
    edits = [e["after"]["text"] for e in events if e["op"] == "edit"]
    assert adds == [base[0]] + [kill_text(op) for op in range(committed) if op % 3 != 2] + ["written after the last kill"]
    assert edits == [kill_text(op - 1) + " edited" for op in range(committed) if op % 3 == 2]
    figures["logged_late"] = sum(1 for e in events if (e.get("note") or "").startswith("logged late"))

    # and the log is good enough to rebuild the file: corrupt it, and recovery brings back every entry
    final = (directory / "memory.json").read_bytes()
    (directory / "memory.json").write_bytes(final[: len(final) // 3])
    assert MemoryStore(directory).entries() == store.entries()
    assert (directory / "memory.json").read_bytes() == final
    print(
        f"\n[kills] {figures['kills']} SIGKILLs in {elapsed:.1f}s: file parsed and held a committed state every time; "
        f"{figures['mid_operation']} landed inside an operation ({figures['committed_unreported']} after its replace); "
        f"{committed} operations committed; {figures['logged_late']} audit events logged late by the next writer"
    )
    return figures


def test_writer_killed_at_random_moments_never_leaves_a_partial_file(tmp_path):
    figures = run_kills(tmp_path, kills=100, budget=25)
    assert figures["mid_operation"] > 20  # the kills really did land inside writes


@pytest.mark.slow
def test_writer_killed_at_random_moments_long(tmp_path):
    run_kills(tmp_path, kills=500, budget=300)


# ---------------------------------------------------------------------------------------------
# The lock: a timeout is a clear error and writes nothing; reads never wait for it.

HOLDER = r"""
import sys, time
from filelock import FileLock
with FileLock(sys.argv[1]):
    print("held", flush=True)
    sys.stdin.read()
"""


@pytest.fixture
def populated(tmp_path):
    store = MemoryStore(tmp_path, limits=Limits(lock_timeout=0.2))
    store.remember("preference", "回复用中文，代码注释用英文")
    store.remember("lesson", "部署脚本默认先 dry-run，确认后再真正执行")
    return store


def snapshot(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*"))
            if p.is_file() and not p.name.endswith(".lock")}


def test_lock_held_by_another_process_times_out_and_writes_nothing(populated, tmp_path):
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(populated.storage.lock_path)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=child_env())
    try:
        assert holder.stdout.readline().strip() == b"held"
        before = snapshot(tmp_path)
        started = time.monotonic()
        with pytest.raises(LockTimeout) as err:
            populated.remember("fact", "this must not be written")
        assert 0.15 < time.monotonic() - started < 3
        message = str(err.value)
        assert "locked by another writer" in message and "0.2s" in message and "nothing was written" in message
        assert "\n" not in message
        first = populated.entries()[0]
        for attempt in (lambda: populated.update(first.id, text="changed"), lambda: populated.delete(first.id),
                        lambda: populated.restore(populated.backups()[0].name)):
            with pytest.raises(LockTimeout):
                attempt()
        assert snapshot(tmp_path) == before

        # reads go on while the lock is held, without waiting for it (this reader would wait 10 s)
        reader = MemoryStore(tmp_path)
        started = time.monotonic()
        assert len(reader.entries()) == 2
        assert "dry-run" in reader.retrieve_block("部署脚本")
        assert reader.search("部署")
        assert reader.health().locked is True
        assert time.monotonic() - started < 2.0
    finally:
        holder.communicate(b"", timeout=10)
    assert populated.health().locked is False
    populated.remember("fact", "written once the lock is free")
    assert len(populated.entries()) == 3


def test_lock_held_in_this_process_times_out_too(populated):
    with FileLock(str(populated.storage.lock_path)):
        with pytest.raises(LockTimeout):
            populated.remember("fact", "this must not be written either")
    assert [e.op for e in populated.audit()] == ["add", "add"]


# ---------------------------------------------------------------------------------------------
# A store that cannot be written: writes fail with StoreUnwritable, reads keep working.
# The tests run as root, which chmod does not stop; so the directory is made unwritable by
# putting it under a regular file, or by making os.access deny writing to it.

def test_store_under_a_regular_file_cannot_be_written_but_reads_work(tmp_path):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the store's parent should be")
    store = MemoryStore(blocker / "store")
    with pytest.raises(StoreUnwritable) as err:
        store.remember("fact", "nowhere to write this")
    assert "\n" not in str(err.value)
    assert store.entries() == []
    assert store.retrieve_block("anything") == ""
    assert store.search("anything") == []
    health = store.health()
    assert health.writable is False and health.exists is False
    assert any("not writable" in w.text for w in health.warnings)


def test_read_only_store_directory(populated, tmp_path, monkeypatch):
    real_access = os.access

    def access(path, mode, *args, **kwargs):
        if Path(path) == tmp_path and mode & os.W_OK:
            return False
        return real_access(path, mode, *args, **kwargs)

    monkeypatch.setattr(os, "access", access)
    before = snapshot(tmp_path)
    entry = populated.entries()[0]
    for attempt in (lambda: populated.remember("fact", "cannot be saved here"),
                    lambda: populated.update(entry.id, text="cannot be saved either"),
                    lambda: populated.delete(entry.id)):
        with pytest.raises(StoreUnwritable, match="not writable"):
            attempt()
    assert snapshot(tmp_path) == before
    assert [e.text for e in populated.entries()] == ["回复用中文，代码注释用英文", "部署脚本默认先 dry-run，确认后再真正执行"]
    assert "dry-run" in populated.retrieve_block("部署")
    health = populated.health()
    assert health.writable is False
    assert any("not writable" in w.text for w in health.warnings)


def test_retrieve_block_never_fails(tmp_path):
    assert MemoryStore(tmp_path / "missing").retrieve_block("部署") == ""
    (tmp_path / "dir-store").mkdir()
    (tmp_path / "dir-store" / "memory.json").mkdir()  # unreadable as a file
    unreadable = MemoryStore(tmp_path / "dir-store")
    assert unreadable.retrieve_block("部署") == ""
    assert unreadable.entries() == []
    [warning] = [w for w in unreadable.health().warnings if w.code in ("unreadable", "special-file")]
    assert "memory.json is a folder, not a regular file" in warning.text and "reads as empty" in warning.text


# ---------------------------------------------------------------------------------------------
# Conflict-safe edits: every change re-reads the file under the lock and acts by id.

def test_edits_from_two_processes_act_on_the_newest_file(tmp_path):
    mine, theirs = MemoryStore(tmp_path, actor="tui"), MemoryStore(tmp_path, actor="cli")
    a = mine.remember("fact", "the staging database is on port 5433").entry
    b = mine.remember("fact", "the build cache lives in /var/cache/build").entry
    seen = mine.get(a.id)

    theirs.update(a.id, text="the staging database is on port 6543")
    theirs.remember("lesson", "run the migrations before the seed script")
    with pytest.raises(ConflictError) as err:
        mine.update(a.id, text="my stale edit", expected=seen)
    assert err.value.current.text == "the staging database is on port 6543"
    with pytest.raises(ConflictError):
        mine.delete(a.id, expected=seen)

    mine.update(b.id, text="the build cache lives in /srv/cache")  # acts by id, keeps their changes
    texts = [e.text for e in MemoryStore(tmp_path).entries()]
    assert texts == ["the staging database is on port 6543", "the build cache lives in /srv/cache",
                     "run the migrations before the seed script"]

    theirs.delete(b.id)
    with pytest.raises(ConflictError) as err:
        mine.update(b.id, text="edit of a deleted entry", expected=b)
    assert err.value.current is None
    with pytest.raises(EntryNotFound):
        mine.update(b.id, text="edit of a deleted entry")
    ops = [(e.op.value, e.actor) for e in mine.audit()]
    assert ops == [("add", "tui"), ("add", "tui"), ("edit", "cli"), ("add", "cli"), ("edit", "tui"), ("delete", "cli")]


def test_failed_write_leaves_no_temp_file(tmp_path, monkeypatch):
    store = MemoryStore(tmp_path)
    store.remember("fact", "the first note stays as it is")
    before = (tmp_path / "memory.json").read_bytes()

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(StoreUnwritable, match="No space left"):
        store.remember("fact", "a note that cannot be saved")
    monkeypatch.undo()
    assert (tmp_path / "memory.json").read_bytes() == before
    assert temp_files(tmp_path) == []
    assert [e.op.value for e in store.audit()] == ["add"]
    assert orjson.loads(before)["entries"][0]["text"] == "the first note stays as it is"
