"""The chat proxy's upstream provider, any OpenAI-compatible endpoint, over httpx: where to send, with which key,
and how its failures read to the proxy's own client (`ProxyError`, OpenAI's error shape).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import httpx
from django.conf import settings


class ProxyError(Exception):
    """A request the proxy answers with an OpenAI-shaped error: {"error": {message, type, param, code}}."""

    def __init__(
        self,
        message: str,
        *,
        status: int = 400,
        type: str = "invalid_request_error",
        code: str | None = None,
        param: str | None = None,
        headers: dict[str, str] | None = None,
    ):
        super().__init__(message)
        self.message = message
        self.status = status
        self.type = type
        self.code = code
        self.param = param
        self.headers = headers or {}

    def body(self) -> dict[str, Any]:
        return {"error": {"message": self.message, "type": self.type, "param": self.param, "code": self.code}}


def upstream_error(message: str, *, status: int = 502, code: str = "upstream_error", **kwargs: Any) -> ProxyError:
    return ProxyError(message, status=status, type="upstream_error", code=code, **kwargs)


_client: httpx.Client | None = None


def _http() -> httpx.Client:
    global _client
    if _client is None:
        # One pooled client per process; httpx.Client is safe to share between threads.
        _client = httpx.Client(limits=httpx.Limits(max_connections=32, max_keepalive_connections=8))
    return _client


def upstream_url(path: str) -> str:
    """`path` under the configured base URL. A base with no path (http://host:11434) means its /v1."""
    base = (settings.MEMORYHUB_UPSTREAM_BASE_URL or "").strip().rstrip("/")
    if not base:
        raise ProxyError(
            "the chat proxy has no upstream model: set MEMORYHUB_UPSTREAM_BASE_URL", status=503,
            type="server_error", code="upstream_not_configured",
        )  # fmt: skip
    for suffix in ("/chat/completions", "/models"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
    if not urlsplit(base).path.strip("/"):
        base += "/v1"
    return f"{base}/{path.lstrip('/')}"


def _headers(*, stream: bool) -> dict[str, str]:
    # The client's Authorization is its MemoryHub token: never forwarded; the upstream gets our own key.
    headers = {"Content-Type": "application/json", "Accept": "text/event-stream" if stream else "application/json"}
    if settings.MEMORYHUB_UPSTREAM_API_KEY:
        headers["Authorization"] = f"Bearer {settings.MEMORYHUB_UPSTREAM_API_KEY}"
    return headers


def _timeout() -> httpx.Timeout:
    seconds = settings.MEMORYHUB_UPSTREAM_TIMEOUT
    return httpx.Timeout(seconds, connect=min(seconds, 10.0))


def transport_error(exc: httpx.HTTPError) -> ProxyError:
    if isinstance(exc, httpx.TimeoutException):
        return upstream_error(
            f"the upstream model did not answer within {settings.MEMORYHUB_UPSTREAM_TIMEOUT:g} s",
            status=504, code="upstream_timeout",
        )  # fmt: skip
    return upstream_error(f"could not reach the upstream model: {exc.__class__.__name__}", code="upstream_unreachable")


def _status_error(response: httpx.Response) -> ProxyError:
    """An upstream refusal as the client should see it: the client's own mistakes keep their status; the upstream's
    failures, and its refusal of our key, are a bad gateway."""
    message = response.text[:300]
    try:
        data = response.json()
    except ValueError:
        data = None
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            message = error["message"]
        elif isinstance(error, str):
            message = error
        elif isinstance(data.get("detail"), str):
            message = data["detail"]
    status = response.status_code
    text = f"the upstream model answered HTTP {status}: {message}"
    if status in (401, 403):
        return upstream_error(f"the upstream refused the proxy's key (MEMORYHUB_UPSTREAM_API_KEY): {message}")
    if status == 429:
        retry = {"Retry-After": response.headers["retry-after"]} if "retry-after" in response.headers else None
        return ProxyError(text, status=429, type="rate_limit_error", code="upstream_rate_limited", headers=retry)
    if 400 <= status < 500:
        return ProxyError(text, status=status, type="invalid_request_error", code="upstream_rejected")
    return upstream_error(text)


def _json_object(response: httpx.Response, what: str) -> dict[str, Any]:
    """The upstream's answer as a JSON object, or the ProxyError that says what was wrong with it."""
    if response.status_code >= 400:
        raise _status_error(response)
    try:
        data = response.json()
    except ValueError as exc:
        raise upstream_error(f"{what} is not JSON", code="malformed_response") from exc
    if not isinstance(data, dict):
        raise upstream_error(f"{what} is not a JSON object", code="malformed_response")
    return data


def post_json(body: dict[str, Any]) -> dict[str, Any]:
    try:
        response = _http().post(upstream_url("chat/completions"), json=body, headers=_headers(stream=False),
                                timeout=_timeout())  # fmt: skip
    except httpx.HTTPError as exc:
        raise transport_error(exc) from exc
    return _json_object(response, "the upstream model's answer")


def open_upstream_stream(body: dict[str, Any]) -> httpx.Response:
    client = _http()
    request = client.build_request("POST", upstream_url("chat/completions"), json=body,
                                   headers=_headers(stream=True), timeout=_timeout())  # fmt: skip
    try:
        response = client.send(request, stream=True)
    except httpx.HTTPError as exc:
        raise transport_error(exc) from exc
    if response.status_code >= 400:
        try:
            response.read()
        except httpx.HTTPError as exc:
            raise transport_error(exc) from exc
        finally:
            response.close()
        raise _status_error(response)
    return response


def list_models() -> dict[str, Any]:
    try:
        response = _http().get(upstream_url("models"), headers=_headers(stream=False), timeout=_timeout())
    except httpx.HTTPError as exc:
        raise transport_error(exc) from exc
    data = _json_object(response, "the upstream's model list")
    if not isinstance(data.get("data"), list):
        raise upstream_error("the upstream's model list has no data array", code="malformed_response")
    return data
