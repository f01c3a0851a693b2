"""The Hermes Agent provider inside the real hermes-agent: installed by `memtui setup hermes`, found
by hermes-agent's own loader (`plugins.memory.load_memory_provider("memtui")`), driven by its own
MemoryManager, and in a one-shot `hermes -z` turn against a stand-in OpenAI-compatible endpoint,
where the memories must reach the model's request.

hermes-agent pins exact versions of its dependencies (rich 14 among them, where memtui's app
needs 15), so it lives in a virtualenv of its own, with memtui installed there without the app's
dependencies. Optional: skipped unless that Python is found: $MEMTUI_HERMES_PYTHON, else
`.ci/hermes/bin/python` (where `.ci/run` makes it).
"""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

import pytest

from .conftest import REPO, run_memtui, write_store
from .llm_stub import REPLY, LlmStub


def hermes_python() -> str | None:
    given = os.environ.get("MEMTUI_HERMES_PYTHON")
    if given:
        return given
    local = REPO / ".ci" / "hermes" / "bin" / "python"
    return str(local) if local.exists() else None


PYTHON = hermes_python()
pytestmark = pytest.mark.skipif(PYTHON is None, reason="no Python with hermes-agent and memtui: set "
                                                       "MEMTUI_HERMES_PYTHON, or make .ci/hermes (see .ci/run)")

COLOUR = "The charts and slides use the company colours, teal and slate"
UNRELATED = "Release notes are written in the imperative mood"
PINNED = "Always answer in British English, with metric units"


@pytest.fixture
def home(tmp_path):
    """A Hermes home with memtui installed by `memtui setup hermes --write-config`, and an empty HOME."""
    home = tmp_path / "hermes_home"
    (tmp_path / "home").mkdir()
    bin_dir = str(Path(PYTHON).parent)
    done = run_memtui("setup", "hermes", "--hermes-home", str(home), "--write-config",
                      env={"PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")})
    assert done.code == 0, done.err
    assert "imports memtui: ready" in done.out, (done.out, done.err)
    assert "provider: memtui" in (home / "config.yaml").read_text()
    return home


def hermes_env(tmp_path, home) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("MEMTUI_DIR", "OPENAI_"))}
    env.update({"HERMES_HOME": str(home), "HOME": str(tmp_path / "home"), "MEMTUI_LANG": "",
                "PATH": str(Path(PYTHON).parent) + os.pathsep + env.get("PATH", "")})
    return env


def in_hermes(tmp_path, home, code: str) -> dict:
    """Run `code` in the Hermes Python; it prints one JSON document last."""
    done = subprocess.run([PYTHON, "-c", textwrap.dedent(code)], capture_output=True, cwd=tmp_path,
                          env=hermes_env(tmp_path, home), timeout=120)
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    return json.loads(done.stdout.decode().strip().splitlines()[-1])


def test_hermes_loads_the_provider_and_its_manager_drives_it(tmp_path, home):
    result = in_hermes(tmp_path, home, f"""
        import json
        from agent.memory_manager import MemoryManager
        from agent.memory_provider import MemoryProvider
        from plugins.memory import discover_memory_providers, load_memory_provider

        provider = load_memory_provider("memtui")
        manager = MemoryManager()
        manager.add_provider(provider)
        manager.initialize_all(session_id="s1", platform="cli", agent_context="primary", agent_identity="default")
        manager.initialize_all(session_id="s2", platform="cli", agent_context="primary", agent_identity="default")
        saved = manager.handle_tool_call("memory_save", {{"kind": "fact", "text": {COLOUR!r}, "keywords": None}})
        again = manager.handle_tool_call("memory_save", {{"kind": "fact", "text": {COLOUR!r}, "keywords": None}})
        manager.notify_memory_tool_write(json.dumps({{"success": True}}),
                                         {{"action": "add", "target": "memory", "content": {UNRELATED!r}}})
        print(json.dumps({{
            "is_provider": isinstance(provider, MemoryProvider),
            "names": [name for name, *_ in discover_memory_providers()],
            "tools": sorted(manager.get_all_tool_names()),
            "saved": json.loads(saved), "again": json.loads(again),
            "prefetch": manager.prefetch_all("What colour should the charts be?"),
            "nothing": manager.prefetch_all("How do I parse a CSV file?"),
            "store": str(provider.store.dir),
            "entries": [(e.kind.value, e.text, e.source) for e in provider.store.entries()],
        }}))
        """)
    assert result["is_provider"] and "memtui" in result["names"]
    assert {"memory_save", "memory_search"} <= set(result["tools"])
    assert result["saved"] == {"result": "Saved (fact); memories stored: 1"}
    assert "Already remembered" in result["again"]["result"]  # initialised twice: one store, one entry
    assert COLOUR in result["prefetch"] and UNRELATED not in result["prefetch"]
    assert result["nothing"] == ""
    assert result["store"] == str(home / "memtui" / "default")
    assert result["entries"] == [["fact", COLOUR, "hermes"], ["fact", UNRELATED, "hermes"]]


