"""The host sections of docs/agents.md say what the code does: the MCP configurations for Codex
(TOML) and Cursor (JSON) parse and name a `memtui` command line memtui accepts, the memtui
commands shown parse, and the Hermes config keys are the provider's."""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from pathlib import Path

import pytest

from memtui.cli import build_parser

DOC = Path(__file__).resolve().parents[1] / "docs" / "agents.md"


def section(title: str) -> str:
    return DOC.read_text(encoding="utf-8").split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def fences(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.S | re.M)


def accepted(args: list[str]) -> None:
    """`memtui ARGS` parses (argparse exits on anything it does not accept)."""
    build_parser().parse_args(args)


def test_every_host_has_its_section():
    text = DOC.read_text(encoding="utf-8")
    for title in ("Claude Code", "Hermes Agent", "LangGraph", "OpenAI Agents SDK",
                  "Codex, Cursor and other MCP clients"):
        assert f"\n## {title}\n" in text, title


def test_the_codex_and_cursor_configurations():
    mcp = section("Codex, Cursor and other MCP clients")
    [toml] = fences(mcp, "toml")
    server = tomllib.loads(toml)["mcp_servers"]["memtui"]
    assert server["command"] == "memtui"
    accepted(server["args"])
    [cursor] = fences(mcp, "json")
    server = json.loads(cursor)["mcpServers"]["memtui"]
    assert server["command"] == "memtui"
    accepted(server["args"])


@pytest.mark.parametrize("title", ["Claude Code", "Hermes Agent"])
def test_the_memtui_commands_shown_parse(title):
    [shell] = fences(section(title), "sh")
    commands = [shlex.split(line.split("#", 1)[0]) for line in shell.splitlines() if line.startswith("memtui ")]
    assert commands
    for command in commands:
        accepted(command[1:])


def test_the_hermes_config_keys_are_the_providers():
    yaml = pytest.importorskip("yaml")
    from memtui_core.agents.hosts.hermes import MemtuiMemoryProvider

    [config] = fences(section("Hermes Agent"), "yaml")
    keys = set(yaml.safe_load(config)["plugins"]["memtui"])
    assert keys == {field["key"] for field in MemtuiMemoryProvider().get_config_schema()}
