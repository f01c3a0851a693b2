"""The app in a real terminal (tmux), where timing matters: keys typed in one burst arrive together,
before the screen they open has drawn (issue 29: the keys after `n` or `/` were lost, or ran as
shortcuts: `q` quit, `d` deleted)."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid

import pytest

from memtui_core.memory import MemoryStore

from .helpers import file_entries

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")


class Terminal:
    """memtui running in a tmux session of its own server (its own socket: no other session is touched)."""

    def __init__(self, store_dir, tmp_path, width: int = 120, height: int = 36) -> None:
        self.socket = f"memtui-test-{uuid.uuid4().hex[:10]}"
        env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "MEMTUI_DIR": str(store_dir), "TERM": "xterm-256color"}
        command = " ".join(f"{key}={shlex.quote(value)}" for key, value in env.items())
        command += f" {shlex.quote(sys.executable)} -m memtui"
        self._tmux("new-session", "-d", "-s", "app", "-x", str(width), "-y", str(height), command)

    def _tmux(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=20)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "app")

    def type(self, keys: str) -> None:
        """`keys` in one write to the terminal: one burst, as a fast typist or a key-repeat sends them."""
        self._tmux("send-keys", "-t", "app", "-l", keys)

    def press(self, key: str) -> None:
        self._tmux("send-keys", "-t", "app", key)

    def wait_for(self, text: str, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            shown = self.screen()
            if text in shown:
                return shown
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} never showed:\n{shown}")
            time.sleep(0.1)

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=20)


@pytest.fixture
def terminal(seeded, tmp_path):
    opened: list[Terminal] = []

    def open_one(**size) -> Terminal:
        opened.append(Terminal(seeded.dir, tmp_path, **size))
        return opened[-1]

    yield open_one
    for one in opened:
        one.close()


def test_text_typed_right_after_n_goes_into_the_new_memory(seeded, terminal):
    before = file_entries(seeded.dir)
    term = terminal()
    term.wait_for("All 6")
    term.type("nquick draft: deploy with care")  # q quits, d deletes, w explains, … if they ran as keys
    shown = term.wait_for("quick draft: deploy with care")
    assert "Add a memory" in shown
    term.press("C-s")
    term.wait_for("All 7")
    after = file_entries(seeded.dir)
    assert [e["text"] for e in after if e not in before] == ["quick draft: deploy with care"]
    assert all(entry in after for entry in before)  # nothing deleted, nothing changed


def test_text_typed_right_after_slash_filters(seeded, terminal):
    before = file_entries(seeded.dir)
    term = terminal(width=80, height=24)
    term.wait_for("All 6")
    term.type("/dry-run")  # d deletes, y confirms, u, n adds: if they ran as keys
    shown = term.wait_for("All 1/6")
    assert "dry-run" in shown and "部署脚本默认先" in shown
    assert file_entries(seeded.dir) == before
    assert MemoryStore(seeded.dir).audit()[-1].op.value == "add"  # no change was made
