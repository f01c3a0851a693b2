"""`memtui mcp` as an MCP client sees it: started as a subprocess, spoken to with the SDK's stdio client."""

from __future__ import annotations

import sys

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from memtui_core.store import MemoryStore

from .conftest import REPO

TIMEOUT = 30


def _text(result) -> str:
    return "".join(part.text for part in result.content if getattr(part, "type", None) == "text")


async def _session_scenario(store_dir) -> dict:
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "memtui", "mcp", "--dir", str(store_dir)], cwd=str(REPO),
        env={"MEMTUI_DIR": str(store_dir / "never-used")},
    )
    seen: dict = {}
    with anyio.fail_after(TIMEOUT):
        async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools
            seen["tools"] = {tool.name: tool for tool in tools}
            seen["save"] = await session.call_tool("memory_save", {"kind": "correction", "text": "部署脚本默认先 dry-run，确认后再执行"})
            seen["again"] = await session.call_tool("memory_save", {"kind": "lesson", "text": "部署脚本默认先 dry-run，确认后再执行",
                                                                    "keywords": ["deploy", "发布"]})
            seen["search"] = await session.call_tool("memory_search", {"query": "部署 dry-run", "top_k": 3})
            seen["nothing"] = await session.call_tool("memory_search", {"query": "完全无关"})
            seen["inject"] = await session.call_tool("memory_inject", {"query": "部署脚本"})
            seen["inject_empty"] = await session.call_tool("memory_inject", {"query": "完全无关"})
            seen["bad_kind"] = await session.call_tool("memory_save", {"kind": "opinion", "text": "随便说说"})
            seen["no_text"] = await session.call_tool("memory_save", {"kind": "fact", "text": "   "})
            seen["bad_top_k"] = await session.call_tool("memory_search", {"query": "部署", "top_k": 0})
            seen["missing_arg"] = await session.call_tool("memory_search", {})
            seen["still_alive"] = await session.call_tool("memory_search", {"query": "部署"})
    return seen


def test_mcp_server_round_trip(tmp_path):
    store_dir = tmp_path / "store"
    seen = anyio.run(_session_scenario, store_dir)

    tools = seen["tools"]
    assert set(tools) == {"memory_save", "memory_search", "memory_inject"}
    save_schema = tools["memory_save"].input_schema
    assert save_schema["required"] == ["kind", "text"]
    assert save_schema["properties"]["kind"]["enum"] == ["preference", "correction", "lesson", "fact"]
    assert "keywords" in save_schema["properties"]
    assert tools["memory_search"].input_schema["required"] == ["query"]
    assert tools["memory_search"].annotations.read_only_hint is True

    assert not seen["save"].is_error and _text(seen["save"]) == "已记下（纠正），当前记忆共 1 条"
    assert not seen["again"].is_error and _text(seen["again"]).startswith("与已有记忆重复，未新增")
    assert not seen["search"].is_error and _text(seen["search"]).startswith("[纠正] (")
    assert not seen["nothing"].is_error and _text(seen["nothing"]) == "没有找到相关记忆"

    store = MemoryStore(store_dir)
    assert _text(seen["inject"]) == store.retrieve_block("部署脚本") != ""
    assert not seen["inject_empty"].is_error and _text(seen["inject_empty"]) == ""

    for name in ("bad_kind", "no_text", "bad_top_k", "missing_arg"):
        assert seen[name].is_error, name
    assert "preference, correction, lesson, fact" in _text(seen["bad_kind"])
    assert "缺少 text" in _text(seen["no_text"])
    assert not seen["still_alive"].is_error  # errors are results, the server keeps serving

    assert len(store.entries()) == 1
    assert store.entries()[0].keywords == ["deploy", "发布"]  # the refresh merged the new keywords
    events = store.audit()
    assert [e.op.value for e in events] == ["add", "refresh"]
    assert {e.actor for e in events} == {"mcp"}
    assert not (store_dir / "never-used").exists()


def test_build_server_lists_the_three_tools_in_process(tmp_path):
    from memtui_core.mcp_server import build_server

    server = build_server(MemoryStore(tmp_path, actor="mcp"))
    names = anyio.run(server.list_tools)
    assert sorted(tool.name for tool in names) == ["memory_inject", "memory_save", "memory_search"]
