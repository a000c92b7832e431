"""The chat proxy: an OpenAI-compatible chat endpoint that remembers, in front of an upstream provider.

For every request the project's recall block goes into the system prompt and the memory tools are offered beside
the client's own tools. When the model calls a memory tool the proxy runs it here, appends the result and asks the
model again, so the client only ever sees the final answer; calls to the client's own tools go back to the client
untouched. After MAX_MEMORY_ROUNDS rounds the model is told to answer with what it has; a model that still asks for
a memory tool and says nothing is asked once more with every tool switched off, and if that brings no text either
the client gets NO_ANSWER, never an empty reply. Upstream failures become
OpenAI-shaped errors, and every request leaves one UsageRecord(kind="proxy") for the overview.

Streaming keeps the client's stream alive across memory rounds: text deltas are forwarded as they arrive, tool-call
deltas are held until the round ends (only then is it known whether they are ours), and the one stream the client
sees ends with our own finish chunk, the summed usage (when asked for) and `[DONE]`.
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
from django.conf import settings

from memoryhub.agents.tokens import Agent
from memoryhub.agents.tools import TOOL_NAMES, ToolError, call_tool, tool_schemas
from memoryhub.agents.upstream import (
    ProxyError,
    list_models,
    open_upstream_stream,
    post_json,
    transport_error,
    upstream_error,
)
from memoryhub.embeddings import EmbeddingError
from memoryhub.memories.bookkeeping import record_usage
from memoryhub.retrieval.query_text import MAX_QUERY_CHARS  # the one limit on what a search reads of a query
from memoryhub.retrieval.recall import build_recall

__all__ = ["ProxyError", "complete", "list_models", "open_stream", "resolve_project", "start_exchange"]

logger = logging.getLogger(__name__)

MAX_MEMORY_ROUNDS = 3
# A model that fans out dozens of parallel searches in one round gets the first few answered.
MAX_CALLS_PER_ROUND = 8
READ_ONLY_TOOLS = ("memory_search", "memory_list")
LIMIT_NOTE = (
    "Memory tool limit reached ({rounds} rounds in this request). Do not call memory tools again; "
    "answer now with what you already have."
)

NO_ANSWER = (
    "(MemoryHub: the model kept asking for memory tools after the limit of {rounds} rounds and gave no answer. "
    "Ask again, perhaps more precisely.)"
)


# --- who is asking and for which project ------------------------------------------------------------------------


def resolve_project(agent: Agent, requested: str | None) -> str | None:
    """The project named by the client's header, else the token's only project, else none (global memories only)."""
    requested = (requested or "").strip()
    if requested:
        if len(requested) > 200:
            raise ProxyError("X-MemoryHub-Project must be at most 200 characters", param="X-MemoryHub-Project")
        if not agent.may_see(requested):
            raise ProxyError(
                f"this token may not use project {requested!r}", status=403, type="permission_error",
                code="project_not_allowed", param="X-MemoryHub-Project",
            )  # fmt: skip
        return requested
    if agent.projects is not None and len(agent.projects) == 1:
        return agent.projects[0]
    return None


def memory_tools_for(agent: Agent) -> list[dict]:
    """The memory tools worth offering this agent: a read-only token is offered only the reading ones."""
    tools = tool_schemas()
    if agent.read_only:
        tools = [t for t in tools if t["function"]["name"] in READ_ONLY_TOOLS]
    return tools


# --- one request --------------------------------------------------------------------------------------------------


@dataclass
class Exchange:
    """The state of one proxied request: the conversation as the upstream sees it and what gets recorded."""

    agent: Agent
    project: str | None
    body: dict[str, Any]
    messages: list[dict[str, Any]]
    memory_tools: list[dict]
    stream: bool
    client_tool_names: set[str] = field(default_factory=set)
    recall_chars: int = 0
    tool_calls: int = 0
    rounds: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    saw_usage: bool = False
    started: float = field(default_factory=time.perf_counter)
    recorded: bool = False
    # Set for the one extra request that asks a model stuck on memory tools for its text, with tools switched off.
    forced_answer: bool = False

    @property
    def memory_names(self) -> set[str]:
        """The calls the proxy answers: every memory tool the client did not define itself, once any is offered.
        A read-only token is offered only the reading tools, but a model that calls memory_store anyway is told
        no here rather than handing the client a call to a tool it never defined."""
        return set(TOOL_NAMES) - self.client_tool_names if self.memory_tools else set()

    def add_usage(self, usage: Any) -> None:
        if not isinstance(usage, dict):
            return
        self.saw_usage = True
        self.prompt_tokens += _int(usage.get("prompt_tokens"))
        self.completion_tokens += _int(usage.get("completion_tokens"))

    def usage(self, last: Any = None) -> dict[str, Any]:
        """The upstream usage summed over every round, on top of the last round's other usage fields."""
        base = dict(last) if isinstance(last, dict) else {}
        total = self.prompt_tokens + self.completion_tokens
        return base | {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                       "total_tokens": total}  # fmt: skip

    def record(self) -> None:
        if self.recorded:
            return
        self.recorded = True
        try:
            record_usage(
                agent=self.agent.name, kind="proxy", project=self.project, recall_chars=self.recall_chars,
                tool_calls=self.tool_calls, prompt_tokens=self.prompt_tokens,
                completion_tokens=self.completion_tokens, latency_ms=(time.perf_counter() - self.started) * 1000.0,
            )  # fmt: skip
        except Exception:  # the answer has been given; losing one counter must not turn it into an error
            logger.exception("could not record proxy usage for %s", self.agent.name)


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _validate_body(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise ProxyError("the request body must be a JSON object")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise ProxyError("messages must be a non-empty list", param="messages")
    for index, message in enumerate(messages):
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise ProxyError(f"messages[{index}] must be an object with a role", param=f"messages.{index}")
    if "model" in body and not isinstance(body["model"], str):
        raise ProxyError("model must be a string", param="model")
    tools = body.get("tools")
    if tools is not None and not (isinstance(tools, list) and all(isinstance(t, dict) for t in tools)):
        raise ProxyError("tools must be a list of tool objects", param="tools")
    if body.get("n") not in (None, 1):
        raise ProxyError("the memory proxy answers one choice per request (n=1)", param="n")
    if not isinstance(body.get("stream", False), bool):
        raise ProxyError("stream must be true or false", param="stream")
    return body


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(p.get("text", "") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def last_user_text(messages: list[dict[str, Any]]) -> str:
    for message in reversed(messages):
        if message.get("role") == "user":
            return _text_of(message.get("content"))[-MAX_QUERY_CHARS:]
    return ""


def inject_recall(messages: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    """The block goes at the end of the client's system prompt, or becomes the system prompt when there is none."""
    if not text:
        return list(messages)
    first = messages[0]
    if first.get("role") in ("system", "developer"):
        content = first.get("content")
        if isinstance(content, str) and content:
            merged: Any = f"{content}\n\n{text}"
        elif isinstance(content, list):
            merged = [*content, {"type": "text", "text": text}]
        else:
            merged = text
        return [{**first, "content": merged}, *messages[1:]]
    return [{"role": "system", "content": text}, *messages]


def _client_tool_names(body: dict[str, Any]) -> set[str]:
    names = set()
    for tool in body.get("tools") or []:
        function = tool.get("function")
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            names.add(function["name"])
    return names


def start_exchange(*, body: Any, agent: Agent, project: str | None) -> Exchange:
    """Validate the client's request, build the recall block into it and choose the memory tools to offer."""
    body = _validate_body(body)
    messages = [dict(m) for m in body["messages"]]
    exchange = Exchange(agent=agent, project=project, body=body, messages=messages, memory_tools=[],
                        stream=bool(body.get("stream")), client_tool_names=_client_tool_names(body))  # fmt: skip
    try:
        block = build_recall(
            project=project, query=last_user_text(messages) or None,
            budget_chars=settings.MEMORYHUB_RECALL_BUDGET_CHARS, allowed_projects=agent.projects,
        )  # fmt: skip
    except EmbeddingError as exc:
        # The chat matters more than the memory: answer without the block rather than not at all.
        logger.warning("recall failed for the proxy, answering without it: %s", exc)
    else:
        exchange.messages = inject_recall(messages, block.text)
        exchange.recall_chars = len(block.text)
    choice = body.get("tool_choice")
    forced_client_tool = isinstance(choice, dict)  # {"type": "function", "function": {"name": ...}}
    if choice != "none" and not forced_client_tool:
        # A client tool of the same name wins: it is theirs to answer.
        taken = exchange.client_tool_names
        exchange.memory_tools = [t for t in memory_tools_for(agent) if t["function"]["name"] not in taken]
    return exchange


def _upstream_body(exchange: Exchange, *, stream: bool) -> dict[str, Any]:
    body = dict(exchange.body)
    body["messages"] = exchange.messages
    tools = list(exchange.body.get("tools") or []) + exchange.memory_tools
    if tools:
        body["tools"] = tools
    final = exchange.rounds >= MAX_MEMORY_ROUNDS
    if (final and exchange.memory_tools and not exchange.body.get("tools")) or exchange.forced_answer:
        # The tools stay declared (the history mentions them) but the model may no longer call any.
        body["tool_choice"] = "none"
    body["stream"] = stream
    if stream:
        body["stream_options"] = {**(exchange.body.get("stream_options") or {}), "include_usage": True}
    else:
        body.pop("stream_options", None)
    return body


# --- tool calls ---------------------------------------------------------------------------------------------------


def split_calls(exchange: Exchange, tool_calls: Any) -> tuple[list[dict], list[dict]]:
    """The model's tool calls as (ours, the client's). A call without a function name is the upstream's fault."""
    if tool_calls in (None, []):
        return [], []
    if not isinstance(tool_calls, list):
        raise upstream_error("the upstream model returned tool_calls that are not a list", code="malformed_tool_call")
    ours, theirs = [], []
    names = exchange.memory_names
    for call in tool_calls:
        function = call.get("function") if isinstance(call, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(name, str) or not name:
            raise upstream_error("the upstream model returned a tool call without a function name",
                                  code="malformed_tool_call")  # fmt: skip
        arguments = function.get("arguments")
        if arguments is not None and not isinstance(arguments, str | dict):
            raise upstream_error(f"the upstream model returned arguments for {name} that are neither text nor "
                                  "an object", code="malformed_tool_call")  # fmt: skip
        (ours if name in names else theirs).append(call)
    return ours, theirs


def _has_text(content: Any) -> bool:
    return bool(_text_of(content).strip())


def _history_call(call: dict, index: int) -> dict:
    function = call["function"]
    arguments = function.get("arguments")
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments or {})
    call_id = call.get("id") if isinstance(call.get("id"), str) and call.get("id") else f"call_mh_{index}"
    return {"id": call_id, "type": "function", "function": {"name": function["name"], "arguments": arguments}}


def run_memory_round(exchange: Exchange, content: Any, calls: list[dict]) -> None:
    """Run one round of memory calls and append the assistant turn and the tool answers to the conversation."""
    exchange.rounds += 1
    history = [_history_call(call, exchange.tool_calls + i) for i, call in enumerate(calls)]
    exchange.messages.append({"role": "assistant", "content": content if content else None, "tool_calls": history})
    last_round = exchange.rounds >= MAX_MEMORY_ROUNDS
    for index, call in enumerate(history):
        result: dict[str, Any]
        if index >= MAX_CALLS_PER_ROUND:
            result = {"error": f"at most {MAX_CALLS_PER_ROUND} memory calls are answered per round"}
        else:
            exchange.tool_calls += 1
            try:
                result = call_tool(
                    name=call["function"]["name"], arguments=call["function"]["arguments"], agent=exchange.agent,
                    default_project=exchange.project,
                )["result"]  # fmt: skip
            except ToolError as exc:
                # The model made the mistake; it can read the answer and correct itself in the next round.
                result = {"error": exc.message}
            except EmbeddingError as exc:
                result = {"error": f"memory search is unavailable right now: {exc}"}
        if last_round:
            result = {**result, "note": LIMIT_NOTE.format(rounds=MAX_MEMORY_ROUNDS)}
        exchange.messages.append(
            {"role": "tool", "tool_call_id": call["id"], "content": json.dumps(result, ensure_ascii=False)}
        )


# --- non-streaming ------------------------------------------------------------------------------------------------


def _first_message(data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise upstream_error("the upstream model's answer has no choices", code="malformed_response")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise upstream_error("the upstream model's answer has no message", code="malformed_response")
    return choices[0], message


def complete(exchange: Exchange) -> dict[str, Any]:
    """Run the exchange to its final answer (non-streaming) and return it as the upstream shaped it."""
    try:
        while True:
            data = post_json(_upstream_body(exchange, stream=False))
            exchange.add_usage(data.get("usage"))
            choice, message = _first_message(data)
            ours, theirs = split_calls(exchange, message.get("tool_calls"))
            if ours and exchange.rounds < MAX_MEMORY_ROUNDS:
                # A mixed turn runs only our calls; the model asks for the client's again with the results in hand.
                run_memory_round(exchange, message.get("content"), ours)
                continue
            if ours:  # past the limit and still asking: those calls are dropped, the client's are kept
                if theirs:
                    message["tool_calls"] = theirs
                else:
                    message.pop("tool_calls", None)
                    if choice.get("finish_reason") == "tool_calls":
                        choice["finish_reason"] = "stop"
                    if not _has_text(message.get("content")):
                        if not exchange.forced_answer:
                            exchange.forced_answer = True
                            continue
                        message["content"] = NO_ANSWER.format(rounds=MAX_MEMORY_ROUNDS)
            if exchange.saw_usage:
                data["usage"] = exchange.usage(data.get("usage"))
            return data
    finally:
        exchange.record()


# --- streaming ----------------------------------------------------------------------------------------------------


def _sse(payload: dict[str, Any] | str) -> bytes:
    text = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
    return f"data: {text}\n\n".encode()


def _events(response: httpx.Response) -> Iterator[dict[str, Any]]:
    if response.headers.get("content-type", "").startswith("application/json"):
        # Some servers ignore `stream` (older Ollama with tools): their whole answer becomes one chunk.
        yield _completion_as_event(response)
        return
    for line in response.iter_lines():
        if not line.startswith("data:"):
            continue  # blank separators, comments, event:/id: fields
        payload = line[5:].strip()
        if payload == "[DONE]":
            return
        try:
            event = json.loads(payload)
        except ValueError as exc:
            raise upstream_error("the upstream model sent a stream event that is not JSON",
                                  code="malformed_response") from exc  # fmt: skip
        if not isinstance(event, dict):
            raise upstream_error("the upstream model sent a stream event that is not an object",
                                  code="malformed_response")  # fmt: skip
        if event.get("error"):
            error = event["error"]
            message = error.get("message") if isinstance(error, dict) else str(error)
            raise upstream_error(f"the upstream model failed mid-stream: {message}")
        yield event


def _completion_as_event(response: httpx.Response) -> dict[str, Any]:
    try:
        data = json.loads(response.read())
    except ValueError as exc:
        raise upstream_error("the upstream model's answer is not JSON", code="malformed_response") from exc
    if not isinstance(data, dict):
        raise upstream_error("the upstream model's answer is not a JSON object", code="malformed_response")
    choice, message = _first_message(data)
    delta = {k: v for k, v in message.items() if k != "tool_calls"}
    if isinstance(message.get("tool_calls"), list):
        delta["tool_calls"] = [{"index": i, **c} if isinstance(c, dict) else c
                               for i, c in enumerate(message["tool_calls"])]  # fmt: skip
    event = {k: data[k] for k in ("id", "created", "model", "system_fingerprint", "usage") if k in data}
    return event | {"choices": [{"index": 0, "delta": delta, "finish_reason": choice.get("finish_reason")}]}


@dataclass
class _StreamState:
    chunk_id: str = ""
    created: int = 0
    model: str = ""
    fingerprint: Any = None
    sent_role: bool = False

    def chunk(self, delta: dict[str, Any], finish_reason: str | None = None, **extra: Any) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        chunk = {"id": self.chunk_id, "object": "chat.completion.chunk", "created": self.created, "model": self.model,
                 "choices": [choice]}  # fmt: skip
        if self.fingerprint is not None:
            chunk["system_fingerprint"] = self.fingerprint
        return chunk | extra


def _merge_tool_delta(calls: dict[int, dict], deltas: Any) -> None:
    if not isinstance(deltas, list):
        raise upstream_error("the upstream model streamed tool_calls that are not a list", code="malformed_tool_call")
    for position, delta in enumerate(deltas):
        if not isinstance(delta, dict):
            raise upstream_error("the upstream model streamed a malformed tool call", code="malformed_tool_call")
        index = delta.get("index", position)
        call = calls.setdefault(index, {"id": None, "type": "function", "function": {"name": "", "arguments": ""}})
        if delta.get("id"):
            call["id"] = delta["id"]
        function = delta.get("function") or {}
        if isinstance(function.get("name"), str):
            call["function"]["name"] += function["name"]
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            call["function"]["arguments"] += arguments
        elif isinstance(arguments, dict):
            call["function"]["arguments"] = json.dumps(arguments)


def open_stream(exchange: Exchange) -> Iterator[bytes]:
    """Start the first upstream round now, so a refusal is still an HTTP error; then stream the rest as SSE."""
    try:
        response = open_upstream_stream(_upstream_body(exchange, stream=True))
    except BaseException:
        exchange.record()
        raise
    return _stream_rounds(exchange, response)


def _stream_rounds(exchange: Exchange, response: httpx.Response) -> Iterator[bytes]:
    state = _StreamState(created=int(time.time()), model=str(exchange.body.get("model") or ""))
    want_usage = bool((exchange.body.get("stream_options") or {}).get("include_usage"))
    last_usage: Any = None
    try:
        while True:
            calls: dict[int, dict] = {}
            content_parts: list[str] = []
            finish_reason = None
            try:
                for event in _events(response):
                    if not state.chunk_id:
                        state.chunk_id = str(event.get("id") or f"chatcmpl-mh{secrets.token_hex(12)}")
                        state.created = _int(event.get("created")) or state.created
                        state.model = str(event.get("model") or state.model)
                        state.fingerprint = event.get("system_fingerprint")
                    if event.get("usage"):
                        exchange.add_usage(event["usage"])
                        last_usage = event["usage"]
                    for choice in event.get("choices") or []:
                        if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                            continue
                        delta = dict(choice.get("delta") or {})
                        if delta.get("tool_calls") is not None:
                            _merge_tool_delta(calls, delta.pop("tool_calls"))
                        if isinstance(delta.get("content"), str):
                            content_parts.append(delta["content"])
                        if choice.get("finish_reason"):
                            finish_reason = choice["finish_reason"]
                        if state.sent_role:
                            delta.pop("role", None)
                        if any(v not in (None, "") for v in delta.values()):
                            state.sent_role = state.sent_role or "role" in delta
                            yield _sse(state.chunk(delta))
            except httpx.HTTPError as exc:
                raise transport_error(exc) from exc
            finally:
                response.close()
            ours, theirs = split_calls(exchange, [calls[i] for i in sorted(calls)])
            if ours and exchange.rounds < MAX_MEMORY_ROUNDS:
                run_memory_round(exchange, "".join(content_parts), ours)
                response = open_upstream_stream(_upstream_body(exchange, stream=True))
                continue
            said = "".join(content_parts).strip()
            if ours and not theirs and not said:
                if not exchange.forced_answer:  # one more request, every tool switched off
                    exchange.forced_answer = True
                    response = open_upstream_stream(_upstream_body(exchange, stream=True))
                    continue
                text_delta: dict[str, Any] = {"content": NO_ANSWER.format(rounds=MAX_MEMORY_ROUNDS)}
                if not state.sent_role:
                    text_delta = {"role": "assistant"} | text_delta
                    state.sent_role = True
                if not state.chunk_id:
                    state.chunk_id = f"chatcmpl-mh{secrets.token_hex(12)}"
                yield _sse(state.chunk(text_delta))
            if not state.chunk_id:
                state.chunk_id = f"chatcmpl-mh{secrets.token_hex(12)}"
            if theirs:
                delta: dict[str, Any] = {"tool_calls": [
                    {"index": i, **_history_call(call, i)} for i, call in enumerate(theirs)
                ]}  # fmt: skip
                if not state.sent_role:
                    delta = {"role": "assistant", "content": None} | delta
                    state.sent_role = True
                yield _sse(state.chunk(delta))
                finish_reason = "tool_calls"
            elif finish_reason in (None, "tool_calls"):
                finish_reason = "stop"
            yield _sse(state.chunk({} if state.sent_role else {"role": "assistant", "content": ""}, finish_reason))
            if want_usage and exchange.saw_usage:
                usage_chunk = state.chunk({}) | {"choices": [], "usage": exchange.usage(last_usage)}
                yield _sse(usage_chunk)
            yield _sse("[DONE]")
            return
    except ProxyError as exc:
        # Headers are gone already: the error travels as the stream's last event, as OpenAI's own streams do.
        yield _sse(exc.body())
        yield _sse("[DONE]")
    finally:
        response.close()
        exchange.record()
