"""The benchmarks' timing client (bench.measure.LeanClient): one keep-alive connection, the headers and JSON body a
search sends, the status and body as the server answered them."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from bench.measure import LeanClient


class _Recorder(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as `serve` answers
    seen: list[dict] = []

    def _answer(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.seen.append({"method": "GET", "path": self.path, "peer": self.client_address[1],
                          "authorization": self.headers.get("Authorization")})  # fmt: skip
        self._answer(200 if self.path.endswith("/health") else 404, {"status": "ok"})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.seen.append({"method": "POST", "path": self.path, "peer": self.client_address[1], "body": body,
                          "type": self.headers.get("Content-Type")})  # fmt: skip
        self._answer(400 if "query" not in body else 200, {"echo": body})

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    _Recorder.seen = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def test_it_sends_every_call_over_one_connection_under_the_base_path(server):
    client = LeanClient(f"http://127.0.0.1:{server.server_port}/api/v1", {"Authorization": "Bearer t0ken"})
    try:
        assert client.get("/health") == (200, b'{"status": "ok"}')
        status, body = client.post("/search", {"query": "where are backups kept", "k": 3})
        assert status == 200
        assert json.loads(body) == {"echo": {"query": "where are backups kept", "k": 3}}
        assert client.get("/nowhere")[0] == 404
    finally:
        client.close()
    seen = _Recorder.seen
    assert [(s["method"], s["path"]) for s in seen] == [
        ("GET", "/api/v1/health"), ("POST", "/api/v1/search"), ("GET", "/api/v1/nowhere"),
    ]  # fmt: skip
    assert len({s["peer"] for s in seen}) == 1  # one connection, kept alive
    assert seen[0]["authorization"] == "Bearer t0ken"
    assert seen[1]["type"] == "application/json"


def test_it_returns_an_error_status_with_its_body(server):
    with LeanClient(f"http://127.0.0.1:{server.server_port}", {}) as client:
        status, body = client.post("/search", {"k": 3})
    assert status == 400
    assert json.loads(body) == {"echo": {"k": 3}}
