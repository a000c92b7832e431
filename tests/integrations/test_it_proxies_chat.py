"""The chat proxy end to end: MemoryHub's /v1/chat/completions in front of a real HTTP server on 127.0.0.1 that
plays an OpenAI-compatible model (tests/integrations/fake_upstream.py), with the real store and embedding model.

Most tests drive the proxy through Django's test client (the store is the test database, so what the proxy
recorded can be read back directly); the last one runs the real server (`manage.py serve`, waitress) to prove
the stream reaches the client chunk by chunk rather than all at the end.
"""

from __future__ import annotations

import json
import threading
import time

import httpx
import pytest

from memoryhub.agents.rounds import LIMIT_NOTE, MAX_MEMORY_ROUNDS
from memoryhub.agents.tokens import create_token
from memoryhub.memories.store import create_memory
from memoryhub.models import Memory, UsageRecord
from memoryhub.retrieval.recall import HEADER
from tests.integrations.fake_upstream import FakeUpstream, Reply, system_prompt, tool_names, tool_results
from tests.live_server import LiveServer, migrated_store, query_store
from tests.live_server import create_token as create_live_token

URL = "/v1/chat/completions"
DEPLOY_FACT = "Deploys go to the staging cluster first, then to production through Argo CD."
PREFERENCE = "The user prefers short answers with code first and explanations after."
MEMORY_TOOLS = {"memory_search", "memory_store", "memory_update", "memory_delete", "memory_list", "memory_refresh"}
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


@pytest.fixture
def memories(db, real_embedder):
    fact = create_memory(content=DEPLOY_FACT, project="alpha", category="decision", confirmed=True, source="me")
    create_memory(content="The beta project ships as a Debian package.", project="beta", confirmed=True)
    preference = create_memory(content=PREFERENCE, category="preference", confirmed=True, source="me")
    return fact, preference


@pytest.fixture
def token(db) -> str:
    return create_token(name="claude", projects=["alpha"])[1]


def chat(client, token: str, body: dict, **headers):
    body = {"model": "fake-model", **body}
    return client.post(
        URL,
        data=json.dumps(body),
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}", **headers},
    )


def ask(text: str, **extra) -> dict:
    return {
        "messages": [{"role": "system", "content": "You are a careful engineer."}, {"role": "user", "content": text}],
        **extra,
    }


def sse_events(response) -> list:
    """The data of each SSE event, JSON-decoded; the final `[DONE]` stays a string."""
    assert response["Content-Type"].startswith("text/event-stream")
    text = b"".join(response.streaming_content).decode()
    return [
        e[len("data: ") :] if e.endswith("[DONE]") else json.loads(e[len("data: ") :]) for e in text.split("\n\n") if e
    ]


def streamed_text(events: list) -> str:
    return "".join(c["choices"][0]["delta"].get("content") or "" for c in events[:-1] if c.get("choices"))


def searcher(body: dict) -> Reply:
    """Searches memory once, then answers with what the search returned."""
    if tool_results(body):
        return Reply(content="Found: " + json.loads(tool_results(body)[-1])["results"][0]["content"])
    return Reply(tool_calls=[{"name": "memory_search", "arguments": {"query": "how do deploys work"}}])


def looper(body: dict) -> Reply:
    """Searches again and again for as long as it is allowed to."""
    if "memory_search" in tool_names(body) and body.get("tool_choice") != "none":
        return Reply(tool_calls=[{"name": "memory_search", "arguments": {"query": "deploys"}}])
    return Reply(content=f"Answering with {len(tool_results(body))} results in hand.")


def the_record() -> UsageRecord:
    return UsageRecord.objects.get(kind="proxy")


