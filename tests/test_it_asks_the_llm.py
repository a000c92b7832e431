"""Consolidation text from an OpenAI-compatible chat endpoint: a real HTTP server on 127.0.0.1 started here."""

from __future__ import annotations

import json

import pytest

from memoryhub.consolidation.proposals import deterministic_fields, llm_fields, run_consolidation
from memoryhub.judges.llm import ChatClient, LLMError, get_llm
from memoryhub.memories.store import create_memory
from memoryhub.models import Proposal
from tests.fake_openai import FakeOpenAI, Reply, chat_answer

pytestmark = pytest.mark.django_db

MERGED = {
    "content": "The billing-api listens on port 8080 in every environment.",
    "tags": ["billing", "ports"],
    "category": "environment",
    "tier": "semantic",
    "rationale": "Both state the billing-api port.",
}


@pytest.fixture
def server():
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def client(server):
    return ChatClient(base_url=server.base_url, model="fake-model", api_key="sk-test", timeout=2.0, backoff=0.01)


@pytest.fixture
def duplicates():
    return [
        create_memory(content="billing-api listens on port 8080.", project="alpha", tags=["billing"], importance=0.6),
        create_memory(
            content="Port 8080 is where billing-api listens, in dev and prod.",
            project="alpha",
            tags=["ports"],
            category="fact",
            importance=0.7,
        ),
    ]


def only_proposal(proposals: list[Proposal]) -> Proposal:
    assert len(proposals) == 1
    return proposals[0]


def test_the_request_disables_thinking_and_asks_for_json(server, client, duplicates):
    server.reply(chat_answer(json.dumps(MERGED)))
    run_consolidation(project="alpha", llm=client)
    (request,) = server.chat_requests
    body = request.json
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-test"
    assert body["model"] == "fake-model"
    assert body["reasoning_effort"] == "none"
    assert body["chat_template_kwargs"] == {"enable_thinking": False}
    assert body["think"] is False
    assert body["response_format"] == {"type": "json_object"}
    assert body["stream"] is False
    sent = json.loads(body["messages"][-1]["content"])
    assert [m["id"] for m in sent["memories"]] == [m.pk for m in duplicates]


def test_a_normal_answer_becomes_the_proposal(server, client, duplicates):
    server.reply(chat_answer(json.dumps(MERGED)))
    proposal = only_proposal(run_consolidation(project="alpha", llm=client))
    assert proposal.content == MERGED["content"]
    assert proposal.tags == ["billing", "ports"]
    assert (proposal.category, proposal.tier) == ("environment", "semantic")
    assert proposal.rationale == "Both state the billing-api port."
    assert proposal.generator == "llm:fake-model"
    assert proposal.sources == [m.pk for m in duplicates]
    assert proposal.importance == 0.7  # earned by the sources, never taken from the model


def test_answers_outside_the_vocabulary_fall_back_field_by_field(server, client, duplicates):
    server.reply(chat_answer(json.dumps({"content": "billing-api: port 8080.", "category": "trivia", "tags": "x"})))
    proposal = only_proposal(run_consolidation(project="alpha", llm=client))
    assert proposal.content == "billing-api: port 8080."
    assert proposal.category == "fact"
    assert proposal.tags == ["billing", "ports"]


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        (chat_answer("", finish_reason="length"), "empty answer"),
        (chat_answer(None), "empty answer"),
        (chat_answer(json.dumps(MERGED), reasoning_content="Let me think about these two..."), "reasoned"),
        (chat_answer(json.dumps(MERGED), reasoning="First, the port..."), "reasoned"),
        (chat_answer("<think>the port is 8080</think>" + json.dumps(MERGED)), "reasoned"),
        (chat_answer('{"content": "billing-api listens on'), "not valid JSON"),
        (chat_answer("Sure! Here is the merged memory."), "not valid JSON"),
        (chat_answer("[1, 2]"), "not an object"),
        (chat_answer(json.dumps({"tags": ["x"]})), "no merged content"),
        (Reply(body="<html>gateway</html>"), "not JSON"),
    ],
)
def test_an_unusable_answer_is_an_error_and_the_proposal_falls_back_to_the_deterministic_text(
    server, client, duplicates, answer, error
):
    server.reply(answer)
    with pytest.raises(LLMError, match=error):
        llm_fields(client, duplicates, deterministic_fields(duplicates))
    server.reply(answer)
    proposal = only_proposal(run_consolidation(project="alpha", llm=client))
    assert proposal.generator.startswith("deterministic (LLM failed:")
    assert proposal.content == "Port 8080 is where billing-api listens, in dev and prod."
    assert proposal.tags == ["billing", "ports"]
    assert proposal.importance == 0.7


def test_an_empty_reasoning_field_and_an_empty_think_block_are_fine(server, client, duplicates):
    server.reply(chat_answer("<think>\n\n</think>\n" + json.dumps(MERGED), reasoning_content=""))
    assert client.complete_json([{"role": "user", "content": "merge"}]) == MERGED