def test_a_hermes_turn_sends_the_model_the_memories_it_needs(tmp_path, home):
    # the preference is the core (its kind puts it there): the system prompt carries it
    write_store(home / "memtui" / "default", [{"kind": "fact", "text": COLOUR},
                                               {"kind": "lesson", "text": UNRELATED},
                                               {"kind": "preference", "text": PINNED}])
    with LlmStub() as stub:
        config = (home / "config.yaml").read_text()
        (home / "config.yaml").write_text(
            f"model:\n  provider: custom\n  base_url: {stub.url}/v1\n  default: stub-model\n  api_key: not-a-key\n"
            f"  context_length: 128000\n" + config)
        done = subprocess.run([str(Path(PYTHON).parent / "hermes"), "-z", "What colour should the charts be?"],
                              capture_output=True, cwd=tmp_path, env=hermes_env(tmp_path, home), timeout=180)
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    assert done.stdout.decode().strip() == REPLY, done.stdout.decode()[-2000:]
    [request] = [body for body in stub.bodies("/chat/completions") if body.get("messages")]
    user = [message for message in request["messages"] if message["role"] == "user"][-1]
    assert user["content"].startswith("What colour should the charts be?")
    assert COLOUR in user["content"] and "=== Long-term memory" in user["content"]
    assert UNRELATED not in json.dumps(request["messages"])
    system = request["messages"][0]
    assert system["role"] == "system" and PINNED in system["content"]  # the core, in the system prompt
    assert PINNED not in user["content"]
    assert {"memory_save", "memory_search"} <= {tool["function"]["name"] for tool in request.get("tools", [])}


def test_in_a_git_repository_hermes_offers_scope_before_a_project_store_exists(tmp_path, home):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    code = f"""
        import json, os
        from plugins.memory import load_memory_provider

        os.chdir({str(repo / "src")!r})
        provider = load_memory_provider("memtui")
        provider.initialize("s1", platform="cli", agent_context="primary", agent_identity="default",
                            hermes_home={str(home)!r})
        save = {{tool["name"]: tool for tool in provider.get_tool_schemas()}}["memory_save"]
        saved = provider.handle_tool_call("memory_save", {{"kind": "fact", "text": "the chart is in deploy/",
                                                         "keywords": None, "scope": "project"}})
        print(json.dumps({{"scope": "scope" in save["parameters"]["properties"], "saved": json.loads(saved),
                          "prefetch": provider.prefetch("where is the chart")}}))
        """
    result = in_hermes(tmp_path, home, code)
    assert result["scope"], "memory_save offers no scope in a git repository without .memtui/"
    assert "project" in result["saved"]["result"], result["saved"]
    assert (repo / ".memtui" / "memory.json").exists()  # made at the git root, as the CLI's --scope project does
    assert "[project · fact] the chart is in deploy/" in result["prefetch"]