def test_a_plain_answer_passes_through_with_the_recall_block_in_the_system_prompt(client, upstream, memories, token):
    response = chat(client, token, ask("How do we deploy?"))

    assert response.status_code == 200, response.content
    assert response["Cache-Control"] == "no-store"
    answer = response.json()
    assert answer["choices"][0]["message"] == {"role": "assistant", "content": "Plain answer."}
    assert answer["usage"] == {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
    [seen] = upstream.requests
    prompt = system_prompt(seen)
    assert prompt.startswith("You are a careful engineer.\n\n" + HEADER)
    assert DEPLOY_FACT in prompt and PREFERENCE in prompt
    assert "Debian package" not in prompt  # another project's memory never reaches this one
    assert seen["messages"][1:] == [{"role": "user", "content": "How do we deploy?"}]
    assert set(tool_names(seen)) == MEMORY_TOOLS
    # The client's MemoryHub token stays here; the upstream sees the proxy's own key.
    assert upstream.headers[0]["Authorization"] == "Bearer upstream-secret"
    record = the_record()
    block = prompt[len("You are a careful engineer.\n\n") :]
    assert (record.agent, record.project, record.recall_chars, record.tool_calls) == ("claude", "alpha", len(block), 0)
    assert (record.prompt_tokens, record.completion_tokens) == (11, 7)
    assert record.latency_ms > 0


def test_without_a_system_prompt_the_recall_block_becomes_one(client, upstream, memories, token):
    response = chat(client, token, {"messages": [{"role": "user", "content": "Anything about deploys?"}]})

    assert response.status_code == 200
    first, second = upstream.requests[0]["messages"]
    assert first["role"] == "system" and first["content"].startswith(HEADER)
    assert second == {"role": "user", "content": "Anything about deploys?"}


def test_a_model_that_calls_memory_search_gets_the_result_and_answers(client, upstream, memories, token):
    upstream.behaviour = searcher

    response = chat(client, token, ask("How do deploys work here?"))

    assert response.status_code == 200, response.content
    message = response.json()["choices"][0]["message"]
    assert message == {"role": "assistant", "content": f"Found: {DEPLOY_FACT}"}
    assert response.json()["choices"][0]["finish_reason"] == "stop"
    assert response.json()["usage"]["prompt_tokens"] == 22  # both rounds are counted
    first, second = upstream.requests
    assistant, tool = second["messages"][-2:]
    assert assistant["tool_calls"][0]["function"]["name"] == "memory_search"
    assert tool["role"] == "tool" and tool["tool_call_id"] == assistant["tool_calls"][0]["id"]
    assert json.loads(tool["content"])["results"][0]["id"] == memories[0].pk
    record = the_record()
    assert (record.tool_calls, record.prompt_tokens, record.completion_tokens) == (1, 22, 14)


def test_a_model_that_loops_on_memory_search_stops_after_three_rounds(client, upstream, memories, token):
    upstream.behaviour = looper

    response = chat(client, token, ask("Tell me everything about deploys"))

    assert response.status_code == 200, response.content
    assert response.json()["choices"][0]["message"]["content"] == "Answering with 3 results in hand."
    assert len(upstream.requests) == MAX_MEMORY_ROUNDS + 1
    last = upstream.requests[-1]
    assert last["tool_choice"] == "none"
    assert json.loads(tool_results(last)[-1])["note"] == LIMIT_NOTE.format(rounds=MAX_MEMORY_ROUNDS)
    assert all("tool_choice" not in r for r in upstream.requests[:-1])
    assert the_record().tool_calls == 3


def test_a_wrong_memory_tool_call_is_answered_to_the_model_which_can_correct_itself(client, upstream, memories, token):
    def sloppy(body: dict) -> Reply:
        if not tool_results(body):
            return Reply(tool_calls=[{"name": "memory_search", "arguments": {"qurey": "deploys"}}])
        return Reply(content="Corrected: " + tool_results(body)[-1])

    upstream.behaviour = sloppy
    response = chat(client, token, ask("deploys?"))

    assert response.status_code == 200
    content = response.json()["choices"][0]["message"]["content"]
    assert "memory_search has no argument 'qurey'" in content


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_a_client_defined_tool_passes_through_to_the_client(client, upstream, memories, token, stream):
    upstream.behaviour = lambda body: Reply(tool_calls=[{"name": "get_weather", "arguments": {"city": "Paris"}}])

    response = chat(client, token, ask("Weather in Paris?", tools=[WEATHER_TOOL], stream=stream))

    assert response.status_code == 200
    if stream:
        events = sse_events(response)
        [call_chunk] = [e for e in events[:-1] if e["choices"] and e["choices"][0]["delta"].get("tool_calls")]
        calls = call_chunk["choices"][0]["delta"]["tool_calls"]
        finish = [e["choices"][0]["finish_reason"] for e in events[:-1] if e["choices"]][-1]
    else:
        calls = response.json()["choices"][0]["message"]["tool_calls"]
        finish = response.json()["choices"][0]["finish_reason"]
    assert [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    assert finish == "tool_calls"
    [seen] = upstream.requests  # nothing was run here: one round, handed straight back
    assert seen["tools"][0] == WEATHER_TOOL
    assert set(tool_names(seen)) == MEMORY_TOOLS | {"get_weather"}
    assert the_record().tool_calls == 0


def test_streaming_runs_memory_rounds_inside_one_sse_stream(client, upstream, memories, token):
    upstream.behaviour = searcher

    response = chat(client, token, ask("How do deploys work?", stream=True, stream_options={"include_usage": True}))

    assert response.status_code == 200
    events = sse_events(response)
    assert events[-1] == "[DONE]"
    chunks = events[:-1]
    assert {c["id"] for c in chunks} == {"chatcmpl-fake"}
    assert {c["object"] for c in chunks} == {"chat.completion.chunk"}
    assert streamed_text(chunks) == f"Found: {DEPLOY_FACT}"
    assert not any(c["choices"] and "tool_calls" in c["choices"][0]["delta"] for c in chunks)
    assert [c["choices"][0]["finish_reason"] for c in chunks if c["choices"]][-1] == "stop"
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["prompt_tokens"] == 22
    assert all(r["stream"] and r["stream_options"] == {"include_usage": True} for r in upstream.requests)
    record = the_record()
    assert (record.tool_calls, record.prompt_tokens, record.recall_chars > 0) == (1, 22, True)


def test_streaming_survives_an_upstream_that_answers_json_instead(client, upstream, memories, token):
    upstream.behaviour = lambda body: (
        Reply(tool_calls=[{"name": "memory_search", "arguments": {"query": "deploys"}}], ignore_stream=True)
        if not tool_results(body)
        else Reply(content="Answered without streaming.", ignore_stream=True)
    )

    response = chat(client, token, ask("deploys?", stream=True))

    events = sse_events(response)
    assert streamed_text(events) == "Answered without streaming."
    assert events[-1] == "[DONE]"
    assert the_record().tool_calls == 1


def test_streaming_without_include_usage_sends_no_usage_chunk_but_still_records_it(client, upstream, memories, token):
    response = chat(client, token, ask("Hi", stream=True))

    events = sse_events(response)
    assert streamed_text(events) == "Plain answer."
    assert not any("usage" in e for e in events[:-1])
    assert the_record().completion_tokens == 7


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_an_upstream_500_becomes_a_clean_openai_error(client, upstream, memories, token, stream):
    upstream.behaviour = lambda body: Reply(status=500, error="model crashed")

    response = chat(client, token, ask("Hi", stream=stream))

    assert response.status_code == 502
    assert response.json() == {
        "error": {
            "message": "the upstream model answered HTTP 500: model crashed",
            "type": "upstream_error",
            "param": None,
            "code": "upstream_error",
        }
    }
    assert the_record().recall_chars > 0  # the failed request is still counted


def test_an_upstream_timeout_becomes_a_clean_openai_error(client, upstream, settings, memories, token):
    settings.MEMORYHUB_UPSTREAM_TIMEOUT = 0.5
    upstream.behaviour = lambda body: Reply(content="too late", delay=10)

    response = chat(client, token, ask("Hi"))

    assert response.status_code == 504
    assert response.json()["error"] == {
        "message": "the upstream model did not answer within 0.5 s",
        "type": "upstream_error",
        "param": None,
        "code": "upstream_timeout",
    }


def test_an_upstream_failure_mid_stream_ends_the_stream_with_an_error_event(client, upstream, memories, token):
    upstream.behaviour = lambda body: searcher(body) if not tool_results(body) else Reply(status=500, error="boom")

    response = chat(client, token, ask("deploys?", stream=True))

    assert response.status_code == 200  # the stream had started before the second round failed
    events = sse_events(response)
    assert events[-1] == "[DONE]"
    assert events[-2]["error"]["code"] == "upstream_error" and "boom" in events[-2]["error"]["message"]
    assert the_record().tool_calls == 1


def test_a_malformed_tool_call_from_the_model_becomes_a_clean_error(client, upstream, memories, token):
    upstream.behaviour = lambda body: Reply(tool_calls=[{"name": "", "arguments": {}}])

    response = chat(client, token, ask("Hi"))

    assert response.status_code == 502
    assert response.json()["error"]["code"] == "malformed_tool_call"


def test_an_unreachable_upstream_becomes_a_clean_error(client, settings, memories, token):
    settings.MEMORYHUB_UPSTREAM_BASE_URL = "http://127.0.0.1:9/v1"  # the discard port: nothing listens

    response = chat(client, token, ask("Hi"))

    assert response.status_code == 502
    assert response.json()["error"]["code"] == "upstream_unreachable"


def test_it_refuses_a_missing_or_wrong_token_in_openai_shape(client, upstream, db):
    missing = client.post(URL, data="{}", content_type="application/json")
    wrong = chat(client, "mh_not-a-token", ask("Hi"))

    assert missing.status_code == wrong.status_code == 401
    assert missing.json()["error"]["type"] == "authentication_error"
    assert wrong.json()["error"]["code"] == "invalid_api_key"
    assert upstream.requests == []


def test_it_picks_the_project_from_the_header_and_refuses_one_outside_the_token(client, upstream, memories):
    unscoped = create_token(name="codex")[1]

    beta = chat(client, unscoped, ask("How do we ship?"), **{"X-MemoryHub-Project": "beta"})
    refused = chat(
        client, create_token(name="scoped", projects=["alpha"])[1], ask("Hi"), **{"X-MemoryHub-Project": "beta"}
    )

    assert beta.status_code == 200
    assert "Debian package" in system_prompt(upstream.requests[0])
    assert DEPLOY_FACT not in system_prompt(upstream.requests[0])
    assert refused.status_code == 403 and refused.json()["error"]["type"] == "permission_error"
    assert len(upstream.requests) == 1


def test_it_refuses_bad_requests_in_openai_shape(client, upstream, token):
    not_json = client.post(URL, data="{", content_type="application/json", headers={"Authorization": f"Bearer {token}"})
    no_messages = chat(client, token, {"messages": []})
    get = client.get(URL, headers={"Authorization": f"Bearer {token}"})

    assert not_json.status_code == no_messages.status_code == 400
    assert no_messages.json()["error"] == {
        "message": "messages must be a non-empty list",
        "type": "invalid_request_error",
        "param": "messages",
        "code": None,
    }
    assert get.status_code == 405
    assert upstream.requests == []


def test_a_read_only_token_is_offered_only_the_reading_tools_and_told_no_when_it_writes(client, upstream, memories):
    reader = create_token(name="reader", read_only=True)[1]

    def writer(body: dict) -> Reply:
        if not tool_results(body):
            return Reply(tool_calls=[{"name": "memory_store", "arguments": {"content": "Reading tokens can write."}}])
        return Reply(content="Store said: " + tool_results(body)[-1])

    upstream.behaviour = writer
    response = chat(client, reader, ask("Remember this"))

    assert set(tool_names(upstream.requests[0])) == {"memory_search", "memory_list"}
    assert "this token is read-only" in response.json()["choices"][0]["message"]["content"]
    assert not Memory.objects.filter(content__startswith="Reading tokens").exists()


def test_models_lists_the_upstream_models(client, upstream, token):
    response = client.get("/v1/models", headers={"Authorization": f"Bearer {token}"})

    assert response.status_code == 200
    assert response.json()["data"] == [{"id": "fake-model", "object": "model"}]


@pytest.mark.slow
def test_the_real_server_streams_each_chunk_as_it_comes(store_template, tmp_path):
    """Through waitress: the client reads the first chunk while the model is still holding back the rest."""
    release = threading.Event()
    with FakeUpstream(lambda body: Reply(content="Hello from the model.", hold_after_first_chunk=release)) as fake:
        db = migrated_store(store_template, tmp_path)
        raw = create_live_token(db, "streamer")
        env = {"MEMORYHUB_UPSTREAM_BASE_URL": fake.base_url, "MEMORYHUB_UPSTREAM_TIMEOUT": "20"}
        with LiveServer(db, threads=4, env=env) as server:
            body = {"model": "fake-model", "stream": True, "messages": [{"role": "user", "content": "Hi"}]}
            headers = {"Authorization": f"Bearer {raw}"}
            lines: list[str] = []
            with httpx.stream("POST", server.url + URL, json=body, headers=headers, timeout=20) as response:
                assert response.status_code == 200
                for line in response.iter_lines():
                    if line.startswith("data: "):
                        lines.append(line[len("data: ") :])
                        if len(lines) == 1:
                            # Only the first chunk can have arrived: the model sends no more until released.
                            assert json.loads(lines[0])["choices"][0]["delta"]["role"] == "assistant"
                            release.set()
            assert fake.holds == [True]  # released by the client's read, not by the wait running out
            assert lines[-1] == "[DONE]"
            text = "".join(json.loads(x)["choices"][0]["delta"].get("content") or "" for x in lines[:-1])
            assert text == "Hello from the model."
            assert _wait_for_proxy_rows(db) == [("streamer", 7, 0)]


def _wait_for_proxy_rows(db, timeout: float = 10.0) -> list[tuple]:
    """The server writes the record as the stream closes, a moment after the client has read [DONE]."""
    deadline = time.monotonic() + timeout
    while True:
        rows = query_store(
            db, "SELECT agent, completion_tokens, tool_calls FROM memoryhub_usagerecord WHERE kind = 'proxy'"
        )
        if rows or time.monotonic() > deadline:
            return rows
        time.sleep(0.1)
