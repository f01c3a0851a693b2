"""The stdio transport of the MCP server, guarded: every line a client sends gets an answer.

The SDK's transport drops a line it cannot parse without replying, so a client waits forever on
a malformed line, a lone-surrogate escape (valid JSON, not valid Unicode) or nesting deeper
than a parser's recursion limit. Here each line is checked first: with orjson, which refuses
lone surrogates and stops at a nesting depth of 1024 at once, then against the JSON-RPC message
schema, then its `id`, which JSON-RPC allows to be a string or a whole number only (the SDK read
an object, `true` or `1.5` as a notification and never answered). A bad line is answered with a
JSON-RPC error (the request's id when it can be read, null otherwise) and never reaches the
server, which keeps serving.

Lines are read in chunks of at most 64 KiB, and one longer than `MAX_LINE` is refused as soon as
it passes the limit: the rest of it is read and dropped, never held (a 64 MB line used to cost
25 s and 379 MiB before its parse error).
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import TYPE_CHECKING, Any, cast

import orjson

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

__all__ = ["INVALID_REQUEST", "PARSE_ERROR", "check_line", "run_guarded_stdio"]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
# The longest line served: far more than any call takes (a memory is at most max_text characters,
# a query for the block is one message), small enough that a runaway client costs a few MiB.
MAX_LINE = 4 * 1024 * 1024
_CHUNK = 64 * 1024


def _error(request_id: Any, code: int, message: str) -> str:
    if not isinstance(request_id, (str, int)) or isinstance(request_id, bool):
        request_id = None
    return orjson.dumps({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}).decode()


def _lenient_id(line: bytes) -> Any:
    """The id of a request orjson refused but the standard library can read (a lone surrogate)."""
    try:
        value = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return value.get("id") if isinstance(value, dict) else None


# the id among the top-level members before any nested value: `{"jsonrpc":"2.0","id":7,"params":[[[[...`
_SCALAR = rb'(?:"[^"\\]*"|-?\d+(?:\.\d+)?|true|false|null)'
_LEADING_ID = re.compile(rb'\s*\{\s*(?:"[^"\\]*"\s*:\s*' + _SCALAR + rb'\s*,\s*)*?"id"\s*:\s*(-?\d+|"[^"\\]*")')


def _leading_id(line: bytes) -> Any:
    m = _LEADING_ID.match(line[:4096])
    if m is None:
        return None
    try:
        return orjson.loads(m.group(1))
    except orjson.JSONDecodeError:
        return None


def check_line(line: bytes) -> str | None:
    """The JSON-RPC error to answer `line` with, or None when it is a message the server takes."""
    from mcp import types

    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        request_id = _lenient_id(line) if b"\\u" in line else None
        if request_id is not None:
            return _error(request_id, INVALID_REQUEST, "Invalid request: not valid Unicode (a lone surrogate escape)")
        return _error(_leading_id(line), PARSE_ERROR, f"Parse error: {str(exc).split(':', 1)[0]}")
    if isinstance(value, dict) and "id" in value and not _valid_id(value["id"]):
        return _error(None, INVALID_REQUEST, "Invalid request: id must be a string or a whole number")
    try:
        types.jsonrpc_message_adapter.validate_python(value, by_name=False)
    except Exception:
        request_id = value.get("id") if isinstance(value, dict) else None
        return _error(request_id, INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 message")
    return None


def _valid_id(value: Any) -> bool:
    """A JSON-RPC id: a string or an integer (not a boolean, a fraction, an object or null)."""
    return isinstance(value, str) or isinstance(value, int) and not isinstance(value, bool)


def too_long(head: bytes) -> str:
    """The error for a line longer than MAX_LINE, given its first bytes."""
    return _error(_leading_id(head), INVALID_REQUEST,
                  f"Invalid request: the line is longer than {MAX_LINE // (1024 * 1024)} MiB")


class _Reader:
    """Whole lines from a file descriptor, read in bounded chunks. A line longer than MAX_LINE is
    given as (None, its first bytes) and the rest of it is skipped as it arrives, never held."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = bytearray()
        self.skipping = False  # inside a line that was too long: drop bytes until its end
        self.done = False
        self.searched = 0  # the buffer holds no line break before this offset

    def next(self) -> tuple[bytes | None, bytes] | None:
        """(line, b"") or (None, head of a line too long); None at the end of the input."""
        while True:
            end = self.buffer.find(b"\n", self.searched)
            self.searched = len(self.buffer) if end < 0 else 0
            if end >= 0:
                line = bytes(self.buffer[:end])
                del self.buffer[: end + 1]
                if self.skipping:
                    self.skipping = False
                    continue
                if len(line) > MAX_LINE:
                    return None, line[:4096]
                return line, b""
            if not self.skipping and len(self.buffer) > MAX_LINE:
                head = bytes(self.buffer[:4096])
                self.buffer.clear()
                self.searched = 0
                self.skipping = True
                return None, head
            if self.skipping:
                self.buffer.clear()
                self.searched = 0
            if self.done:
                if self.buffer and not self.skipping:
                    line = bytes(self.buffer)
                    self.buffer.clear()
                    return line, b""
                return None
            chunk = os.read(self.fd, _CHUNK)
            if not chunk:
                self.done = True
            else:
                self.buffer += chunk


class _Lines:
    """The client's lines, checked; a bad one is answered here and not passed on."""

    def __init__(self, source, out: _Output) -> None:
        self.source = source
        self.out = out

    def __aiter__(self):
        return self._lines()

    async def _lines(self):
        import anyio

        reader = _Reader(self.source.fileno())
        while True:
            got = await anyio.to_thread.run_sync(reader.next)
            if got is None:
                return
            line, head = got
            error = too_long(head) if line is None else None
            if line is not None:
                line = line.strip()
                if not line:
                    continue
                error = check_line(line)
            if error is not None:
                await self.out.write(error + "\n")
                await self.out.flush()
                continue
            yield line.decode("utf-8")


class _Output:
    """The real stdout: one whole line per write, under a lock shared by the server and the guard."""

    def __init__(self, sink) -> None:
        import anyio

        self.sink = sink
        self.lock = anyio.Lock()
        self.pending = ""

    async def write(self, text: str) -> None:
        self.pending += text

    async def flush(self) -> None:
        import anyio

        async with self.lock:
            text, self.pending = self.pending, ""
            if text:
                await anyio.to_thread.run_sync(self._write, text.encode("utf-8"))

    def _write(self, data: bytes) -> None:
        self.sink.write(data)
        self.sink.flush()


def run_guarded_stdio(server: MCPServer) -> None:
    """Serve `server` on stdin/stdout until the client closes the connection. While serving, fd 0
    reads the null device and fd 1 goes to stderr, so stray output never reaches the wire."""
    import anyio
    from mcp.server.stdio import stdio_server

    sys.stdout.flush()
    real_in, real_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    saved_in, saved_out = os.dup(0), os.dup(1)
    os.dup2(null, 0)
    os.dup2(2, 1)
    os.close(null)

    async def serve() -> None:
        with os.fdopen(real_in, "rb", buffering=0) as source, os.fdopen(real_out, "wb") as sink:
            out = _Output(sink)
            lowlevel = server._lowlevel_server  # the SDK runs its stdio transport the same way
            lines, output = cast(Any, _Lines(source, out)), cast(Any, out)  # duck-typed async text files
            async with stdio_server(stdin=lines, stdout=output) as (read_stream, write_stream):
                await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())

    try:
        anyio.run(serve)
    finally:
        os.dup2(saved_in, 0)
        os.dup2(saved_out, 1)
        os.close(saved_in)
        os.close(saved_out)
