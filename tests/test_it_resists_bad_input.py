"""Hostile and broken input gets a clear 4xx in the one error shape, never a 500, and leaves nothing half-written.

The fixed cases go to the real server (waitress, the whole middleware stack, real sockets); the property tests
run in process through the same views, so Hypothesis can try many texts quickly.
"""

from __future__ import annotations

import json

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from memoryhub.agents.tokens import create_token as make_token
from memoryhub.models import Memory
from tests.live_server import LiveServer, create_token, migrated_store

MB = 1024 * 1024
A_FACT = "The integration tests need the Redis container running first"


@pytest.fixture(scope="module")
def live(store_template, tmp_path_factory):
    db = migrated_store(store_template, tmp_path_factory.mktemp("bad-input"))
    token = create_token(db, "fuzzer")
    # DEBUG logging: the test that checks no secret reaches the log gets every line there is.
    with LiveServer(db, threads=4, env={"MEMORYHUB_LOG_LEVEL": "DEBUG"}) as server:
        with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=120) as http:
            yield server, http


def assert_error(response: httpx.Response, status: int, field: str | None = None) -> dict:
    assert response.status_code == status, response.text[:500]
    body = response.json()
    assert set(body) == {"error"} and body["error"]["message"], body
    if field is not None:
        assert field in body["error"]["fields"], body
    return body["error"]


def post_raw(http: httpx.Client, path: str, body: bytes, content_type: str = "application/json") -> httpx.Response:
    return http.post(path, content=body, headers={"Content-Type": content_type})


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/v1/memories", b'{"content": ', None),
        ("/api/v1/memories", b"\xff\xfe not utf-8 at all", None),
        ("/api/v1/memories", b"[]", None),
        ("/api/v1/memories", b"null", None),
        ("/api/v1/memories", b'"just a string"', None),
        ("/api/v1/memories", b'{"content": 42}', "content"),
        ("/api/v1/memories", json.dumps({"content": A_FACT, "tags": "one,two"}).encode(), "tags"),
        ("/api/v1/memories", json.dumps({"content": A_FACT, "importance": "high"}).encode(), "importance"),
        ("/api/v1/memories", json.dumps({"content": A_FACT, "metadata": [1, 2]}).encode(), "metadata"),
        ("/api/v1/memories", json.dumps({"content": A_FACT, "importance": 7}).encode(), "importance"),
        ("/api/v1/memories", b'{"content": "The build runs at night", "importance": NaN}', None),
        ("/api/v1/memories", json.dumps({"content": "word " * 3000}).encode(), "content"),
        ("/api/v1/memories", b'{"content": "lone \\ud800 surrogate about the build"}', "content"),
        ("/api/v1/search", json.dumps({"query": "deploys", "k": "ten"}).encode(), "k"),
        ("/api/v1/search", json.dumps({"query": "deploys", "k": 10**30}).encode(), "k"),
        ("/api/v1/search", json.dumps({"query": "deploys", "mode": "telepathic"}).encode(), "mode"),
        ("/api/v1/search", json.dumps({"query": ["deploys"]}).encode(), "query"),
        ("/api/v1/search", json.dumps({"query": ""}).encode(), "query"),
        ("/api/v1/memories/import", json.dumps({"memories": "all of them"}).encode(), "memories"),
        ("/api/v1/memories/import", json.dumps({"memories": [1, 2]}).encode(), None),
        ("/api/v1/memories/import", json.dumps({"memories": [{"content": A_FACT}, {"tags": ["x"]}]}).encode(), None),
    ],
)
def test_malformed_json_and_wrong_types_get_a_400_naming_the_field(live, path, body, field):
    server, http = live
    before = http.get("/api/v1/health").json()["memories"]
    assert_error(post_raw(http, path, body), 400, field)
    assert http.get("/api/v1/health").json()["memories"] == before  # nothing half-written


def test_a_body_that_is_not_json_gets_a_415(live):
    _, http = live
    assert_error(post_raw(http, "/api/v1/memories", b"content=hello", "text/plain"), 415)


def test_deeply_nested_json_gets_a_400_not_a_crash(live):
    _, http = live
    nested_object = b'{"content": "' + A_FACT.encode() + b'", "metadata": ' + b'{"a":' * 50_000 + b"1" + b"}" * 50_001
    assert_error(post_raw(http, "/api/v1/memories", nested_object), 400)
    nested_array = b'{"query": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    assert_error(post_raw(http, "/api/v1/search", nested_array), 400)


