"""The chat proxy: an OpenAI-compatible chat endpoint that remembers, in front of an upstream provider.

For every request the project's recall block goes into the system prompt and the memory tools are offered beside
the client's own tools. When the model calls a memory tool the proxy runs it here, appends the result and asks the
model again, so the client only ever sees the final answer; calls to the client's own tools go back to the client
untouched. How many rounds run and what ends them is the round policy (`rounds.py`), which both paths below ask
after every turn of the model. Upstream failures become OpenAI-shaped errors, and every request leaves one
UsageRecord(kind="proxy") for the overview.

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

from memoryhub.agents.rounds import Step, limit_note, next_step, no_answer, rounds_spent, tools_switched_off
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

# A model that fans out dozens of parallel searches in one round gets the first few answered.
MAX_CALLS_PER_ROUND = 8
READ_ONLY_TOOLS = ("memory_search", "memory_list")


# --- who is asking and for which project ------------------------------------------------------------------------


def resolve_project(agent: Agent, requested: str | None) -> str | None:
    """The project named by the client's header, else the agent's default (the token's only project, or
    MEMORYHUB_DEFAULT_PROJECT), else none: searches see the global memories only and writes must name a project."""
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
    return agent.default_project()


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
    if tools_switched_off(
        exchange, offers_memory_tools=bool(exchange.memory_tools), client_has_tools=bool(exchange.body.get("tools"))
    ):
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
    last_round = rounds_spent(exchange)
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
            result = {**result, "note": limit_note()}
        exchange.messages.append(
            {"role": "tool", "tool_call_id": call["id"], "content": json.dumps(result, ensure_ascii=False)}
        )


@dataclass(frozen=True)
class Turn:
    """One turn of the model as both paths handle it: its calls split into ours and the client's, and the step the
    round policy chose."""

    step: Step
    ours: list[dict]
    theirs: list[dict]


def take_turn(exchange: Exchange, *, content: Any, tool_calls: Any) -> Turn:
    """Ask the round policy what follows the model's turn, and prepare the next request when it wants one."""
    ours, theirs = split_calls(exchange, tool_calls)
    step = next_step(exchange, ours=bool(ours), theirs=bool(theirs), said=_has_text(content))
    if step is Step.MEMORY_ROUND:
        # A mixed turn runs only our calls; the model asks for the client's again with the results in hand.
        run_memory_round(exchange, content, ours)
    elif step is Step.FORCE_ANSWER:
        exchange.forced_answer = True
    return Turn(step, ours, theirs)


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
            turn = take_turn(exchange, content=message.get("content"), tool_calls=message.get("tool_calls"))
            if not turn.step.asks_again:
                return _final_answer(exchange, data, choice, message, turn)
    finally:
        exchange.record()


def _final_answer(
    exchange: Exchange, data: dict[str, Any], choice: dict[str, Any], message: dict[str, Any], turn: Turn
) -> dict[str, Any]:
    """The last answer as the client gets it: memory calls past the limit dropped, usage summed over the rounds."""
    if turn.ours:  # past the limit and still asking: those calls are dropped, the client's are kept
        if turn.theirs:
            message["tool_calls"] = turn.theirs
        else:
            message.pop("tool_calls", None)
            if choice.get("finish_reason") == "tool_calls":
                choice["finish_reason"] = "stop"
            if turn.step is Step.NO_ANSWER:
                message["content"] = no_answer()
    if exchange.saw_usage:
        data["usage"] = exchange.usage(data.get("usage"))
    return data


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
    """The one stream the client sees, across every round: its name, and whether a chunk has said the role yet."""

    chunk_id: str = ""
    created: int = 0
    model: str = ""
    fingerprint: Any = None
    sent_role: bool = False
    last_usage: Any = None  # the last usage the upstream sent, in whichever round

    def adopt(self, event: dict[str, Any]) -> None:
        """The first upstream event names the stream; later rounds keep that name."""
        if not self.chunk_id:
            self.chunk_id = str(event.get("id") or _new_chunk_id())
            self.created = _int(event.get("created")) or self.created
            self.model = str(event.get("model") or self.model)
            self.fingerprint = event.get("system_fingerprint")

    def led_by_role(self, delta: dict[str, Any], role: dict[str, Any]) -> dict[str, Any]:
        """`delta`, led by `role` when no chunk has said the role yet."""
        if self.sent_role:
            return delta
        self.sent_role = True
        return role | delta

    def chunk(self, delta: dict[str, Any], finish_reason: str | None = None, **extra: Any) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        chunk = {"id": self.chunk_id, "object": "chat.completion.chunk", "created": self.created, "model": self.model,
                 "choices": [choice]}  # fmt: skip
        if self.fingerprint is not None:
            chunk["system_fingerprint"] = self.fingerprint
        return chunk | extra


