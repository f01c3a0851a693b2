"""The Hermes Agent provider's behaviour, called as Hermes calls it. Here hermes-agent is not
installed, so the class stands on its own; tests/cli/test_host_hermes.py runs the same provider
inside the real hermes-agent (its loader, its manager, and `hermes -z`)."""

from __future__ import annotations

import json
import time

import pytest

from memtui_core.agents.hosts.hermes import MemtuiMemoryProvider, plugin_files, store_dir
from memtui_core.memory import MemoryStore

COLOUR = "The user's favourite colour is teal"


def started(hermes_home, **kwargs):
    provider = MemtuiMemoryProvider()
    provider.initialize("20261205_000000_abcdef", hermes_home=str(hermes_home), platform="cli",
                        agent_context=kwargs.pop("agent_context", "primary"),
                        agent_identity=kwargs.pop("agent_identity", "default"), agent_workspace="hermes", **kwargs)
    return provider


def test_the_store_follows_hermes_home_and_the_profile(tmp_path):
    a = started(tmp_path / "home")
    b = started(tmp_path / "home", agent_identity="coder")
    assert a.store.dir == tmp_path / "home" / "memtui" / "default"
    assert b.store.dir == tmp_path / "home" / "memtui" / "coder"
    a.handle_tool_call("memory_save", {"kind": "preference", "text": COLOUR, "keywords": None})
    assert b.prefetch("what is my favourite colour?") == ""  # another profile, another store
    assert store_dir(tmp_path, "../../etc").parent == tmp_path / "memtui"  # a name never leaves the folder


def test_a_configured_folder_wins(tmp_path):
    pytest.importorskip("yaml", reason="PyYAML (a hermes-agent dependency) reads config.yaml")
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text("memory:\n  provider: memtui\nplugins:\n  memtui:\n"
                                      "    dir: $HERMES_HOME/shared-memory\n    destructive: true\n")
    provider = started(home)
    assert provider.store.dir == home / "shared-memory"
    assert {"memory_update", "memory_forget"} <= {tool["name"] for tool in provider.get_tool_schemas()}


def test_initialising_twice_is_harmless(tmp_path):
    provider = started(tmp_path / "home")
    store = provider.store
    provider.handle_tool_call("memory_save", {"kind": "preference", "text": COLOUR, "keywords": None})
    provider.initialize("second-session", hermes_home=str(tmp_path / "home"), agent_identity="default")
    assert provider.store is store
    assert len(provider.store) == 1
    provider.initialize("third", hermes_home=str(tmp_path / "other"), agent_identity="default")
    assert provider.store.dir == tmp_path / "other" / "memtui" / "default"


def test_tools_are_openai_functions_and_answer_json_strings(tmp_path):
    provider = started(tmp_path / "home")
    schemas = provider.get_tool_schemas()
    assert [tool["name"] for tool in schemas] == ["memory_save", "memory_search"]
    for tool in schemas:
        assert set(tool) == {"name", "description", "parameters"}
        assert tool["parameters"]["type"] == "object"
    saved = json.loads(provider.handle_tool_call("memory_save", {"kind": "preference", "text": COLOUR,
                                                                 "keywords": ["color"]}))
    assert saved == {"result": "Saved (preference); memories stored: 1"}
    found = json.loads(provider.handle_tool_call("memory_search", {"query": "favourite colour", "top_k": None}))
    assert COLOUR in found["result"]
    assert set(json.loads(provider.handle_tool_call("memory_save", {"kind": "mood", "text": "x"}))) == {"error"}
    assert set(json.loads(provider.handle_tool_call("memory_forget", {"id": "x"}))) == {"error"}  # not offered
    entry = MemoryStore(provider.store.dir).entries()[0]
    assert (entry.source, MemoryStore(provider.store.dir).audit()[0].actor) == ("hermes", "hermes")


def test_prefetch_brings_the_memories_the_message_needs(tmp_path):
    provider = started(tmp_path / "home")
    staging = "The staging server is called blue-harbor-7"
    provider.handle_tool_call("memory_save", {"kind": "fact", "text": staging, "keywords": None})
    block = provider.prefetch("Which staging server do we deploy to?")
    assert staging in block and block.startswith("=== Long-term memory")
    assert "<memory-context>" not in block  # Hermes adds its own fence and strips a second one
    assert provider.prefetch("How do I parse a CSV file?") == ""
    assert provider.prefetch("") == ""


