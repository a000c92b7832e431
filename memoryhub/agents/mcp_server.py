"""MemoryHub as an MCP server (the official `mcp` SDK): the memory tools, and the recall block as a resource and a
prompt, for agents that speak MCP rather than our REST API.

Three ways in, one server definition (`build_server`):
- streamable HTTP at `/mcp` on the main server: Django (WSGI, waitress) hands each request to the SDK's session
  manager running on a private event loop thread (`serve_django_request`). Stateless with JSON answers, so each
  POST is one complete exchange and no session or open stream ties a client to a worker thread;
- `python manage.py mcp --http --port N`: the same handler as its own ASGI app under uvicorn;
- stdio: `python manage.py mcp` or `python -m memoryhub.agents.mcp_server`, for agents that launch their MCP servers.

Over HTTP the caller is the bearer token (the same tokens as the REST API) and the project comes from the
`X-MemoryHub-Project` header or the token's only project. Over stdio the process runs as MEMORYHUB_TOKEN's agent
when that is set, otherwise as a local agent with full access (it can open the database file anyway).

Django-dependent imports stay inside functions: `python -m memoryhub.agents.mcp_server` imports this module before
Django is set up.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import os
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote, urlsplit

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError

if TYPE_CHECKING:
    from django.http import HttpRequest, HttpResponse

    from memoryhub.agents.tokens import Agent

logger = logging.getLogger(__name__)

SERVER_NAME = "memoryhub"
RECALL_URI = "memoryhub://recall"
RECALL_TEMPLATE = "memoryhub://recall/{project}"
CALLER_KEY = "memoryhub.caller"  # where the HTTP entry points leave the authenticated caller in the ASGI scope
PROJECT_HEADER = "x-memoryhub-project"
HTTP_TIMEOUT_SECONDS = 120.0
RESOURCE_NOT_FOUND = -32002
NOT_ALLOWED = -32003
EMPTY_RECALL = "Memory: nothing stored for this project yet."
INSTRUCTIONS = (
    "MemoryHub is your long-term memory across sessions. Read the recall block (resource memoryhub://recall or "
    "prompt 'recall') at the start of a task: it is the person's preferences and the project's known facts. "
    "Use memory_search for anything not in it, memory_store for ONE lasting fact, decision, gotcha or how-to at a "
    "time (never secrets or session logs), memory_update to correct one, memory_refresh when one helped."
)


@dataclass(frozen=True)
class Caller:
    agent: Agent
    project: str | None


_local_caller: Caller | None = None  # the stdio process's caller


def instructions_for(caller: Caller | None) -> str:
    """The server's instructions, naming where this connection reads and writes."""
    if caller is None:
        return INSTRUCTIONS
    if caller.project:
        where = (
            f"This connection works in project {caller.project!r}: memory_store writes there and searches cover it "
            "and the global memories, unless a call names another project. "
        )
    else:
        where = (
            "This connection names no project: give `project` to memory_store and memory_search (or connect with "
            "the X-MemoryHub-Project header); memory_store refuses a write without one, except with "
            '"scope": "global" for a memory every project sees. '
        )
    return where + INSTRUCTIONS


class _MemoryServer(Server):
    def create_initialization_options(self, *args: Any, **kwargs: Any):
        options = super().create_initialization_options(*args, **kwargs)
        # The stdio process has one caller; over HTTP the SDK answers `initialize` without the request at hand, so
        # there the resource's description and every tool answer (`scope`) name the project instead.
        return options.model_copy(update={"instructions": instructions_for(_local_caller)})


def _caller(ctx: Any) -> Caller:
    request = getattr(ctx, "request", None)
    if request is not None:
        caller = request.scope.get(CALLER_KEY)
        if caller is None:  # only reachable if a new HTTP entry point forgets to authenticate
            raise MCPError(types.INVALID_REQUEST, "this request is not authenticated")
        return caller
    if _local_caller is None:
        raise MCPError(types.INVALID_REQUEST, "no MemoryHub agent is configured for this connection")
    return _local_caller


