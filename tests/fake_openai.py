"""A real HTTP server on 127.0.0.1 that speaks just enough of the OpenAI chat protocol for tests.

Reusable by any test that needs an OpenAI-compatible endpoint (consolidation, the chat proxy):

    with FakeOpenAI() as server:
        server.reply(chat_answer('{"content": "..."}'))          # queued answers, served in order
        server.reply(Reply(status=429, body={"error": {...}}))  # then the default answer, once the queue is empty
        client = ChatClient(base_url=server.base_url, model="fake")
        ...
        server.requests[0].json                                 # what the client sent

A queued chat answer is streamed as server-sent events when the request asks for `"stream": true`.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    body: dict | str | bytes = ""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before answering: longer than the client's timeout makes a timeout


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body or b"null")


def chat_answer(
    content: str | None,
    *,
    reasoning_content: str | None = None,
    reasoning: str | None = None,
    finish_reason: str = "stop",
    model: str = "fake-model",
    prompt_tokens: int = 10,
    completion_tokens: int = 5,
) -> Reply:
    """A `/v1/chat/completions` answer with this message content (and, if given, a reasoning field)."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if reasoning_content is not None:
        message["reasoning_content"] = reasoning_content
    if reasoning is not None:
        message["reasoning"] = reasoning
    return Reply(
        body={
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
    )


def _sse_chunks(body: dict) -> list[bytes]:
    """The same answer as a stream: role, the content in pieces, the finish reason, usage, [DONE]."""
    choice = body["choices"][0]
    content = choice["message"].get("content") or ""
    base = {"id": body["id"], "object": "chat.completion.chunk", "created": body["created"], "model": body["model"]}
    deltas = [{"role": "assistant"}] + [{"content": content[i : i + 8]} for i in range(0, len(content), 8)]
    events = [base | {"choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas]
    events.append(base | {"choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]})
    events.append(base | {"choices": [], "usage": body.get("usage")})
    return [f"data: {json.dumps(e)}\n\n".encode() for e in events] + [b"data: [DONE]\n\n"]


class FakeOpenAI:
    def __init__(self, default: Reply | None = None):
        self.default = default or chat_answer("{}")
        self.requests: list[Received] = []
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- scripting -------------------------------------------------------------------------------------------
    def reply(self, *replies: Reply) -> FakeOpenAI:
        with self._lock:
            self._queue.extend(replies)
        return self

    def _next(self) -> Reply:
        with self._lock:
            return self._queue.popleft() if self._queue else self.default

    @property
    def base_url(self) -> str:
        assert self._server is not None, "start the server first (use it as a context manager)"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    @property
    def chat_requests(self) -> list[Received]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    # --- lifecycle -------------------------------------------------------------------------------------------
    def __enter__(self) -> FakeOpenAI:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # keep test output clean
                pass

            def do_GET(self):
                fake._record(self, b"")
                if self.path.rstrip("/").endswith("/models"):
                    fake._send(self, Reply(body={"object": "list", "data": [{"id": "fake-model", "object": "model"}]}))
                else:
                    fake._send(self, Reply(status=404, body={"error": {"message": "not found"}}))

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                received = fake._record(self, body)
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    fake._send(self, Reply(status=404, body={"error": {"message": "not found"}}))
                    return
                reply = fake._next()
                if reply.delay and fake._stopping.wait(reply.delay):
                    return
                try:
                    wants_stream = bool(received.json.get("stream"))
                except (ValueError, AttributeError):
                    wants_stream = False
                if wants_stream and reply.status == 200 and isinstance(reply.body, dict) and "choices" in reply.body:
                    fake._stream(self, reply)
                else:
                    fake._send(self, reply)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-openai", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    # --- HTTP ------------------------------------------------------------------------------------------------
    def _record(self, handler: BaseHTTPRequestHandler, body: bytes) -> Received:
        received = Received(handler.command, handler.path, {k.lower(): v for k, v in handler.headers.items()}, body)
        with self._lock:
            self.requests.append(received)
        return received

    @staticmethod
    def _send(handler: BaseHTTPRequestHandler, reply: Reply) -> None:
        if isinstance(reply.body, dict | list):
            payload, content_type = json.dumps(reply.body).encode(), "application/json"
        elif isinstance(reply.body, str):
            payload, content_type = reply.body.encode(), "text/plain; charset=utf-8"
        else:
            payload, content_type = reply.body, "application/octet-stream"
        try:
            handler.send_response(reply.status)
            handler.send_header("Content-Type", reply.headers.get("Content-Type", content_type))
            handler.send_header("Content-Length", str(len(payload)))
            for name, value in reply.headers.items():
                if name.lower() != "content-type":
                    handler.send_header(name, value)
            handler.end_headers()
            handler.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test)

    @staticmethod
    def _stream(handler: BaseHTTPRequestHandler, reply: Reply) -> None:
        try:
            handler.send_response(200)
            handler.send_header("Content-Type", "text/event-stream")
            handler.send_header("Cache-Control", "no-cache")
            handler.send_header("Connection", "close")
            handler.end_headers()
            for chunk in _sse_chunks(reply.body):  # type: ignore[arg-type]
                handler.wfile.write(chunk)
                handler.wfile.flush()
            handler.close_connection = True
        except (BrokenPipeError, ConnectionResetError):
            pass
