"""GET /tools and POST /tools/call: OpenAI function-calling schemas, the same paths as REST, 3 calls per turn."""

from __future__ import annotations

import json

import pytest

from memoryhub.agents.tokens import Agent
from memoryhub.agents.tools import ToolError, call_tool, tool_schemas
from memoryhub.memories.store import create_memory
from memoryhub.models import Memory, UsageRecord
from tests.api.conftest import error_of

pytestmark = pytest.mark.django_db

NAMES = ["memory_search", "memory_store", "memory_update", "memory_delete", "memory_list", "memory_refresh"]


def test_it_lists_the_six_tools_in_openai_function_shape(claude):
    response = claude.get("tools")
    assert response.status_code == 200
    tools = response.json()["tools"]
    assert [t["function"]["name"] for t in tools] == NAMES
    for tool in tools:
        assert tool["type"] == "function"
        assert tool["function"]["description"]
        parameters = tool["function"]["parameters"]
        assert parameters["type"] == "object" and parameters["additionalProperties"] is False
        assert set(parameters["required"]) <= set(parameters["properties"])
    assert tools == tool_schemas()


def call(agent, name, arguments=None, turn_id=None, **extra):
    body = {"name": name, "arguments": arguments if arguments is not None else {}, **extra}
    if turn_id:
        body["turn_id"] = turn_id
    return agent.post("tools/call", body)


def test_memory_store_goes_through_the_gate(claude):
    stored = call(claude, "memory_store", {"content": "Alpha builds with make and gcc 13", "project": "alpha"})
    assert stored.status_code == 200
    result = stored.json()["result"]
    assert result["outcome"] == "created"
    memory = Memory.objects.get()
    assert (memory.source, memory.project) == ("claude", "alpha")
    again = call(claude, "memory_store", {"content": "Alpha builds with make and gcc 13", "project": "alpha"})
    assert again.json()["result"]["outcome"] == "duplicate"
    noise = call(claude, "memory_store", {"content": "Today I worked on the build", "project": "alpha"})
    assert noise.json()["result"]["outcome"] == "rejected"
    assert Memory.objects.count() == 1


def test_memory_search_finds_and_reinforces_within_scope(claude):
    mine = create_memory(content="Alpha caches sessions in Redis", project="alpha")
    create_memory(content="Beta caches sessions in Memcached", project="beta")
    response = call(claude, "memory_search", json.dumps({"query": "session cache"}), project="alpha")
    assert response.status_code == 200
    results = response.json()["result"]["results"]
    assert [r["id"] for r in results] == [mine.pk]
    assert set(results[0]) == {"id", "content", "category", "tier", "project", "tags", "confirmed", "importance",
                               "effective_importance", "score"}  # fmt: skip
    # One meaning per key, as in the API: `importance` is the stored value, `effective_importance` the decayed one.
    assert results[0]["effective_importance"] <= results[0]["importance"]
    mine.refresh_from_db()
    assert mine.access_count == 1


def test_memory_update_list_refresh_and_delete(claude):
    memory = create_memory(content="Alpha caches sessions in Redis", project="alpha")
    updated = call(claude, "memory_update", {"id": memory.pk, "content": "Alpha caches sessions in Redis 7"})
    assert updated.json()["result"]["memory"]["content"] == "Alpha caches sessions in Redis 7"
    listed = call(claude, "memory_list", {"project": "alpha"}).json()["result"]
    assert [m["id"] for m in listed["memories"]] == [memory.pk]
    refreshed = call(claude, "memory_refresh", {"id": memory.pk})
    assert refreshed.status_code == 200
    memory.refresh_from_db()
    assert memory.access_count == 1
    deleted = call(claude, "memory_delete", {"id": memory.pk})
    assert deleted.json()["result"] == {"deleted": memory.pk}
    assert not Memory.objects.exists()