def test_unencodable_text_anywhere_in_a_write_is_refused_and_never_poisons_later_reads(live):
    _, http = live
    # Lone surrogates (\udXXX escapes) parse as JSON but cannot be encoded as UTF-8 on the way out. Kept in their
    # own project, so that if one slips through, only this test's reads fail to render.
    scope = b', "project": "surrogates"}'
    bodies = [
        b'{"content": "' + A_FACT.encode() + b' (metadata)", "metadata": {"note": "\\udc00"}' + scope,
        b'{"content": "' + A_FACT.encode() + b' (metadata key)", "metadata": {"\\udc00": 1}' + scope,
        b'{"content": "' + A_FACT.encode() + b' (tag)", "tags": ["\\udc00"]' + scope,
    ]
    for body in bodies:
        assert 400 <= post_raw(http, "/api/v1/memories", body).status_code < 500, body
    imported = b'{"memories": [{"content": "\\udc00 builds are slow", "project": "surrogates"}]}'
    assert 400 <= post_raw(http, "/api/v1/memories/import", imported).status_code < 500
    # Had any of them been stored, every list and search that returns it would fail to render.
    assert http.get("/api/v1/memories", params={"project": "surrogates"}).status_code == 200
    searched = http.post("/api/v1/search", json={"query": "integration tests Redis", "project": "surrogates"})
    assert searched.status_code == 200


def test_huge_bodies_get_a_413_and_the_server_carries_on(live):
    server, http = live
    over_the_limit = http.post("/api/v1/memories", json={"content": "x" * (6 * MB)})
    assert_error(over_the_limit, 413)
    # Far over the limit, waitress itself refuses the body before Django reads it.
    absurd = post_raw(http, "/api/v1/memories", b'{"content": "' + b"x" * (11 * MB) + b'"}')
    assert absurd.status_code == 413
    assert http.get("/api/v1/health").status_code == 200


def test_an_id_too_large_for_sqlite_is_simply_not_found(live):
    _, http = live
    assert_error(http.get("/api/v1/memories/99999999999999999999999999"), 404)
    assert_error(http.post("/api/v1/proposals/99999999999999999999999999/accept", json={}), 404)


SQL_AND_FTS_SYNTAX = [
    "'; DROP TABLE memoryhub_memory; --",
    '" OR 1=1 --',
    "memory_fts MATCH *",
    "AI AND",
    "NEAR(",
    '"unbalanced',
    "c++",
    "*",
    "-foo",
    "content:secret",
    "^",
    "()",
    "ubuntu 20.04",
    "multi-agent",
    "don't",
    "%' OR '%'='",
    "\\x00",
]


def test_sql_looking_text_is_stored_and_searched_as_plain_text(live):
    _, http = live
    content = "Robert'); DROP TABLE memoryhub_memory;-- is the name the signup form must accept"
    written = http.post("/api/v1/memories", json={"content": content, "project": "injection"})
    assert written.status_code == 201, written.text
    memory_id = written.json()["memory"]["id"]
    for query in SQL_AND_FTS_SYNTAX:
        for mode in ("hybrid", "keyword", "semantic"):
            response = http.post("/api/v1/search", json={"query": query, "mode": mode, "project": "injection"})
            assert response.status_code == 200, (query, mode, response.text[:300])
            assert isinstance(response.json()["results"], list)
    found = http.post("/api/v1/search", json={"query": "DROP TABLE signup form", "project": "injection"})
    assert memory_id in [r["id"] for r in found.json()["results"]]
    assert http.get(f"/api/v1/memories/{memory_id}").json()["content"] == content
    sneaky_filter = http.get("/api/v1/memories", params={"project": "' OR 1=1 --"})
    assert sneaky_filter.status_code == 200 and sneaky_filter.json()["results"] == []


def test_bad_query_parameters_get_a_400(live):
    _, http = live
    assert_error(http.get("/api/v1/memories", params={"cursor": "not-a-cursor"}), 400, "cursor")
    assert http.get("/api/v1/memories", params={"limit": "lots", "project": "injection"}).status_code == 200
    assert_error(http.get("/api/v1/memories", params={"status": "'; DELETE FROM memoryhub_memory"}), 400, "status")


SECRETS = ["AKIAZ7QWERTY12345678", "ghp_" + "x1Y2z3" * 6, "sk-proj-" + "Q9w8E7r6T5y4" * 3]


