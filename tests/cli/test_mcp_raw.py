"""The MCP server over raw JSON-RPC on stdio: every line gets an answer, and it keeps serving.

A malformed line, a lone-surrogate escape or 100k-deep nesting used to get no reply at all, so a
client waited forever. Each must be answered with a JSON-RPC error within a second."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time

import orjson
import pytest

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "raw-test", "version": "0"}}}


class Raw:
    def __init__(self, store) -> None:
        env = dict(os.environ, MEMTUI_DIR=str(store))
        self.proc = subprocess.Popen([sys.executable, "-m", "memtui", "--dir", str(store), "mcp"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.buffer = b""

    def send(self, line: bytes) -> None:
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def reply(self, within: float) -> dict:
        deadline = time.monotonic() + within
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.proc.stdout], [], [], max(left, 0))
            if not ready:
                raise AssertionError(f"no reply within {within}s")
            chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
            assert chunk, "the server closed its output"
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return orjson.loads(line)

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(10)


@pytest.fixture
def server(tmp_path):
    raw = Raw(tmp_path / "store")
    raw.send(orjson.dumps(INIT))
    assert raw.reply(30)["result"]["serverInfo"]["name"] == "memtui"  # started (imports take a while)
    raw.send(orjson.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    yield raw
    raw.close()


BAD_LINES = {
    "malformed": b'{"jsonrpc": "2.0", "id": 7, "method": ',
    "not json": b"hello there",
    "lone surrogate": b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"memory_save",'
                      b'"arguments":{"kind":"fact","text":"half an emoji \\ud83d"}}}',
    "deep nesting": b"[" * 100_000 + b"]" * 100_000,
    "deep nesting in a request": b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":' + b"[" * 100_000
                                 + b"]" * 100_000 + b"}",
    "not a request": b'{"hello": "world"}',
    "a list": b"[1, 2, 3]",
}


@pytest.mark.parametrize("name", list(BAD_LINES))
def test_every_bad_line_gets_a_json_rpc_error_within_a_second_and_the_server_keeps_serving(server, name):
    server.send(BAD_LINES[name])
    answer = server.reply(1.0)
    assert answer["jsonrpc"] == "2.0" and answer["error"]["code"] in (-32700, -32600, -32602)
    assert "id" in answer
    if b'"id":7' in BAD_LINES[name].replace(b" ", b"") and name != "malformed":
        assert answer["id"] == 7
    server.send(orjson.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
    tools = server.reply(5.0)
    assert tools["id"] == 2 and {t["name"] for t in tools["result"]["tools"]} >= {"memory_save", "memory_search"}


@pytest.mark.parametrize("request_id", [{"a": 1}, True, False, 1.5, [7], None], ids=repr)
def test_a_request_whose_id_is_not_a_string_or_a_whole_number_gets_an_invalid_request_error(server, request_id):
    """The SDK read such a request as a notification and never answered it: the client waited forever."""
    server.send(orjson.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/list"}))
    answer = server.reply(2.0)
    assert answer == {"jsonrpc": "2.0", "id": None,
                      "error": {"code": -32600, "message": "Invalid request: id must be a string or a whole number"}}
    server.send(orjson.dumps({"jsonrpc": "2.0", "id": "next", "method": "tools/list"}))
    assert server.reply(5.0)["id"] == "next"


def _peak_rss_kib(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    except (OSError, StopIteration):
        return None


def test_an_oversized_line_is_refused_early_without_holding_it_and_the_server_keeps_serving(server):
    """A 64 MB line cost 25 s and 379 MiB before its parse error (85 s and 400 MiB on a loaded machine)."""
    before = _peak_rss_kib(server.proc.pid)
    query = b"a" * (64 * 1024 * 1024)
    started = time.monotonic()
    server.send(b'{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"memory_search",'
                b'"arguments":{"query":"' + query + b'"}}}')
    answer = server.reply(10.0)
    assert time.monotonic() - started < 10
    assert answer["id"] == 77 and answer["error"]["code"] == -32600
    assert "the line is longer than 4 MiB" in answer["error"]["message"]
    after = _peak_rss_kib(server.proc.pid)
    if before is not None and after is not None:
        assert after - before < 32 * 1024, (before, after)  # the line was never held whole
    for n in (1, 2):  # the next lines are served as usual, the first right after the long one
        server.send(orjson.dumps({"jsonrpc": "2.0", "id": n, "method": "tools/list"}))
        assert server.reply(5.0)["id"] == n


def test_a_line_just_under_the_limit_is_still_served(server):
    from memtui_core.agents.mcp_stdio import MAX_LINE

    head = b'{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"'
    tail = b'","top_k":null}}}'
    server.send(head + b"b" * (MAX_LINE - len(head) - len(tail) - 1) + tail)
    answer = server.reply(30.0)
    assert answer["id"] == 8 and "result" in answer, answer
