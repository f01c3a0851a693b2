"""Run the real `memtui` command in a subprocess: real exit codes, real stdout and stderr.

Every test passes its own store directory (`--dir` or $MEMTUI_DIR under tmp_path); the user's
data directory is never touched, because $MEMTUI_DIR is always set for the child.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import orjson
import pytest
from fs_guard import unwritable  # noqa: F401  (re-exported: the CLI tests import it from here)

REPO = Path(__file__).resolve().parents[2]
CONSOLE_SCRIPT = Path(sys.executable).with_name("memtui")


@dataclass
class Result:
    code: int
    out: str
    err: str
    raw: bytes

    def json(self):
        assert self.code == 0, self.err
        return orjson.loads(self.raw)

    @property
    def error_line(self) -> str:
        """The single `memtui: error: ...` line (asserted to be the only stderr line)."""
        lines = self.err.splitlines()
        errors = [line for line in lines if line.startswith("memtui: error: ")]
        assert len(errors) == 1, self.err
        assert "Traceback" not in self.err
        return errors[0]


def run_memtui(*args, store: Path | None = None, input: bytes | None = None, env: dict | None = None,
               console: bool = False, timeout: float = 30, cwd: Path | None = None) -> Result:
    """`python -m memtui [--dir store] args...` (or the console script) with a private $MEMTUI_DIR,
    run in `cwd` (default: the repository, which holds no project store)."""
    child_env = dict(os.environ)
    child_env.pop("NO_COLOR", None)
    child_env["MEMTUI_DIR"] = str(store) if store is not None else str(Path(os.environ.get("TMPDIR", "/tmp")) / "memtui-tests-never-used")
    child_env.update(env or {})
    command = [str(CONSOLE_SCRIPT)] if console else [sys.executable, "-m", "memtui"]
    if store is not None:
        command += ["--dir", str(store)]
    done = subprocess.run(command + list(args), input=input, capture_output=True, env=child_env,
                          cwd=REPO if cwd is None else cwd, timeout=timeout)
    return Result(done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace"),
                  done.stdout)


def write_store(directory: Path, entries: list[dict]) -> Path:
    """A memory.json written directly in the format of docs/format.md (ids filled in)."""
    directory.mkdir(parents=True, exist_ok=True)
    now = int(time.time())
    items = []
    for i, entry in enumerate(entries):
        item = {"id": f"{i + 1:012x}", "source": "test", "ts": now - 3600 * (len(entries) - i), **entry}
        items.append(item)
    path = directory / "memory.json"
    path.write_bytes(orjson.dumps({"entries": items}, option=orjson.OPT_INDENT_2))
    return path


SAMPLE = [
    {"kind": "preference", "text": "回复用中文，代码注释用英文"},
    {"kind": "correction", "text": "部署脚本默认先 dry-run，确认后再真正执行"},
    {"kind": "lesson", "text": "pytest 的 tmp_path 比手写临时目录可靠"},
    {"kind": "fact", "text": "前端用 Vite 构建，测试用 vitest"},
]


@pytest.fixture
def store_dir(tmp_path) -> Path:
    """A store with the four SAMPLE entries (ids 000000000001 .. 000000000004)."""
    directory = tmp_path / "store"
    write_store(directory, SAMPLE)
    return directory


@pytest.fixture
def memtui():
    return run_memtui
