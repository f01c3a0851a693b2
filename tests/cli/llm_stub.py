"""A stand-in for a model endpoint, for tests that run a real agent host against it on 127.0.0.1.

It speaks just enough of two APIs for a host to finish one turn: Anthropic's Messages
(`POST /v1/messages`, streamed or not) and OpenAI's Chat Completions (`POST .../chat/completions`,
streamed or not; `GET .../models`). Every request is kept (method, path, parsed JSON body) so a
test can look at what the host sent; every answer is the text `REPLY`. Anything else gets a 404,
which the hosts treat as "not supported" and carry on.

    with LlmStub() as stub:
        env["ANTHROPIC_BASE_URL"] = stub.url
        ... run the host ...
        assert "memory" in json.dumps(stub.bodies("/v1/messages"))
"""

from __future__ import annotations

import json
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

REPLY = "STUB-ANSWER"


class LlmStub:
    def __init__(self) -> None:
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        stub = self

        class Handler(_Handler):
            owner = stub

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def keep(self, method: str, path: str, body: object) -> None:
        with self._lock:
            self.requests.append({"method": method, "path": path, "body": body})

    def bodies(self, path_end: str) -> list[dict]:
        """The JSON bodies of the POSTs whose path (without the query) ends with `path_end`."""
        with self._lock:
            return [r["body"] for r in self.requests
                    if r["method"] == "POST" and r["path"].split("?")[0].rstrip("/").endswith(path_end)
                    and isinstance(r["body"], dict)]

    def __enter__(self) -> LlmStub:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()


class _Handler(BaseHTTPRequestHandler):
    owner: LlmStub
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args) -> None:  # quiet
        pass

    def _body(self) -> object:
        size = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(size) if size else b""
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return raw.decode("utf-8", "replace")

    def _send_json(self, status: int, data: object) -> None:
        payload = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    def _start_events(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")  # the stream ends when the connection does
        self.end_headers()
        self.close_connection = True

    def _event(self, data: object, name: str | None = None) -> None:
        text = (f"event: {name}\n" if name else "") + "data: " + (data if isinstance(data, str) else json.dumps(data))
        self.wfile.write((text + "\n\n").encode())
        self.wfile.flush()

    def do_HEAD(self) -> None:
        self.owner.keep("HEAD", self.path, None)
        self._send_json(200, {})

    def do_GET(self) -> None:
        self.owner.keep("GET", self.path, None)
        if self.path.split("?")[0].rstrip("/").endswith("/models"):
            self._send_json(200, {"object": "list", "data": [{"id": "stub-model", "object": "model", "created": 0,
                                                              "owned_by": "stub"}]})
        else:
            self._send_json(404, {"error": {"type": "not_found_error", "message": "not served by the stub"}})

    def do_POST(self) -> None:
        body = self._body()
        self.owner.keep("POST", self.path, body)
        path = self.path.split("?")[0].rstrip("/")
        request = body if isinstance(body, dict) else {}
        if path.endswith("/v1/messages"):
            self._anthropic(request)
        elif path.endswith("/chat/completions"):
            self._openai(request)
        else:
            self._send_json(404, {"error": {"type": "not_found_error", "message": "not served by the stub"}})

    def _anthropic(self, request: dict) -> None:
        model = request.get("model") or "stub-model"
        message = {"id": "msg_" + uuid.uuid4().hex[:20], "type": "message", "role": "assistant", "model": model,
                   "stop_sequence": None}
        usage = {"input_tokens": 10, "output_tokens": 2, "cache_creation_input_tokens": 0,
                 "cache_read_input_tokens": 0}
        if not request.get("stream"):
            self._send_json(200, {**message, "content": [{"type": "text", "text": REPLY}], "stop_reason": "end_turn",
                                  "usage": usage})
            return
        self._start_events()
        self._event({"type": "message_start", "message": {**message, "content": [], "stop_reason": None,
                                                          "usage": usage}}, "message_start")
        self._event({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
                    "content_block_start")
        self._event({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": REPLY}},
                    "content_block_delta")
        self._event({"type": "content_block_stop", "index": 0}, "content_block_stop")
        self._event({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                     "usage": {"output_tokens": 2}}, "message_delta")
        self._event({"type": "message_stop"}, "message_stop")

    def _openai(self, request: dict) -> None:
        model = request.get("model") or "stub-model"
        head = {"id": "chatcmpl-" + uuid.uuid4().hex[:20], "created": 0, "model": model}
        usage = {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}
        if not request.get("stream"):
            self._send_json(200, {**head, "object": "chat.completion", "usage": usage, "choices": [
                {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": REPLY}}]})
            return
        self._start_events()

        def chunk(delta: dict, finish: str | None = None) -> dict:
            return {**head, "object": "chat.completion.chunk",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

        self._event(chunk({"role": "assistant", "content": ""}))
        self._event(chunk({"content": REPLY}))
        self._event(chunk({}, "stop"))
        if (request.get("stream_options") or {}).get("include_usage"):
            self._event({**head, "object": "chat.completion.chunk", "choices": [], "usage": usage})
        self._event("[DONE]")
