"""The app's code stays type-checked: its screens, dialogs and widgets reach the app, the store and
each other through typed names (`self.app` is a MemtuiApp, widgets come from typed `getters`), so a
renamed attribute fails here instead of on a key press.

Two checks: every `type: ignore` left in memtui/ is listed below with its reason (none may sit in the
screens, dialogs or widgets), and mypy finds no error in the app's parts.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
IGNORE = re.compile(r"#\s*type:\s*ignore")

# Each `type: ignore` allowed in memtui/, by file and a piece of its line, with the reason it stays.
ALLOWED: dict[tuple[str, str], str] = {
    ("memtui/cli/common.py", "out.reconfigure("):
        "sys.stdout is typed TextIO, which has no reconfigure(); the real stream has, and the "
        "AttributeError of one that does not is caught",
    ("memtui/cli/completion.py", "action.complete = _DIRECTORY"):
        "shtab reads a `complete` attribute that its callers set on argparse actions",
    ("memtui/cli/completion.py", "action.complete = _FILE"):
        "shtab reads a `complete` attribute that its callers set on argparse actions",
    ("memtui/json_schemas.py", "def field_is_required("):
        "an override of pydantic's GenerateJsonSchema hook, whose parameter types are private",
}
# The app's parts that reach the app object: no ignore at all.
APP_PARTS = ("memtui/screens/", "memtui/modals/", "memtui/widgets/")
# What mypy checks: the parts above, the app itself, the messages and writes they exchange, the demo and doctor.
CHECKED = ["memtui/screens", "memtui/modals", "memtui/widgets", "memtui/node.py", "memtui/messages.py",
           "memtui/writes.py", "memtui/app.py", "memtui/debounce.py", "memtui/demo.py", "memtui/doctor.py"]


def _ignores() -> list[tuple[str, int, str]]:
    found = []
    for path in sorted((REPO / "memtui").rglob("*.py")):
        relative = path.relative_to(REPO).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if IGNORE.search(line):
                found.append((relative, number, line.strip()))
    return found


def test_every_type_ignore_has_a_listed_reason() -> None:
    unexplained = []
    used = set()
    for relative, number, line in _ignores():
        key = next(((file, piece) for file, piece in ALLOWED if file == relative and piece in line), None)
        if key is None or relative.startswith(APP_PARTS):
            unexplained.append(f"{relative}:{number}: {line}")
        else:
            used.add(key)
    assert not unexplained, (
        "type the code instead of silencing the checker (self.app is a MemtuiApp in every screen, "
        "dialog and widget that inherits AppNode), or list the ignore in ALLOWED with its reason:\n"
        + "\n".join(unexplained)
    )
    stale = sorted(set(ALLOWED) - used)
    assert not stale, f"these ignores are gone: drop them from ALLOWED: {stale}"


def test_the_allowance_stays_small() -> None:
    assert len(ALLOWED) <= 8, "fix an ignore before adding another"


def test_mypy_finds_no_error_in_the_app(tmp_path: Path) -> None:
    pytest.importorskip("mypy", reason="mypy comes with the test extras: pip install -e '.[test]'")
    # The engine is installed as `memtui_core` by an import hook mypy cannot follow: show it the folder.
    (tmp_path / "memtui_core").symlink_to(REPO / "core", target_is_directory=True)
    env = {**os.environ, "MYPYPATH": str(tmp_path)}
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache"), "--follow-imports=silent",
         "--no-error-summary", "--hide-error-context", *CHECKED],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=240,
    )
    seconds = time.perf_counter() - started
    assert result.returncode == 0, f"mypy ({seconds:.0f} s):\n{result.stdout}{result.stderr}"