def test_a_fenced_json_answer_is_read(server, client):
    server.reply(chat_answer("```json\n" + json.dumps(MERGED) + "\n```"))
    assert client.complete_json([{"role": "user", "content": "merge"}]) == MERGED


def test_a_429_is_retried_then_the_answer_is_used(server, client, duplicates):
    server.reply(Reply(status=429, body={"error": {"message": "slow down"}}, headers={"Retry-After": "0"}))
    server.reply(chat_answer(json.dumps(MERGED)))
    proposal = only_proposal(run_consolidation(project="alpha", llm=client))
    assert proposal.generator == "llm:fake-model"
    assert len(server.chat_requests) == 2


def test_server_errors_are_retried_a_bounded_number_of_times(server, client):
    server.default = Reply(status=503, body={"error": {"message": "overloaded"}})
    with pytest.raises(LLMError, match="HTTP 503"):
        client.complete_json([{"role": "user", "content": "merge"}])
    assert len(server.chat_requests) == client.retries + 1


def test_a_client_error_is_not_retried(server, client):
    server.reply(Reply(status=401, body={"error": {"message": "bad key"}}))
    with pytest.raises(LLMError, match="HTTP 401"):
        client.complete_json([{"role": "user", "content": "merge"}])
    assert len(server.chat_requests) == 1


def test_a_timeout_is_an_error_and_the_proposal_falls_back(server, duplicates):
    slow = ChatClient(base_url=server.base_url, model="fake-model", timeout=0.3, backoff=0.01)
    server.default = Reply(body=chat_answer(json.dumps(MERGED)).body, delay=1.5)
    with pytest.raises(LLMError, match="did not answer within 0.3 s"):
        slow.complete_json([{"role": "user", "content": "merge"}])
    assert len(server.chat_requests) == 1  # a slow model is not asked again at once
    proposal = only_proposal(run_consolidation(project="alpha", llm=slow))
    assert proposal.generator.startswith("deterministic (LLM failed: the LLM did not answer")


def test_a_switch_the_server_refuses_is_dropped_and_the_request_sent_again(server, client):
    refusal = {"error": {"message": "Unrecognized request arguments supplied: chat_template_kwargs, think"}}
    server.reply(Reply(status=400, body=refusal), chat_answer(json.dumps(MERGED)))
    assert client.complete_json([{"role": "user", "content": "merge"}]) == MERGED
    first, second = (r.json for r in server.chat_requests)
    assert "think" in first and "chat_template_kwargs" in first
    assert "think" not in second and "chat_template_kwargs" not in second
    assert second["reasoning_effort"] == "none"


def test_a_run_stops_asking_a_failing_llm_after_a_few_clusters(server, client):
    for service in ("billing-api", "search-api", "auth-api", "mail-api", "queue-api"):
        create_memory(content=f"{service} listens on port 9090.", project="alpha")
        create_memory(content=f"Port 9090 is where {service} listens.", project="alpha")
    server.default = chat_answer("")
    proposals = run_consolidation(project="alpha", llm=client)
    assert len(proposals) == 5
    assert len(server.chat_requests) == 3
    assert [p.generator.split(":")[0] for p in proposals] == ["deterministic (LLM failed"] * 3 + [
        "deterministic (LLM skipped after 3 failures in a row)"
    ] * 2


def test_without_an_llm_configured_the_proposal_is_deterministic(settings, server, duplicates):
    settings.MEMORYHUB_LLM_BASE_URL = ""
    assert get_llm() is None
    proposal = only_proposal(run_consolidation(project="alpha"))
    assert proposal.generator == "deterministic"
    assert server.requests == []


def test_the_configured_llm_is_used_by_default(settings, server, duplicates):
    settings.MEMORYHUB_LLM_BASE_URL = server.base_url
    settings.MEMORYHUB_LLM_MODEL = "fake-model"
    settings.MEMORYHUB_LLM_API_KEY = ""
    server.reply(chat_answer(json.dumps(MERGED)))
    proposal = only_proposal(run_consolidation(project="alpha"))
    assert proposal.generator == "llm:fake-model"
    assert "authorization" not in server.chat_requests[0].headers


def test_a_configured_base_url_without_a_model_is_a_clear_error_shown_on_the_proposal(settings, duplicates):
    settings.MEMORYHUB_LLM_BASE_URL = "http://127.0.0.1:9/v1"
    settings.MEMORYHUB_LLM_MODEL = ""
    with pytest.raises(LLMError, match="MEMORYHUB_LLM_MODEL"):
        get_llm()
    proposal = only_proposal(run_consolidation(project="alpha"))
    assert proposal.generator.startswith("deterministic (LLM failed: MEMORYHUB_LLM_MODEL must name the model")