async def _in_thread(fn, /, *args: Any, **kwargs: Any) -> Any:
    """Django's ORM is synchronous and refuses to run on an event loop: every domain call goes to a worker thread."""
    return await anyio.to_thread.run_sync(functools.partial(_as_django_request, fn, *args, **kwargs))


def _as_django_request(fn, /, *args: Any, **kwargs: Any) -> Any:
    # Worker threads never see Django's request_finished signal: close the connection as a request would, so no
    # thread keeps a handle on a database file that a restore has since replaced.
    from django.db import close_old_connections

    try:
        return fn(*args, **kwargs)
    finally:
        close_old_connections()


# --- tools ---------------------------------------------------------------------------------------------------------


def _tool(schema: dict) -> types.Tool:
    function = schema["function"]
    return types.Tool(name=function["name"], description=function["description"], input_schema=function["parameters"])


async def _list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    from memoryhub.agents.proxy import memory_tools_for

    return types.ListToolsResult(tools=[_tool(t) for t in memory_tools_for(_caller(ctx).agent)])


def _run_tool(caller: Caller, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
    from memoryhub.agents.tools import ToolError, call_tool
    from memoryhub.embeddings import EmbeddingError

    try:
        answer = call_tool(name=name, arguments=arguments, agent=caller.agent, default_project=caller.project)
    except ToolError as exc:
        # A tool error the model can read and correct, not a protocol failure (the MCP spec's advice).
        return types.CallToolResult(content=[types.TextContent(type="text", text=exc.message)], is_error=True)
    except EmbeddingError as exc:
        text = f"memory search is unavailable right now: {exc}"
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)
    result = answer["result"]
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(result, ensure_ascii=False))],
        structured_content=result,
        is_error=not answer["ok"],
    )


async def _call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    return await _in_thread(_run_tool, _caller(ctx), params.name, dict(params.arguments or {}))


# --- recall as a resource and a prompt -----------------------------------------------------------------------------


def recall_text(caller: Caller, project: str | None, query: str | None = None, as_of: str | None = None) -> str:
    from django.conf import settings
    from django.core.exceptions import ValidationError

    from memoryhub.agents.tokens import AccessDenied
    from memoryhub.memories.validity import parse_moment
    from memoryhub.retrieval.recall import build_recall

    try:
        caller.agent.check_read(project)
        moment = parse_moment(as_of, "as_of")
    except AccessDenied as exc:
        raise MCPError(NOT_ALLOWED, str(exc)) from exc
    except ValidationError as exc:
        raise MCPError(types.INVALID_PARAMS, "as_of " + " ".join(exc.messages)) from exc
    block = build_recall(
        project=project, query=(query or "").strip()[:2000] or None,
        budget_chars=settings.MEMORYHUB_RECALL_BUDGET_CHARS, allowed_projects=caller.agent.projects, as_of=moment,
    )  # fmt: skip
    return block.text or EMPTY_RECALL


def _recall_target(caller: Caller, uri: str) -> tuple[str | None, str | None, str | None]:
    """memoryhub://recall[/<project>][?query=...&as_of=...] -> (project, query, as_of)."""
    parts = urlsplit(uri)
    if parts.scheme != "memoryhub" or parts.netloc != "recall":
        raise MCPError(RESOURCE_NOT_FOUND, f"no resource {uri!r}; try {RECALL_URI}")
    project = unquote(parts.path.strip("/")) or caller.project
    asked = parse_qs(parts.query)
    return project, (asked.get("query") or [None])[0], (asked.get("as_of") or [None])[0]


async def _list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
    caller = _caller(ctx)
    scope = f"project {caller.project!r}" if caller.project else "global memories (no project chosen)"
    resource = types.Resource(
        uri=RECALL_URI, name="recall", title="MemoryHub recall",
        description=f"What to know before starting: preferences and known facts for {scope}.",
        mime_type="text/plain",
    )  # fmt: skip
    return types.ListResourcesResult(resources=[resource])