def _new_chunk_id() -> str:
    return f"chatcmpl-mh{secrets.token_hex(12)}"


@dataclass
class _Heard:
    """What one streamed round said that is held back until it ends: its tool calls, its text and how it ended."""

    calls: dict[int, dict] = field(default_factory=dict)
    parts: list[str] = field(default_factory=list)
    finish_reason: str | None = None

    @property
    def content(self) -> str:
        return "".join(self.parts)

    def tool_calls(self) -> list[dict]:
        return [self.calls[i] for i in sorted(self.calls)]

    def hear(self, choice: dict[str, Any]) -> dict[str, Any]:
        """Keep the choice's tool calls, text and finish reason; what is left of its delta may go to the client now."""
        delta = dict(choice.get("delta") or {})
        if delta.get("tool_calls") is not None:
            _merge_tool_delta(self.calls, delta.pop("tool_calls"))
        if isinstance(delta.get("content"), str):
            self.parts.append(delta["content"])
        if choice.get("finish_reason"):
            self.finish_reason = choice["finish_reason"]
        return delta


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
    try:
        while True:
            heard = _Heard()
            yield from _forward_round(state, exchange, response, heard)
            turn = take_turn(exchange, content=heard.content, tool_calls=heard.tool_calls())
            if not turn.step.asks_again:
                yield from _stream_ending(state, exchange, heard, turn)
                return
            response = open_upstream_stream(_upstream_body(exchange, stream=True))
    except ProxyError as exc:
        # Headers are gone already: the error travels as the stream's last event, as OpenAI's own streams do.
        yield _sse(exc.body())
        yield _sse("[DONE]")
    finally:
        response.close()
        exchange.record()


def _forward_round(state: _StreamState, exchange: Exchange, response: httpx.Response, heard: _Heard) -> Iterator[bytes]:
    """Forward one upstream stream's text as it arrives; its tool calls wait in `heard` until the round ends (only
    then is it known whether they are ours)."""
    try:
        for event in _events(response):
            state.adopt(event)
            if event.get("usage"):
                exchange.add_usage(event["usage"])
                state.last_usage = event["usage"]
            for choice in event.get("choices") or []:
                if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                    continue
                delta = heard.hear(choice)
                if state.sent_role:
                    delta.pop("role", None)
                if any(v not in (None, "") for v in delta.values()):
                    state.sent_role = state.sent_role or "role" in delta
                    yield _sse(state.chunk(delta))
    except httpx.HTTPError as exc:
        raise transport_error(exc) from exc
    finally:
        response.close()


def _stream_ending(state: _StreamState, exchange: Exchange, heard: _Heard, turn: Turn) -> Iterator[bytes]:
    """The end of the client's stream: NO_ANSWER when the model gave none, the client's own tool calls, our finish
    chunk, the usage summed over the rounds (when asked for) and `[DONE]`."""
    if not state.chunk_id:
        state.chunk_id = _new_chunk_id()
    if turn.step is Step.NO_ANSWER:
        yield _sse(state.chunk(state.led_by_role({"content": no_answer()}, {"role": "assistant"})))
    finish_reason = heard.finish_reason
    if turn.theirs:
        calls = [{"index": i, **_history_call(call, i)} for i, call in enumerate(turn.theirs)]
        yield _sse(state.chunk(state.led_by_role({"tool_calls": calls}, {"role": "assistant", "content": None})))
        finish_reason = "tool_calls"
    elif finish_reason in (None, "tool_calls"):
        finish_reason = "stop"
    yield _sse(state.chunk({} if state.sent_role else {"role": "assistant", "content": ""}, finish_reason))
    if (exchange.body.get("stream_options") or {}).get("include_usage") and exchange.saw_usage:
        yield _sse(state.chunk({}) | {"choices": [], "usage": exchange.usage(state.last_usage)})
    yield _sse("[DONE]")
