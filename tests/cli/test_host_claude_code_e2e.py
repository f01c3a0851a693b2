"""End to end with the real Claude Code: after `memtui setup claude-code`, `claude -p` sends the model
a request that carries the memories the prompt needs, and the MCP server's tools.

Claude Code runs against a stand-in for its model endpoint on 127.0.0.1 (tests/cli/llm_stub.py),
with its home and config folders in tmp_path and its non-essential traffic turned off, so nothing
leaves the machine and the user's own Claude Code settings are never read or touched.

Optional: skipped unless Claude Code (npm `@anthropic-ai/claude-code`, 2.x) is found: $MEMTUI_CLAUDE,
else `.ci/node/node_modules/.bin/claude` (where `.ci/run` installs it), else `claude` on PATH.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from .conftest import REPO, run_memtui, write_store
from .llm_stub import REPLY, LlmStub


def claude_binary() -> str | None:
    given = os.environ.get("MEMTUI_CLAUDE")
    if given:
        return given
    local = REPO / ".ci" / "node" / "node_modules" / ".bin" / "claude"
    return str(local) if local.exists() else shutil.which("claude")


CLAUDE = claude_binary()
pytestmark = pytest.mark.skipif(CLAUDE is None, reason="Claude Code is not installed: `npm install --prefix "
                                                       ".ci/node @anthropic-ai/claude-code@2`, or set MEMTUI_CLAUDE")

STAGING = "The staging server is called blue-harbor-7 and deploys need the --canary flag"
UNRELATED = "Release notes are written in the imperative mood"
PINNED = "Always answer in British English, with metric units"


def run_claude(project, tmp_path, stub: LlmStub, prompt: str) -> dict:
    home, config = tmp_path / "home", tmp_path / "claude-config"
    home.mkdir(exist_ok=True)
    config.mkdir(exist_ok=True)
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("ANTHROPIC_", "CLAUDE_", "MEMTUI_DIR"))}
    env.update({
        "HOME": str(home), "CLAUDE_CONFIG_DIR": str(config),
        "ANTHROPIC_BASE_URL": stub.url, "ANTHROPIC_API_KEY": "sk-ant-test-not-a-key",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1", "DISABLE_AUTOUPDATER": "1",
    })
    done = subprocess.run([CLAUDE, "-p", prompt, "--output-format", "json"], cwd=project, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, timeout=180)
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-2000:])
    result = json.loads(done.stdout.decode().strip().splitlines()[-1])
    assert result["result"] == REPLY, result
    return result


def turn_requests(stub: LlmStub) -> list[dict]:
    """The requests of the conversation itself (Claude Code may ask side questions, e.g. for a title)."""
    return [body for body in stub.bodies("/v1/messages") if body.get("tools")]


@pytest.fixture
def project(tmp_path):
    folder = tmp_path / "project"
    folder.mkdir()
    store = tmp_path / "store"
    # the preference is the pinned core (its kind puts it there), in context from the session's start
    write_store(store, [{"kind": "fact", "text": STAGING}, {"kind": "lesson", "text": UNRELATED},
                        {"kind": "preference", "text": PINNED}])
    done = run_memtui("setup", "claude-code", "--project", str(folder), store=store)
    assert done.code == 0, done.err
    assert sys.executable in (folder / ".claude" / "settings.json").read_text()  # this venv's memtui, by path
    return folder


def test_the_request_carries_the_memory_the_prompt_needs(project, tmp_path):
    with LlmStub() as stub:
        run_claude(project, tmp_path, stub, "What is the staging server called, and how do I deploy to it?")
    requests = turn_requests(stub)
    assert requests, stub.requests
    sent = json.dumps(requests[0]["messages"], ensure_ascii=False)
    assert "=== Long-term memory" in sent
    assert STAGING in sent
    assert UNRELATED not in sent  # only what the prompt needs
    assert sent.count(PINNED) == 1  # the core, once: SessionStart brought it, the prompt's block does not repeat it
    # the MCP server from .mcp.json is running: the model is offered memtui's tools
    names = {tool.get("name") for tool in requests[0]["tools"]}
    assert {"mcp__memtui__memory_save", "mcp__memtui__memory_search"} <= names


def test_the_session_starts_with_the_pinned_core_only(project, tmp_path):
    with LlmStub() as stub:
        run_claude(project, tmp_path, stub, "Write a haiku about autumn leaves")
    sent = json.dumps(turn_requests(stub)[0]["messages"], ensure_ascii=False)
    assert sent.count(PINNED) == 1  # from SessionStart; the prompt needed nothing more
    assert STAGING not in sent and UNRELATED not in sent