def test_past_three_calls_in_a_turn_the_model_is_told_to_use_what_it_has(claude):
    create_memory(content="Alpha caches sessions in Redis", project="alpha")
    answers = [call(claude, "memory_search", {"query": "redis", "project": "alpha"}, turn_id="turn-1")
               for _ in range(4)]  # fmt: skip
    assert [a.status_code for a in answers] == [200] * 4
    assert [a.json()["limited"] for a in answers] == [False, False, False, True]
    assert [a.json()["calls_in_turn"] for a in answers] == [1, 2, 3, 4]
    assert "answer with what you already have" in answers[3].json()["result"]["message"]
    # A new turn starts afresh.
    assert (
        call(claude, "memory_search", {"query": "redis", "project": "alpha"}, turn_id="turn-2").json()["limited"]
        is False
    )
    assert UsageRecord.objects.filter(agent="claude", kind="tool").count() == 5


def test_the_turn_limit_counts_per_agent(claude, codex):
    for _ in range(3):
        call(claude, "memory_list", {"project": "alpha"}, turn_id="same-id")
    assert call(codex, "memory_list", {"project": "beta"}, turn_id="same-id").json()["limited"] is False


@pytest.mark.parametrize(
    ("name", "arguments", "field"),
    [
        ("memory_forget", {}, "name"),
        ("memory_search", {}, "query"),
        ("memory_search", {"query": "x", "k": 500}, "k"),
        ("memory_search", {"query": "x", "colour": "red"}, "colour"),
        ("memory_store", {"content": "A fact about alpha", "category": "rumour"}, "category"),
        ("memory_update", {"id": "seven"}, "id"),
        ("memory_search", "{not json", "arguments"),
        ("memory_search", ["query"], "arguments"),
    ],
)
def test_bad_calls_are_a_400_naming_the_argument(curator, name, arguments, field):
    response = call(curator, name, arguments)
    assert response.status_code == 400
    assert list(error_of(response)["fields"]) == [field]


def test_unknown_ids_are_404(curator):
    assert call(curator, "memory_refresh", {"id": 999999}).status_code == 404
    assert call(curator, "memory_delete", {"id": 999999}).status_code == 404


def test_tools_respect_project_scope_and_read_only_tokens(claude, reader):
    beta = create_memory(content="Beta caches sessions in Memcached", project="beta")
    assert call(claude, "memory_search", {"query": "cache", "project": "beta"}).status_code == 403
    assert call(claude, "memory_store", {"content": "Beta uses Memcached 1.6", "project": "beta"}).status_code == 403
    # Another project's memory answers exactly as a missing one: no oracle for ids.
    hidden, missing = call(claude, "memory_delete", {"id": beta.pk}), call(claude, "memory_delete", {"id": 999999})
    assert hidden.status_code == missing.status_code == 404
    assert hidden.json()["error"]["message"].replace(str(beta.pk), "N") == missing.json()["error"]["message"].replace(
        "999999", "N"
    )
    assert call(claude, "memory_list", {"project": "beta"}).status_code == 403
    assert call(claude, "memory_list", {}, project="beta").status_code == 403
    assert call(reader, "memory_store", {"content": "Alpha uses Redis 7", "project": "alpha"}).status_code == 403
    assert call(reader, "memory_search", {"query": "cache"}).status_code == 200
    assert Memory.objects.count() == 1


def test_call_tool_raises_tool_errors_for_direct_callers():
    agent = Agent(name="proxy", projects=["alpha"])
    with pytest.raises(ToolError) as caught:
        call_tool(name="memory_search", arguments={"query": "x", "project": "beta"}, agent=agent, turn_id="t")
    assert caught.value.status == 403
    answer = call_tool(name="memory_list", arguments=None, agent=agent, turn_id=None, default_project="alpha")
    assert answer == {"name": "memory_list", "ok": True, "limited": False, "calls_in_turn": 0,
                      "result": {"memories": [], "count": 0}}  # fmt: skip
