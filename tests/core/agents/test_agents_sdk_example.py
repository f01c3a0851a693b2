"""The OpenAI Agents SDK example of docs/agents.md, run as written with the real `openai-agents`
package and no network: its instructions and tools as the SDK builds them, a tool call, and a
whole run through the SDK's own loop with a stand-in model that first saves a memory, then answers."""

from __future__ import annotations

import asyncio
import json
import re
import sys
import types
from pathlib import Path

import pytest

agents = pytest.importorskip("agents", reason="openai-agents is not installed (pip install 'memtui[openai-agents]')")

from agents import ModelResponse, RunConfig, RunContextWrapper, Runner, Usage  # noqa: E402
from agents.models.interface import Model  # noqa: E402
from agents.tool_context import ToolContext  # noqa: E402
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText  # noqa: E402

from memtui_core.memory import MemoryStore  # noqa: E402

DOC = Path(__file__).resolve().parents[3] / "docs" / "agents.md"
SAVE = {"kind": "lesson", "text": "Always deploy to staging before production", "keywords": None}


def example(monkeypatch, tmp_path) -> dict:
    section = DOC.read_text(encoding="utf-8").split("\n## OpenAI Agents SDK\n", 1)[1].split("\n## ", 1)[0]
    [code] = re.findall(r"^```python\n(.*?)^```", section, re.S | re.M)
    monkeypatch.setenv("MEMTUI_DIR", str(tmp_path / "store"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    module = types.ModuleType("docs_agents_sdk_example")  # a real module, as a user's file would be
    monkeypatch.setitem(sys.modules, module.__name__, module)
    exec(compile(code, "docs/agents.md", "exec", dont_inherit=True), module.__dict__)
    return module.__dict__


class StandIn(Model):
    """Answers like a model would: a memory_save call, then (after the tool's answer) a text."""

    def __init__(self) -> None:
        self.requests: list[dict] = []

    async def get_response(self, system_instructions, input, model_settings, tools, output_schema, handoffs,
                           tracing, **kwargs):
        self.requests.append({"instructions": system_instructions, "input": input,
                              "tools": {tool.name: tool for tool in tools}})
        if len(self.requests) == 1:
            output = [ResponseFunctionToolCall(type="function_call", call_id="call_1", name="memory_save",
                                               arguments=json.dumps(SAVE))]
        else:
            output = [ResponseOutputMessage(id="msg_1", type="message", role="assistant", status="completed",
                                            content=[ResponseOutputText(type="output_text", text="Noted.",
                                                                        annotations=[])])]
        return ModelResponse(output=output, usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError


def test_the_instructions_carry_the_memories_the_message_needs(monkeypatch, tmp_path):
    ns = example(monkeypatch, tmp_path)
    ns["store"].remember("preference", "Answer in British English, with metric units")
    ns["store"].remember("fact", "The staging server is called blue-harbor-7")

    def instructions(message: str) -> str:
        return asyncio.run(ns["agent"].get_system_prompt(RunContextWrapper(ns["Turn"](message))))

    prompt = instructions("Which staging server do we deploy to?")
    assert prompt.startswith("You are a coding agent.")
    assert "The staging server is called blue-harbor-7" in prompt
    assert "Answer in British English, with metric units" in prompt  # the core: in every turn
    unrelated = instructions("Parse this CSV file")
    assert "blue-harbor-7" not in unrelated and "Answer in British English" in unrelated


def test_the_tools_are_strict_function_tools_that_run(monkeypatch, tmp_path):
    ns = example(monkeypatch, tmp_path)
    tools = {tool.name: tool for tool in asyncio.run(ns["agent"].get_all_tools(RunContextWrapper(ns["Turn"]("x"))))}
    assert sorted(tools) == ["memory_save", "memory_search"]
    for tool in tools.values():
        assert tool.strict_json_schema and tool.params_json_schema["additionalProperties"] is False
    context = ToolContext(ns["Turn"]("x"), tool_name="memory_save", tool_call_id="call_1",
                          tool_arguments=json.dumps(SAVE))
    answer = asyncio.run(tools["memory_save"].on_invoke_tool(context, json.dumps(SAVE)))
    assert answer.startswith("Saved (lesson)")
    assert [entry.text for entry in MemoryStore(tmp_path / "store").entries()] == [SAVE["text"]]


def test_a_whole_run_through_the_sdk_loop(monkeypatch, tmp_path):
    ns = example(monkeypatch, tmp_path)
    ns["store"].remember("correction", "Deploys go to staging first, never straight to production")
    model = StandIn()
    text = "Deploy the release to production"
    result = asyncio.run(Runner.run(ns["agent"], text, context=ns["Turn"](text),
                                    run_config=RunConfig(model=model, tracing_disabled=True)))
    assert result.final_output == "Noted."
    assert "Deploys go to staging first" in model.requests[0]["instructions"]
    assert sorted(model.requests[0]["tools"]) == ["memory_save", "memory_search"]
    tool_output = model.requests[1]["input"][-1]
    assert tool_output["type"] == "function_call_output" and tool_output["output"].startswith("Saved (lesson)")
    store = MemoryStore(tmp_path / "store")
    assert SAVE["text"] in [entry.text for entry in store.entries()]
    assert store.audit()[-1].actor == "my-agent"