def test_writes_are_skipped_outside_the_primary_agent(tmp_path):
    provider = started(tmp_path / "home", agent_context="subagent")
    assert [tool["name"] for tool in provider.get_tool_schemas()] == ["memory_search"]
    answer = json.loads(provider.handle_tool_call("memory_save", {"kind": "fact", "text": COLOUR}))
    assert "error" in answer
    provider.on_memory_write("add", "user", COLOUR)
    assert len(provider.store) == 0


def test_the_built_in_memory_is_mirrored(tmp_path):
    provider = started(tmp_path / "home")
    provider.on_memory_write("add", "user", COLOUR, {"session_id": "s"})
    provider.on_memory_write("add", "memory", "The project deploys with ./deploy.sh --dry-run first")
    kinds = {entry.text: entry.kind.value for entry in provider.store.entries()}
    assert kinds == {COLOUR: "preference", "The project deploys with ./deploy.sh --dry-run first": "fact"}
    provider.on_memory_write("replace", "user", "The user's favourite colour is dark teal",
                             {"old_text": "favourite colour is teal"})
    assert COLOUR not in [entry.text for entry in provider.store.entries()]
    provider.on_memory_write("remove", "user", "", {"old_text": "dark teal"})
    assert [entry.text for entry in provider.store.entries()] == ["The project deploys with ./deploy.sh --dry-run first"]


def test_an_ambiguous_or_foreign_old_text_changes_nothing(tmp_path):
    provider = started(tmp_path / "home")
    provider.on_memory_write("add", "memory", "Service alpha listens on port 8001")
    provider.on_memory_write("add", "memory", "Service beta listens on port 8002")
    provider.store.remember("fact", "Service gamma listens on port 8003", source="cli")  # a person's entry
    provider.on_memory_write("remove", "memory", "", {"old_text": "listens on port"})  # two mirrored match
    provider.on_memory_write("remove", "memory", "", {"old_text": "gamma"})  # not a mirrored entry
    provider.on_memory_write("remove", "memory", "", None)
    assert len(provider.store) == 3


def test_sync_turn_writes_nothing_and_returns_at_once(tmp_path):
    provider = started(tmp_path / "home")
    start = time.perf_counter()
    for _ in range(100):
        provider.sync_turn("Remember: my favourite colour is teal", "Noted.", session_id="s", messages=[])
    assert time.perf_counter() - start < 0.05
    assert not (provider.store.dir / "memory.json").exists()


def test_backup_paths_name_a_store_outside_hermes_home(tmp_path, monkeypatch):
    monkeypatch.setenv("HERMES_HOME", str(tmp_path / "home"))
    assert MemtuiMemoryProvider().backup_paths() == []
    provider = MemtuiMemoryProvider(dir=tmp_path / "elsewhere")
    assert provider.backup_paths() == [str(tmp_path / "elsewhere")]
    provider.initialize("s", hermes_home=str(tmp_path / "home"))
    assert provider.backup_paths() == [str(tmp_path / "elsewhere")]


def test_the_plugin_folder_is_found_by_hermes_loaders_rules():
    files = plugin_files()
    init = files["__init__.py"].decode()
    # hermes-agent counts a user plugin as a memory provider when its __init__.py says so early on
    assert "MemoryProvider" in init[:8192] and "def register(ctx)" in init
    assert "from memtui_core.agents.hosts.hermes import MemtuiMemoryProvider" in init
    compile(init, "__init__.py", "exec")
    assert b"name: memtui" in files["plugin.yaml"]


def test_the_pinned_core_is_in_the_system_prompt_and_not_again_per_turn(tmp_path):
    provider = started(tmp_path / "home")
    core = provider.store.remember("preference", "Answer in British English, with metric units").entry
    provider.store.pin(core.id)
    provider.store.remember("fact", "The staging server is called blue-harbor-7")
    system = provider.system_prompt_block()
    assert "Answer in British English" in system and "blue-harbor-7" not in system
    turn = provider.prefetch("Which units and which staging server? Answer in British English")
    assert "blue-harbor-7" in turn and "Answer in British English, with metric units" not in turn
