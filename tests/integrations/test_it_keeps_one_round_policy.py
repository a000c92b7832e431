# ruff: noqa: F811 - the proxy tests' fixtures are imported by name, and pytest passes them in by that name
"""The chat proxy's round policy has one home (memoryhub/agents/rounds.py) and both paths, the JSON answer and the
stream, follow it: they ask the upstream the same requests, stop at the same round and end the same way.

The upstream is a real HTTP server on 127.0.0.1 (tests/integrations/fake_upstream.py)."""

from __future__ import annotations

import json

import pytest

from memoryhub.agents import rounds
from memoryhub.agents.rounds import Step, next_step
from memoryhub.models import UsageRecord
from tests.integrations.fake_upstream import Reply, tool_results
from tests.integrations.test_it_never_answers_empty import SEARCH, obeys_tool_choice, stubborn
from tests.integrations.test_it_proxies_chat import (  # noqa: F401 - fixtures
    WEATHER_TOOL,
    ask,
    chat,
    looper,
    memories,
    searcher,
    sse_events,
    streamed_text,
    token,
)

WEATHER_CALL = {"name": "get_weather", "arguments": {"city": "Paris"}}


class State:
    def __init__(self, rounds: int, forced_answer: bool = False):
        self.rounds, self.forced_answer = rounds, forced_answer


@pytest.mark.parametrize(
    ("state", "ours", "theirs", "said", "step"),
    [
        (State(0), False, False, True, Step.ANSWER),
        (State(0), True, False, False, Step.MEMORY_ROUND),
        (State(0), True, True, False, Step.MEMORY_ROUND),  # a mixed turn runs ours first
        (State(2), True, False, True, Step.MEMORY_ROUND),
        (State(3), True, True, False, Step.ANSWER),  # past the limit the client's calls go back
        (State(3), True, False, True, Step.ANSWER),  # past the limit what it said is the answer
        (State(3), True, False, False, Step.FORCE_ANSWER),
        (State(3, forced_answer=True), True, False, False, Step.NO_ANSWER),
        (State(3, forced_answer=True), False, False, True, Step.ANSWER),
    ],
)
def test_the_round_policy_decides_each_step(state, ours, theirs, said, step):
    assert rounds.MAX_MEMORY_ROUNDS == 3
    assert next_step(state, ours=ours, theirs=theirs, said=said) is step
    assert step.asks_again == (step in (Step.MEMORY_ROUND, Step.FORCE_ANSWER))


def reply_of(response, stream: bool) -> tuple[str, str, list[str]]:
    """What the client got: the text, the finish reason and the names of the tool calls handed to it."""
    if stream:
        events = sse_events(response)
        assert events[-1] == "[DONE]"
        chunks = [e for e in events[:-1] if e.get("choices")]
        calls = [c for e in chunks for c in e["choices"][0]["delta"].get("tool_calls") or []]
        return streamed_text(events), chunks[-1]["choices"][0]["finish_reason"], [c["function"]["name"] for c in calls]
    choice = response.json()["choices"][0]
    calls = choice["message"].get("tool_calls") or []
    return choice["message"]["content"] or "", choice["finish_reason"], [c["function"]["name"] for c in calls]


def requests_seen(upstream) -> list[tuple]:
    """Each upstream request as the policy shapes it: may it call tools, and the turns it carries."""
    return [(r.get("tool_choice"), [m["role"] for m in r["messages"]]) for r in upstream.requests]


@pytest.mark.parametrize("limit", [1, 2])
@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_both_paths_stop_where_the_policy_says(client, upstream, memories, token, monkeypatch, stream, limit):
    monkeypatch.setattr(rounds, "MAX_MEMORY_ROUNDS", limit)
    upstream.behaviour = looper

    response = chat(client, token, ask("Tell me everything about deploys", stream=stream))

    assert response.status_code == 200, response.content
    assert reply_of(response, stream) == (f"Answering with {limit} results in hand.", "stop", [])
    assert len(upstream.requests) == limit + 1
    last = upstream.requests[-1]
    assert last["tool_choice"] == "none"
    assert len(tool_results(last)) == limit
    assert json.loads(tool_results(last)[-1])["note"] == rounds.LIMIT_NOTE.format(rounds=limit)
    assert all("tool_choice" not in r for r in upstream.requests[:-1])


@pytest.mark.parametrize("limit", [1, 2])
@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_both_paths_give_up_on_a_stubborn_model_where_the_policy_says(
    client, upstream, memories, token, monkeypatch, stream, limit
):
    # This model ignores tool_choice, so only the proxy's own count of rounds can end the loop.
    monkeypatch.setattr(rounds, "MAX_MEMORY_ROUNDS", limit)
    upstream.behaviour = stubborn

    response = chat(client, token, ask("What do we know about deploys?", tools=[WEATHER_TOOL], stream=stream))

    assert response.status_code == 200, response.content
    assert reply_of(response, stream) == (rounds.NO_ANSWER.format(rounds=limit), "stop", [])
    # The memory rounds, the request after them (the client's tools still callable), the forced one.
    assert [r.get("tool_choice") for r in upstream.requests] == [None] * (limit + 1) + ["none"]
    assert len(tool_results(upstream.requests[-1])) == limit


def says_something_past_the_limit(body: dict) -> Reply:
    """Silent memory calls until the limit, then text beside one more memory call."""
    if len(tool_results(body)) < rounds.MAX_MEMORY_ROUNDS:
        return Reply(tool_calls=[SEARCH])
    return Reply(content="Deploys go through staging first.", tool_calls=[SEARCH])


def client_call_past_the_limit(body: dict) -> Reply:
    if len(tool_results(body)) < rounds.MAX_MEMORY_ROUNDS:
        return Reply(tool_calls=[SEARCH])
    return Reply(tool_calls=[SEARCH, WEATHER_CALL])


BEHAVIOURS = {
    "answers at once": (lambda body: Reply(content="Plain answer."), None),
    "searches once": (searcher, None),
    "loops": (looper, None),
    "says something past the limit": (says_something_past_the_limit, None),
    "client call past the limit": (client_call_past_the_limit, [WEATHER_TOOL]),
    "never says a word": (stubborn, [WEATHER_TOOL]),
    "obeys the forced request": (obeys_tool_choice, [WEATHER_TOOL]),
    "calls a client tool": (lambda body: Reply(tool_calls=[WEATHER_CALL]), [WEATHER_TOOL]),
}


@pytest.mark.parametrize("behaviour", BEHAVIOURS)
def test_the_json_and_stream_paths_take_the_same_rounds(client, upstream, memories, token, behaviour):
    upstream.behaviour, tools = BEHAVIOURS[behaviour]
    extra = {"tools": tools} if tools else {}
    seen, replies = [], []
    for stream in (False, True):
        upstream.requests.clear()
        response = chat(client, token, ask("What do we know about deploys?", stream=stream, **extra))
        assert response.status_code == 200, response.content
        replies.append(reply_of(response, stream))
        seen.append(requests_seen(upstream))

    assert replies[0] == replies[1]
    assert seen[0] == seen[1]
    json_record, stream_record = UsageRecord.objects.filter(kind="proxy").order_by("id")
    assert json_record.tool_calls == stream_record.tool_calls
