"""The HTTP calls of the client: one small class over urllib, so the package needs nothing beyond the standard
library. `send` is swappable (a test hands in the app itself)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

DEFAULT_URL = "http://127.0.0.1:8000"

# (method, url, headers, body, timeout) -> (status, body)
Send = Callable[[str, str, dict[str, str], bytes | None, float], tuple[int, bytes]]


class ClientError(Exception):
    pass


def send_with_urllib(method: str, url: str, headers: dict[str, str], body: bytes | None, timeout: float):
    request = urllib.request.Request(url, data=body, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:  # an answer all the same: its status and body say why
        return exc.code, exc.read()
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ClientError(f"cannot reach MemoryHub at {url}: {reason}") from exc


class MemoryHubClient:
    def __init__(self, url: str, token: str, *, timeout: float = 30.0, send: Send | None = None):
        self.base = url.rstrip("/") + "/api/v1/"
        self.headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
        self.timeout = timeout
        self.send = send or send_with_urllib

    def _call(self, method: str, path: str, body: dict[str, Any] | None, ok: tuple[int, ...]) -> dict[str, Any]:
        headers = dict(self.headers)
        data = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            data = json.dumps(body).encode("utf-8")
        status, raw = self.send(method, self.base + path, headers, data, self.timeout)
        try:
            answer = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise ClientError(f"HTTP {status}: not a JSON answer") from exc
        if status not in ok:
            error = answer.get("error", {}) if isinstance(answer, dict) else {}
            message = error.get("message") if isinstance(error, dict) else None
            raise ClientError(f"HTTP {status}: {message or answer}")
        if not isinstance(answer, dict):
            raise ClientError(f"HTTP {status}: the answer is not a JSON object")
        return answer

    def whoami(self) -> dict[str, Any]:
        return self._call("GET", "whoami", None, (200,))

    def store(self, **fields: Any) -> dict[str, Any]:
        body = {k: v for k, v in fields.items() if v not in (None, [])}
        return self._call("POST", "memories", body, (200, 201, 422))

    def search(self, **fields: Any) -> dict[str, Any]:
        return self._call("POST", "search", {k: v for k, v in fields.items() if v is not None}, (200,))

    def recall(self, **fields: Any) -> dict[str, Any]:
        return self._call("POST", "recall", {k: v for k, v in fields.items() if v is not None}, (200,))
