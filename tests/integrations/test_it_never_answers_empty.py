# ruff: noqa: F811 - the proxy tests' fixtures are imported by name, and pytest passes them in by that name
"""The chat proxy never hands the client an empty reply: when the memory tool rounds are spent and the model,
which also has the client's own tools, asks for a memory tool again without a word, the proxy asks once more with
every tool switched off, and when even that brings no text the client gets a clear message.

The upstream is a real HTTP server on 127.0.0.1 (tests/integrations/fake_upstream.py)."""

from __future__ import annotations

import json

import pytest

from memoryhub.agents.rounds import MAX_MEMORY_ROUNDS, NO_ANSWER
from tests.integrations.fake_upstream import Reply, tool_results
from tests.integrations.test_it_proxies_chat import (  # noqa: F401 - fixtures
    WEATHER_TOOL,
    ask,
    chat,
    memories,
    sse_events,
    streamed_text,
    token,
)

SEARCH = {"name": "memory_search", "arguments": {"query": "deploys"}}


def stubborn(body: dict) -> Reply:
    """Asks for memory_search forever and never says a word, whatever tool_choice says."""
    return Reply(content=None, tool_calls=[SEARCH])


def obeys_tool_choice(body: dict) -> Reply:
    """Asks for memory_search until it is told no tool may be called, then answers from the results."""
    if body.get("tool_choice") == "none":
        return Reply(content=f"Answer from {len(tool_results(body))} memory results.")
    return Reply(content="", tool_calls=[SEARCH])


def reply_of(response, stream: bool) -> tuple[str | None, str]:
    if stream:
        events = sse_events(response)
        assert events[-1] == "[DONE]"
        finishes = [e["choices"][0]["finish_reason"] for e in events[:-1] if e.get("choices")]
        assert not any(e.get("choices") and "tool_calls" in e["choices"][0]["delta"] for e in events[:-1])
        return streamed_text(events), finishes[-1]
    choice = response.json()["choices"][0]
    assert "tool_calls" not in choice["message"]
    return choice["message"]["content"], choice["finish_reason"]


def asked_with_a_client_tool(client, token, stream: bool) -> tuple[str | None, str]:
    """The reply to a question about deploys from a client that offers its own tool too: (text, finish reason)."""
    response = chat(client, token, ask("What do we know about deploys?", tools=[WEATHER_TOOL], stream=stream))
    assert response.status_code == 200, response.content
    return reply_of(response, stream)


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_a_model_that_keeps_calling_memory_tools_beside_client_tools_gets_a_clear_message(
    client, upstream, memories, token, stream
):
    upstream.behaviour = stubborn

    text, finish = asked_with_a_client_tool(client, token, stream)

    assert text == NO_ANSWER.format(rounds=MAX_MEMORY_ROUNDS)
    assert finish == "stop"
    # Three memory rounds, the request after them, and one more with every tool switched off.
    assert len(upstream.requests) == MAX_MEMORY_ROUNDS + 2
    assert upstream.requests[-1]["tool_choice"] == "none"
    assert "tool_choice" not in upstream.requests[-2]  # the client's tools were still callable there
    assert len(tool_results(upstream.requests[-1])) == MAX_MEMORY_ROUNDS


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_the_extra_request_brings_the_models_own_text_when_it_obeys_tool_choice(
    client, upstream, memories, token, stream
):
    upstream.behaviour = obeys_tool_choice

    text, finish = asked_with_a_client_tool(client, token, stream)

    assert text == f"Answer from {MAX_MEMORY_ROUNDS} memory results."
    assert finish == "stop"
    assert len(upstream.requests) == MAX_MEMORY_ROUNDS + 2
    assert [r.get("tool_choice") for r in upstream.requests] == [None] * (MAX_MEMORY_ROUNDS + 1) + ["none"]


def test_a_client_tool_call_past_the_limit_still_reaches_the_client_without_an_extra_request(
    client, upstream, memories, token
):
    def mixed(body: dict) -> Reply:
        if len(tool_results(body)) < MAX_MEMORY_ROUNDS:
            return Reply(tool_calls=[SEARCH])
        return Reply(tool_calls=[SEARCH, {"name": "get_weather", "arguments": {"city": "Paris"}}])

    upstream.behaviour = mixed
    response = chat(client, token, ask("Weather and deploys?", tools=[WEATHER_TOOL]))

    choice = response.json()["choices"][0]
    assert [c["function"]["name"] for c in choice["message"]["tool_calls"]] == ["get_weather"]
    assert json.loads(choice["message"]["tool_calls"][0]["function"]["arguments"]) == {"city": "Paris"}
    assert choice["finish_reason"] == "tool_calls"
    assert len(upstream.requests) == MAX_MEMORY_ROUNDS + 1
