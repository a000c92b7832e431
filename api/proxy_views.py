"""The OpenAI-compatible chat proxy (`/v1/chat/completions`, `/v1/models`) and the MCP endpoint (`/mcp`).

Thin: authenticate the bearer token, pick the project, call `memoryhub.agents.proxy` or
`memoryhub.agents.mcp_server`, respond.
Not DRF, because OpenAI clients expect OpenAI's error shape and a raw SSE stream, and MCP clients JSON-RPC.
"""

from __future__ import annotations

import json
import logging

from django.core.exceptions import DisallowedHost, RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.views.decorators.csrf import csrf_exempt

from memoryhub.agents import proxy
from memoryhub.agents.proxy import ProxyError
from memoryhub.agents.tokens import Agent, verify_token

logger = logging.getLogger(__name__)

PROJECT_HEADER = "X-MemoryHub-Project"
MAX_BODY_DEPTH = 64


def error_response(exc: ProxyError) -> JsonResponse:
    response = JsonResponse(exc.body(), status=exc.status)
    for name, value in exc.headers.items():
        response[name] = value
    if exc.status == 401:
        response["WWW-Authenticate"] = 'Bearer realm="memoryhub"'
    return response


def authenticate(request: HttpRequest) -> Agent:
    """The same bearer tokens as the REST API; an OpenAI client sends its api_key exactly this way."""
    header = request.headers.get("Authorization", "")
    scheme, _, raw = header.partition(" ")
    if not header:
        raise ProxyError("send your MemoryHub token as 'Authorization: Bearer <token>' (the client's API key)",
                         status=401, type="authentication_error", code="missing_api_key")  # fmt: skip
    token = verify_token(raw.strip()) if scheme.lower() == "bearer" else None
    if token is None:
        raise ProxyError("the token is not valid or has been revoked", status=401, type="authentication_error",
                         code="invalid_api_key")  # fmt: skip
    return Agent.from_token(token)


def _json_body(request: HttpRequest):
    try:
        raw = request.body
    except RequestDataTooBig as exc:
        raise ProxyError("the request body is larger than MEMORYHUB_MAX_BODY_BYTES", status=413,
                         code="request_too_large") from exc  # fmt: skip
    try:
        body = json.loads(raw or b"null")
    except RecursionError as exc:
        raise ProxyError("the request body is nested too deeply") from exc
    except (ValueError, UnicodeDecodeError) as exc:
        raise ProxyError("the request body is not valid JSON") from exc
    why = _unsendable(body)
    if why:
        raise ProxyError(f"the request body {why}")
    return body


def _unsendable(value, depth: int = 0) -> str | None:
    """Why a parsed body cannot be passed on: JSON allows a lone surrogate (\\ud800) and any depth, but the
    upstream call must encode it as UTF-8 and the proxy walks it recursively."""
    if depth > MAX_BODY_DEPTH:
        return f"is nested more than {MAX_BODY_DEPTH} levels deep"
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return "holds text that is not valid Unicode (a lone surrogate)"
        return None
    if isinstance(value, dict):
        value = [*value.keys(), *value.values()]
    if isinstance(value, list):
        return next((why for item in value if (why := _unsendable(item, depth + 1))), None)
    return None


def _method_not_allowed(request: HttpRequest, allowed: str) -> ProxyError:
    return ProxyError(f"{request.method} is not allowed here; use {allowed}", status=405,
                      code="method_not_allowed", headers={"Allow": allowed})  # fmt: skip


def _answer(view):
    """Every failure, expected or not, leaves as OpenAI's error shape rather than Django's HTML page."""

    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        try:
            response = view(request, *args, **kwargs)
        except ProxyError as exc:
            response = error_response(exc)
        except DisallowedHost:
            raise
        except Exception:
            logger.exception("the chat proxy failed on %s", request.path)
            response = error_response(ProxyError("the proxy failed on this request; see the server log", status=500,
                                                 type="server_error", code="internal_error"))  # fmt: skip
        # Answers carry what the agents remember: no cache may keep them (as for /api/).
        response["Cache-Control"] = "no-store"
        return response

    wrapped.__name__ = view.__name__
    wrapped.__doc__ = view.__doc__
    return csrf_exempt(wrapped)


@_answer
def chat_completions(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        raise _method_not_allowed(request, "POST")
    agent = authenticate(request)
    project = proxy.resolve_project(agent, request.headers.get(PROJECT_HEADER))
    exchange = proxy.start_exchange(body=_json_body(request), agent=agent, project=project)
    if not exchange.stream:
        return JsonResponse(proxy.complete(exchange))
    response = StreamingHttpResponse(proxy.open_stream(exchange), content_type="text/event-stream")
    response["X-Accel-Buffering"] = "no"  # a reverse proxy in front must not hold the chunks back
    return response


@_answer
def models(request: HttpRequest) -> HttpResponse:
    if request.method != "GET":
        raise _method_not_allowed(request, "GET")
    authenticate(request)
    return JsonResponse(proxy.list_models())


@csrf_exempt
def mcp_endpoint(request: HttpRequest) -> HttpResponse:
    """MCP over streamable HTTP, stateless with JSON answers: each POST is one JSON-RPC exchange."""
    from memoryhub.agents import mcp_server  # the MCP SDK loads on the first /mcp request, not at every start

    response = mcp_server.serve_django_request(request)
    response["Cache-Control"] = "no-store"
    return response
