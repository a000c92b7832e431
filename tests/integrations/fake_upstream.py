"""A real HTTP server on 127.0.0.1 that plays an OpenAI-compatible model, for the chat proxy's tests.

A test gives it a `behaviour(body) -> Reply` and it answers /v1/chat/completions with it, as JSON or, when the
request asks to stream, as SSE chunks cut the way real providers cut them (text in pieces, tool-call arguments in
two deltas, usage in a last chunk when `stream_options.include_usage` is set). Every request is kept in
`requests` so a test can assert what the upstream saw.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    content: str | None = None
    tool_calls: list[dict] = field(default_factory=list)  # [{"name": ..., "arguments": {...}}]
    status: int = 200
    error: str = ""
    delay: float = 0.0  # seconds before answering (cut short when the server stops)
    # Streaming only: after the first chunk, wait for this event before sending the rest.
    hold_after_first_chunk: threading.Event | None = None
    usage: tuple[int, int] = (11, 7)
    ignore_stream: bool = False  # answer JSON even when asked to stream, as some servers do


Behaviour = Callable[[dict[str, Any]], Reply]


def tool_names(body: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools") or []]


def tool_results(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m.get("role") == "tool"]


def system_prompt(body: dict[str, Any]) -> str:
    first = body["messages"][0]
    return first["content"] if first.get("role") == "system" and isinstance(first["content"], str) else ""


class FakeUpstream:
    def __init__(self, behaviour: Behaviour | None = None):
        self.behaviour: Behaviour = behaviour or (lambda body: Reply(content="Plain answer."))
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.holds: list[bool] = []  # per held stream: was it released before the wait ran out?
        self.stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> FakeUpstream:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_GET(self):
                if self.path.rstrip("/") == "/v1/models":
                    self._json(200, {"object": "list", "data": [{"id": "fake-model", "object": "model"}]})
                else:
                    self._json(404, {"error": {"message": "not found"}})

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                fake.requests.append(body)
                fake.headers.append(dict(self.headers))
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._json(404, {"error": {"message": f"no route {self.path}"}})
                    return
                reply = fake.behaviour(body)
                if reply.delay and fake.stopping.wait(reply.delay):
                    return
                if reply.status >= 400:
                    self._json(reply.status, {"error": {"message": reply.error or "upstream failure", "type": "x"}})
                elif body.get("stream") and not reply.ignore_stream:
                    self._stream(body, reply)
                else:
                    self._json(200, completion(body, reply))

            def _json(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, body: dict, reply: Reply) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()  # HTTP/1.0: the stream ends when the connection closes
                for index, chunk in enumerate(stream_chunks(body, reply)):
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                    if index == 0 and reply.hold_after_first_chunk is not None:
                        fake.holds.append(reply.hold_after_first_chunk.wait(15))
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self) -> FakeUpstream:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def _calls(reply: Reply) -> list[dict]:
    return [
        {
            "id": f"call_{i}",
            "type": "function",
            "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])},
        }
        for i, c in enumerate(reply.tool_calls)
    ]


def completion(body: dict, reply: Reply) -> dict:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        message["tool_calls"] = _calls(reply)
    prompt, answer = reply.usage
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1700000000,
        "model": body.get("model", "fake-model"),
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if reply.tool_calls else "stop"}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": answer, "total_tokens": prompt + answer},
    }


def stream_chunks(body: dict, reply: Reply) -> list[dict]:
    def chunk(delta: dict, finish: str | None = None) -> dict:
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": 1700000000,
            "model": body.get("model", "fake-model"),
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    chunks = [chunk({"role": "assistant", "content": ""})]
    text = reply.content or ""
    for start in range(0, len(text), 5):
        chunks.append(chunk({"content": text[start : start + 5]}))
    for index, call in enumerate(_calls(reply)):
        arguments = call["function"]["arguments"]
        half = len(arguments) // 2
        first = {
            "index": index,
            "id": call["id"],
            "type": "function",
            "function": {"name": call["function"]["name"], "arguments": arguments[:half]},
        }
        chunks.append(chunk({"tool_calls": [first]}))
        chunks.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": arguments[half:]}}]}))
    chunks.append(chunk({}, "tool_calls" if reply.tool_calls else "stop"))
    if (body.get("stream_options") or {}).get("include_usage"):
        prompt, answer = reply.usage
        usage = {"prompt_tokens": prompt, "completion_tokens": answer, "total_tokens": prompt + answer}
        chunks.append(chunk({}) | {"choices": [], "usage": usage})
    return chunks
