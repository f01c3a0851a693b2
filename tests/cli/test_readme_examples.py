"""The examples of the README's "Use it from an agent" section, run as written.

The Python blocks run in one namespace, with a fake `call_model` and a fake `llm`; the shell hook
runs with `sh`; the MCP client configuration is started through the SDK's stdio client.
Set MEMTUI_README to check another file (a draft of the section, for example).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import anyio
import orjson
import pytest

from memtui_core.memory import MemoryStore

from .conftest import REPO

SECTION = "## Use it from an agent"
FENCE = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def _section() -> str:
    path = Path(os.environ.get("MEMTUI_README", REPO / "README.md"))
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    start = text.find(SECTION)
    if start == -1:
        pytest.skip(f"{path} has no {SECTION!r} section yet")
    end = text.find("\n## ", start + len(SECTION))
    return text[start : end if end != -1 else len(text)]


def _blocks(language: str) -> list[str]:
    return [code for lang, code in FENCE.findall(_section()) if lang == language]


def test_the_python_examples_run_as_written(tmp_path, monkeypatch):
    blocks = _blocks("python")
    assert len(blocks) >= 1
    monkeypatch.setenv("MEMTUI_DIR", str(tmp_path / "store"))
    prompts: list[str] = []

    def call_model(messages):
        prompts.append(messages[0]["content"])
        return "好的，以后部署都先 dry-run。" if "部署" in messages[-1]["content"] else "Sure, staging first from now on."

    def llm(system, user):
        assert "JSON" in system
        if "部署" in user:
            return '[{"kind": "correction", "text": "部署脚本默认先 dry-run，确认后再真正执行"}]'
        # an English distiller that thinks aloud, fences its answer and leaves a trailing comma
        return ('<think>maybe [1] item</think>```json\n[{"kind": "lessons", "text": "Always deploy to staging '
                'before production",},]\n```\nSaved [1] item.')

    namespace = {"__name__": "readme_example", "call_model": call_model, "llm": llm}
    for code in blocks:
        exec(compile(code, "README.md", "exec"), namespace)

    run_turn = namespace["run_turn"]
    system = "You are a helpful coding agent."
    run_turn(system, [], "不对，部署脚本应该先 dry-run，确认后再真正执行")
    if "tools" in namespace:  # the tools example saved a preference: the pinned core carries it in every turn
        assert "始终有效（置顶）" in prompts[0] and "与本条消息相关" not in prompts[0]
    else:
        assert "Long-term memory" not in prompts[0]  # nothing was remembered yet
    run_turn(system, [], "帮我部署一下")
    assert prompts[1].startswith(system + "\n\n=== Long-term memory")
    assert "- [纠正] 部署脚本默认先 dry-run，确认后再真正执行" in prompts[1]
    assert "以下是从过往会话中检索到的相关记忆" in prompts[1]

    # the same agent in English: an English block, and the English memory kept
    run_turn(system, [], "No, always deploy to staging before production")
    run_turn(system, [], "Please deploy the new build to production")
    assert "Relevant memories retrieved from past sessions" in prompts[3]
    assert "- [lesson] Always deploy to staging before production" in prompts[3]

    store = MemoryStore(tmp_path / "store")
    assert {(e.kind.value, e.source) for e in store.entries()} >= {("correction", "auto"), ("lesson", "auto")}
    if "tools" in namespace:
        assert [t["function"]["name"] for t in namespace["tools"]] == ["memory_save", "memory_search"]
        assert namespace["answer"].startswith("已记下（偏好）")
        assert namespace["answer_en"].startswith("Saved (preference)")


def test_the_shell_examples_run_as_written(tmp_path):
    hook, *others = _blocks("sh")
    script = tmp_path / "hook.sh"
    script.write_text(hook)
    store = tmp_path / "store"
    # a lesson, retrieved when a message matches it (a correction would be in every block: the pinned core)
    MemoryStore(store).remember("lesson", "部署脚本默认先 dry-run，确认后再真正执行")
    env = {**os.environ, "MEMTUI_DIR": str(store), "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    shown = subprocess.run(["sh", str(script), "帮我部署一下"], capture_output=True, env=env, timeout=30)
    assert shown.returncode == 0 and shown.stderr == b""
    assert shown.stdout.decode() == MemoryStore(store).retrieve_block("帮我部署一下") + "\n"
    quiet = subprocess.run(["sh", str(script), "今天天气怎么样"], capture_output=True, env=env, timeout=30)
    assert (quiet.returncode, quiet.stdout) == (0, b"")
    for code in others:
        done = subprocess.run(["sh", "-e", "-c", code], capture_output=True, env=env, timeout=60)
        assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr
        for line in done.stdout.decode().splitlines():  # each --json command prints one document
            orjson.loads(line)


def test_the_mcp_client_configuration_starts_the_server(tmp_path):
    configs = [orjson.loads(code) for code in _blocks("json") if "mcpServers" in code]
    assert len(configs) == 1
    server = configs[0]["mcpServers"]["memtui"]
    assert server["command"] == "memtui" and server["args"][:2] == ["mcp", "--dir"]

    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    args = [*server["args"][:2], str(tmp_path / "store"), *server["args"][3:]]
    params = StdioServerParameters(command=str(Path(sys.executable).with_name(server["command"])), args=args)

    async def tools() -> list[str]:
        with anyio.fail_after(30):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                return sorted(tool.name for tool in (await session.list_tools()).tools)

    assert anyio.run(tools) == ["memory_inject", "memory_save", "memory_search"]
