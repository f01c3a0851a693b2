"""The SDK examples of docs/agents.md, run as written against each SDK's own response types.

Each example is executed; its `client` is then swapped for a fake whose `create` checks the
request with the SDK's parameter types and answers with real SDK response objects: first a call
of `memory_save`, then a final text. The memory must be saved, and the final text returned.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from pydantic import TypeAdapter

from memtui_core.memory import MemoryStore

DOC = Path(__file__).resolve().parents[3] / "docs" / "agents.md"
FENCE = re.compile(r"^### (.+?)\n.*?^```python\n(.*?)^```", re.S | re.M)
SAVE = {"kind": "lesson", "text": "Always deploy to staging before production"}


def examples() -> dict[str, str]:
    return dict(FENCE.findall(DOC.read_text(encoding="utf-8")))


class Fake:
    """`client.<path>.create(**request)`: two answers, the requests kept."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.requests = []

    def create(self, **request):
        self.requests.append(request)
        return self.answers.pop(0)


def run(name, monkeypatch, tmp_path, client_path, answers, call):
    monkeypatch.setenv("MEMTUI_DIR", str(tmp_path / "store"))
    monkeypatch.setenv("OPENAI_API_KEY", "not-used")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "not-used")
    namespace: dict = {"__name__": "docs_example"}
    exec(compile(examples()[name], "docs/agents.md", "exec"), namespace)
    fake = Fake(answers)
    client = fake
    for part in reversed(client_path):
        client = SimpleNamespace(**{part: client})
    namespace["client"] = client
    result = call(namespace)
    store = MemoryStore(tmp_path / "store")
    assert [(e.kind.value, e.text, e.source) for e in store.entries()] == [(SAVE["kind"], SAVE["text"], "tool")]
    assert store.audit()[0].actor == "my-agent"
    return result, fake.requests


def test_the_openai_chat_completions_example(monkeypatch, tmp_path):
    chat = pytest.importorskip("openai.types.chat")

    def completion(message, finish):
        return chat.ChatCompletion.model_validate({
            "id": "c", "object": "chat.completion", "created": 0, "model": "gpt-4.1",
            "choices": [{"index": 0, "finish_reason": finish, "message": {"role": "assistant", **message}}]})

    answers = [
        completion({"content": None, "tool_calls": [{"id": "call_1", "type": "function", "function": {
            "name": "memory_save", "arguments": json.dumps(SAVE)}}]}, "tool_calls"),
        completion({"content": "Noted."}, "stop"),
    ]
    result, requests = run("OpenAI Chat Completions", monkeypatch, tmp_path, ["chat", "completions"], answers,
                           lambda ns: ns["chat"]("You are a coding agent.", "Remember: always deploy to staging first"))
    assert result == "Noted."
    TypeAdapter(list[chat.ChatCompletionToolParam]).validate_python(requests[0]["tools"])
    TypeAdapter(list[chat.ChatCompletionMessageParam]).validate_python(requests[1]["messages"])
    assert requests[1]["messages"][-1]["content"].startswith("Saved (lesson)")  # auto: an English save


def test_the_openai_responses_example(monkeypatch, tmp_path):
    responses = pytest.importorskip("openai.types.responses")

    def response(output):
        return responses.Response.model_validate({
            "id": "r", "object": "response", "created_at": 0, "model": "gpt-4.1", "output": output,
            "parallel_tool_calls": True, "tool_choice": "auto", "tools": []})

    answers = [
        response([{"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "memory_save",
                   "arguments": json.dumps(SAVE), "status": "completed"}]),
        response([{"type": "message", "id": "m_1", "role": "assistant", "status": "completed",
                   "content": [{"type": "output_text", "text": "Noted.", "annotations": []}]}]),
    ]
    result, requests = run("OpenAI Responses", monkeypatch, tmp_path, ["responses"], answers,
                           lambda ns: ns["respond"]("You are a coding agent.", "Remember: staging first"))
    assert result == "Noted."
    TypeAdapter(list[responses.ToolParam]).validate_python(requests[0]["tools"])
    assert requests[1]["input"][-1]["output"].startswith("Saved (lesson)")


def test_the_anthropic_example(monkeypatch, tmp_path):
    types = pytest.importorskip("anthropic.types")

    def message(content, stop):
        return types.Message.model_validate({
            "id": "m", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": content,
            "stop_reason": stop, "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}})

    answers = [
        message([{"type": "tool_use", "id": "toolu_1", "name": "memory_save", "input": SAVE}], "tool_use"),
        message([{"type": "text", "text": "Noted."}], "end_turn"),
    ]
    result, requests = run("Anthropic", monkeypatch, tmp_path, ["messages"], answers,
                           lambda ns: ns["ask"]("You are a coding agent.", "Remember: staging first"))
    assert result == "Noted."
    TypeAdapter(list[types.ToolParam]).validate_python(requests[0]["tools"])
    TypeAdapter(list[types.MessageParam]).validate_python(requests[1]["messages"])
    assert requests[1]["messages"][-1]["content"][0]["content"].startswith("Saved (lesson)")


def test_the_mcp_configuration_in_the_docs_is_valid_json():
    configs = [json.loads(block) for block in re.findall(r"^```json\n(.*?)^```", DOC.read_text("utf-8"), re.S | re.M)]
    assert configs and configs[0]["mcpServers"]["memtui"]["args"][0] == "mcp"