async def _list_resource_templates(ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
    template = types.ResourceTemplate(
        uri_template=RECALL_TEMPLATE, name="recall-project", title="MemoryHub recall for a project",
        description="The recall block of one project (add ?query=... to include what matches a question, "
        "&as_of=<ISO 8601 date> for what was true then).",
        mime_type="text/plain",
    )  # fmt: skip
    return types.ListResourceTemplatesResult(resource_templates=[template])


async def _read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
    caller = _caller(ctx)
    uri = str(params.uri)
    project, query, as_of = _recall_target(caller, uri)
    text = await _in_thread(recall_text, caller, project, query, as_of)
    return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, mime_type="text/plain", text=text)])


async def _list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
    prompt = types.Prompt(
        name="recall", title="Recall from MemoryHub",
        description="Put what MemoryHub knows about the project (and the task, if given) into the conversation.",
        arguments=[
            types.PromptArgument(name="query", description="The task or question, to include what matches it."),
            types.PromptArgument(name="project", description="The project; defaults to the connection's."),
            types.PromptArgument(name="as_of", description="An ISO 8601 date: what was true then instead of now."),
        ],
    )  # fmt: skip
    return types.ListPromptsResult(prompts=[prompt])


async def _get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
    if params.name != "recall":
        raise MCPError(types.INVALID_PARAMS, f"no prompt {params.name!r}; the prompt is 'recall'")
    caller = _caller(ctx)
    arguments = params.arguments or {}
    text = await _in_thread(recall_text, caller, arguments.get("project") or caller.project, arguments.get("query"),
                            arguments.get("as_of"))  # fmt: skip
    message = types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))
    return types.GetPromptResult(description="MemoryHub recall", messages=[message])


def build_server() -> Server:
    return _MemoryServer(
        SERVER_NAME,
        version="1.0.0",
        title="MemoryHub",
        instructions=INSTRUCTIONS,
        on_list_tools=_list_tools,
        on_call_tool=_call_tool,
        on_list_resources=_list_resources,
        on_list_resource_templates=_list_resource_templates,
        on_read_resource=_read_resource,
        on_list_prompts=_list_prompts,
        on_get_prompt=_get_prompt,
    )


def _session_manager(security: TransportSecuritySettings | None) -> StreamableHTTPSessionManager:
    # Stateless + JSON: nothing outlives one POST, so any server thread or process can answer any request.
    return StreamableHTTPSessionManager(app=build_server(), json_response=True, stateless=True,
                                        security_settings=security)  # fmt: skip


# --- HTTP: authentication shared by both entry points --------------------------------------------------------------