def test_a_secret_the_gate_refuses_is_never_logged(live):
    server, http = live
    for secret in SECRETS:
        refused = http.post("/api/v1/memories", json={"content": f"The deploy key for staging is {secret} for now"})
        assert refused.status_code == 422 and refused.json()["outcome"] == "rejected", refused.text
        assert secret not in refused.text
        # Also where it fails validation or is merely searched for: still never written to the log.
        http.post("/api/v1/memories", json={"content": f"token {secret}", "importance": "not a number"})
        http.post("/api/v1/search", json={"query": secret})
    log = server.log()
    assert "Unprocessable Entity: /api/v1/memories" in log  # the refusals were logged, by path only
    assert [s for s in SECRETS if s in log] == []


# --- Property tests: arbitrary text, in process -------------------------------------------------------------------

# Every code point, lone surrogates and control characters included, with the troublemakers made frequent
# (joined from a list: st.text() would fold them into its own alphabet and almost never pick them).
TROUBLE = st.sampled_from(["\ud800", "\udfff", "\x00", "'", '"', "*", "(", "\u202e"])
ANY_TEXT = st.lists(st.characters(exclude_categories=()) | TROUBLE, max_size=120).map("".join)
PROPERTY = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)


@pytest.fixture
def client(db) -> APIClient:
    _, raw = make_token(name="hypothesis")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return api


def post_json(client: APIClient, path: str, payload) -> tuple[int, dict]:
    # json.dumps escapes lone surrogates as \udXXX, exactly what a hostile client can send.
    response = client.post(path, data=json.dumps(payload), content_type="application/json")
    assert response.status_code < 500, (payload, response.content[:300])
    return response.status_code, response.json()


@PROPERTY
@given(query=ANY_TEXT, mode=st.sampled_from(["hybrid", "keyword", "semantic"]), k=st.integers(-3, 150))
def test_search_answers_any_text_with_results_or_a_400(client, query, mode, k):
    status, body = post_json(client, "/api/v1/search", {"query": query, "mode": mode, "k": k})
    if status == 200:
        assert isinstance(body["results"], list) and len(body["results"]) <= k
    else:
        assert status == 400 and body["error"]["fields"], body


# Arbitrary text inside a sentence, so the gate's noise filter lets many through and the stored-memory path
# (rendering, duplicates, tags and metadata) is exercised too.
PLAIN = st.text(max_size=60)  # Hypothesis' default alphabet: no surrogates
SENTENCE = st.builds("The deploy of {} needs the {} before the nightly release".format, PLAIN, PLAIN)
CONTENT = ANY_TEXT | SENTENCE


@PROPERTY
@given(content=CONTENT, tags=st.lists(PLAIN | ANY_TEXT, max_size=3), note=ANY_TEXT)
def test_the_gate_answers_any_text_truthfully(client, content, tags, note):
    before = Memory.objects.count()
    payload = {"content": content, "tags": tags, "metadata": {"note": note}, "project": "fuzz"}
    status, body = post_json(client, "/api/v1/memories", payload)
    after = Memory.objects.count()
    if status == 201:
        assert body["outcome"] == "created" and after == before + 1
        assert Memory.objects.get(pk=body["memory"]["id"]).content == body["memory"]["content"]
    elif status == 200:
        assert body["outcome"] in ("merged", "duplicate") and after == before
    elif status == 422:
        assert body["outcome"] == "rejected" and body["memory"] is None and body["reason"] and after == before
    else:
        assert status == 400 and body["error"]["fields"] and after == before


# Mostly well-shaped items with arbitrary text in every field, now and then a wrong type.
IMPORT_ITEM = st.fixed_dictionaries(
    {"content": CONTENT},
    optional={
        "tags": st.lists(PLAIN | ANY_TEXT, max_size=3) | st.integers(),
        "metadata": st.dictionaries(PLAIN | ANY_TEXT, ANY_TEXT | st.integers() | st.none(), max_size=3) | ANY_TEXT,
        "importance": st.floats(min_value=0, max_value=1) | st.floats() | ANY_TEXT,
        "project": ANY_TEXT | st.none(),
        "category": st.sampled_from(["fact", "gotcha", "nonsense", ""]),
    },
)


@PROPERTY
@given(items=st.lists(IMPORT_ITEM, min_size=1, max_size=4))
def test_import_stores_all_of_a_batch_or_none_of_it(client, items):
    before = Memory.objects.count()
    status, body = post_json(client, "/api/v1/memories/import", {"memories": items})
    after = Memory.objects.count()
    if status in (200, 201):
        assert len(body["ids"]) == len(items) and after == before + len(items)
    elif status == 422:
        # Arbitrary text can look like a key: a secret (or a blank project) refuses the whole batch, naming where.
        fields = body["error"]["fields"]
        assert fields and all(key.startswith("memories.") for key in fields) and after == before
    else:
        assert status == 400 and body["error"]["fields"] and after == before