class HttpRefusal(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message

    def body(self) -> bytes:
        error = {"jsonrpc": "2.0", "id": None, "error": {"code": types.INVALID_REQUEST, "message": self.message}}
        return json.dumps(error).encode()

    def headers(self) -> list[tuple[str, str]]:
        headers = [("content-type", "application/json")]
        if self.status == 401:
            headers.append(("www-authenticate", 'Bearer realm="memoryhub"'))
        return headers


def authenticate(authorization: str, project_header: str) -> Caller:
    """The caller of an HTTP request from its Authorization and X-MemoryHub-Project headers, or HttpRefusal."""
    from memoryhub.agents.proxy import ProxyError, resolve_project
    from memoryhub.agents.tokens import Agent, verify_token

    scheme, _, raw = (authorization or "").partition(" ")
    if not authorization:
        raise HttpRefusal(401, "send your MemoryHub token as 'Authorization: Bearer <token>'")
    token = verify_token(raw.strip()) if scheme.lower() == "bearer" else None
    if token is None:
        raise HttpRefusal(401, "the token is not valid or has been revoked")
    agent = Agent.from_token(token)
    try:
        return Caller(agent=agent, project=resolve_project(agent, project_header))
    except ProxyError as exc:
        raise HttpRefusal(exc.status, exc.message) from exc


# --- HTTP inside the WSGI server -----------------------------------------------------------------------------------


class _LoopBridge:
    """The SDK's session manager on its own event loop thread; WSGI threads hand it one request at a time."""

    def __init__(self) -> None:
        # Django already checked Host against ALLOWED_HOSTS; the Origin check is done by the view.
        self.manager = _session_manager(TransportSecuritySettings(enable_dns_rebinding_protection=False))
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()
        self.failure: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(ready,), name="memoryhub-mcp", daemon=True)
        self.thread.start()
        if not ready.wait(30) or self.failure is not None:
            raise RuntimeError(f"the MCP session manager did not start: {self.failure!r}")

    def _run(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_until_complete(self._serve(ready))
        except BaseException as exc:  # noqa: BLE001 - reported to the thread that waits for `ready`
            self.failure = exc
            ready.set()

    async def _serve(self, ready: threading.Event) -> None:
        async with self.manager.run():
            ready.set()
            await asyncio.Event().wait()  # the daemon thread lives as long as the process

    def call(self, scope: dict, body: bytes, timeout: float) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        future = asyncio.run_coroutine_threadsafe(self._exchange(scope, body), self.loop)
        try:
            return future.result(timeout)
        except TimeoutError:
            future.cancel()
            raise

    async def _exchange(self, scope: dict, body: bytes) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        answered = asyncio.Event()
        delivered = False
        start: dict[str, Any] = {"status": 500, "headers": []}
        chunks: list[bytes] = []

        async def receive() -> dict:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            await answered.wait()  # the client "disconnects" only once the answer is complete
            return {"type": "http.disconnect"}

        async def send(message: dict) -> None:
            if message["type"] == "http.response.start":
                start["status"], start["headers"] = message["status"], list(message.get("headers") or [])
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if not message.get("more_body"):
                    answered.set()

        try:
            await self.manager.handle_request(scope, receive, send)
        finally:
            answered.set()
        return start["status"], start["headers"], b"".join(chunks)


_bridge: _LoopBridge | None = None
_bridge_lock = threading.Lock()


def _get_bridge() -> _LoopBridge:
    global _bridge
    with _bridge_lock:
        if _bridge is None:
            _bridge = _LoopBridge()
        return _bridge


def _origin_allowed(request: HttpRequest) -> bool:
    """A browser page on another site must not drive the memory store (DNS rebinding, CSRF); agents send no Origin."""
    origin = request.headers.get("Origin")
    if not origin:
        return True
    return urlsplit(origin).netloc.lower() == request.get_host().lower()


def serve_django_request(request: HttpRequest) -> HttpResponse:
    from django.core.exceptions import RequestDataTooBig
    from django.http import HttpResponse

    def refuse(refusal: HttpRefusal, extra: dict[str, str] | None = None) -> HttpResponse:
        response = HttpResponse(refusal.body(), status=refusal.status, content_type="application/json")
        for name, value in [*refusal.headers()[1:], *(extra or {}).items()]:
            response[name] = value
        return response

    if request.method != "POST":
        # Stateless, JSON answers: there is no server-to-client stream to GET and no session to DELETE.
        return refuse(HttpRefusal(405, "use POST: this MCP endpoint is stateless"), {"Allow": "POST"})
    if not _origin_allowed(request):
        return refuse(HttpRefusal(403, "cross-origin requests are not accepted"))
    try:
        caller = authenticate(request.headers.get("Authorization", ""), request.headers.get(PROJECT_HEADER, ""))
        body = request.body
    except HttpRefusal as refusal:
        return refuse(refusal)
    except RequestDataTooBig:
        return refuse(HttpRefusal(413, "the request body is larger than MEMORYHUB_MAX_BODY_BYTES"))
    host = request.get_host()
    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": request.scheme,
        "path": request.path,
        "raw_path": request.path.encode("latin-1", "replace"),
        "root_path": "",
        "query_string": request.META.get("QUERY_STRING", "").encode("latin-1", "replace"),
        "headers": [(k.lower().encode("latin-1"), v.encode("latin-1", "replace")) for k, v in request.headers.items()],
        "client": (request.META.get("REMOTE_ADDR") or "127.0.0.1", 0),
        "server": (host.rsplit(":", 1)[0], int(request.get_port() or 80)),
        "state": {},
        CALLER_KEY: caller,
    }
    try:
        status, headers, content = _get_bridge().call(scope, body, HTTP_TIMEOUT_SECONDS)
    except TimeoutError:
        return refuse(HttpRefusal(504, f"the MCP request took longer than {HTTP_TIMEOUT_SECONDS:g} s"))
    except Exception:
        logger.exception("the MCP endpoint failed")
        return refuse(HttpRefusal(500, "the MCP endpoint failed on this request; see the server log"))
    response = HttpResponse(content, status=status)
    for name, value in headers:
        key = name.decode("latin-1")
        if key.lower() not in ("content-length", "transfer-encoding", "connection"):
            response[key] = value.decode("latin-1")
    return response


# --- HTTP as its own ASGI app (manage.py mcp --http) ---------------------------------------------------------------


def asgi_app(*, host: str = "127.0.0.1"):
    """A Starlette app serving /mcp with the same bearer tokens, for uvicorn."""
    from starlette.applications import Starlette
    from starlette.routing import Route

    security = None
    if host in ("127.0.0.1", "localhost", "::1"):
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
            allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
        )
    manager = _session_manager(security)

    class Endpoint:
        """An ASGI app (a class, because Starlette would wrap a plain function as request -> response)."""

        async def __call__(self, scope, receive, send) -> None:
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
            authorization, project = headers.get("authorization", ""), headers.get(PROJECT_HEADER, "")
            try:
                caller = await _in_thread(authenticate, authorization, project)
            except HttpRefusal as refusal:
                raw_headers = [(k.encode(), v.encode()) for k, v in refusal.headers()]
                await send({"type": "http.response.start", "status": refusal.status, "headers": raw_headers})
                await send({"type": "http.response.body", "body": refusal.body()})
                return
            await manager.handle_request({**scope, CALLER_KEY: caller}, receive, send)

    return Starlette(routes=[Route("/mcp", endpoint=Endpoint(), methods=["POST"])], lifespan=lambda app: manager.run())


# --- stdio ---------------------------------------------------------------------------------------------------------


def local_caller(*, token: str | None, agent_name: str, project: str | None) -> Caller:
    """The stdio process's caller: MEMORYHUB_TOKEN's agent when given, else a local agent with full access."""
    from memoryhub.agents.proxy import ProxyError, resolve_project
    from memoryhub.agents.tokens import Agent, verify_token

    if token:
        row = verify_token(token)
        if row is None:
            raise ValueError("MEMORYHUB_TOKEN is not a valid MemoryHub token (revoked?)")
        agent = Agent.from_token(row)
    else:
        agent = Agent(name=agent_name)
    try:
        return Caller(agent=agent, project=resolve_project(agent, project))
    except ProxyError as exc:
        raise ValueError(exc.message) from exc


def run_stdio(caller: Caller) -> None:
    from mcp.server.stdio import stdio_server

    global _local_caller
    _local_caller = caller
    server = build_server()

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(main)


def main() -> None:
    """`python -m memoryhub.agents.mcp_server`: the stdio server, configured from the environment."""
    import sys

    import django

    from memoryhub.startup import load_settings_or_exit

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")
    load_settings_or_exit("memoryhub mcp")
    django.setup()
    try:
        caller = local_caller(
            token=os.environ.get("MEMORYHUB_TOKEN"), agent_name=os.environ.get("MEMORYHUB_AGENT", "mcp"),
            project=os.environ.get("MEMORYHUB_PROJECT"),
        )  # fmt: skip
    except ValueError as exc:
        print(f"memoryhub mcp: {exc}", file=sys.stderr)
        raise SystemExit(2) from exc
    run_stdio(caller)


if __name__ == "__main__":
    main()
