"""Schemathesis against the live server's own OpenAPI schema, with a token: no operation answers 500.

Hypothesis generates bodies, paths and query strings that fit the schema (and some that break it) for every
operation, and each is sent to the real server. The example count is kept modest so the whole file runs in a
couple of minutes on two cores.

The operations are collected from the schema this code generates (schemathesis' lazy `from_fixture` loader
does not work with pytest 9); the first test checks that the live server serves exactly that schema.
"""

from __future__ import annotations

import json

import httpx
import pytest
import schemathesis
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from hypothesis import HealthCheck, settings

from tests.live_server import LiveServer, create_token, migrated_store

SEED = [
    {"content": "Deploys to staging need the VPN connected first", "project": "fuzz", "category": "gotcha"},
    {"content": "The team prefers pytest fixtures over unittest setUp", "category": "preference"},
    {"content": "Invoices are generated nightly by the billing worker", "project": "fuzz", "tags": ["billing"]},
    {"content": "Invoices are generated every night by the billing worker", "project": "fuzz", "tags": ["billing"]},
]


@pytest.fixture(scope="module")
def live(store_template, tmp_path_factory):
    db = migrated_store(store_template, tmp_path_factory.mktemp("fuzz"))
    token = create_token(db, "schemathesis")
    with LiveServer(db, threads=4) as server:
        # Something to read, merge and undo, so detail and proposal routes do more than 404.
        headers = {"Authorization": f"Bearer {token}"}
        httpx.post(f"{server.url}/api/v1/memories/import", json={"memories": SEED}, headers=headers, timeout=120)
        httpx.post(f"{server.url}/api/v1/proposals/run", json={}, headers=headers, timeout=120)
        yield server, token


def generated_schema() -> dict:
    return json.loads(OpenApiJsonRenderer().render(SchemaGenerator().get_schema(request=None, public=True)))


schema = schemathesis.openapi.from_dict(generated_schema())


def test_the_live_server_serves_the_schema_being_fuzzed(live):
    server, _ = live
    served = httpx.get(f"{server.url}/api/v1/schema", params={"format": "json"}, timeout=60)
    assert served.status_code == 200
    assert served.json() == generated_schema()


@schema.parametrize()
@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_operation_answers_500(case, live):
    server, token = live
    headers = {"Authorization": f"Bearer {token}"}
    response = case.call(base_url=server.url, headers=headers, timeout=120)
    assert response.status_code < 500, (
        f"{response.status_code} for:\n{case.as_curl_command(headers=headers, base_url=server.url)}\n"
        f"{response.text[:500]}"
    )


def test_the_inputs_that_once_answered_500_answer_4xx(live):
    """Found by hand, kept here beside the generated cases: crafted cursors, calendar-edge and zoneless import
    dates, blank projects, NUL bytes in tool calls, and hostile bodies on the chat proxy."""
    import base64

    server, token = live
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=server.url, headers=headers, timeout=120) as http:
        for path in ("/api/v1/memories", "/api/v1/proposals"):
            for raw in ("p=abc", "r=1&p=1e999", "p=-1"):
                cursor = base64.b64encode(raw.encode()).decode()
                assert http.get(path, params={"cursor": cursor}).status_code == 400
        dated = [
            {"content": "Fuzzing imports keep their dates", "project": "fuzz", "created_at": value}
            for value in ("2024-01-02T03:04:05", "9999-12-31T23:59:59-05:00", "0001-01-01T00:00:00+05:00")
        ]
        assert http.post("/api/v1/memories/import", json={"memories": dated}).status_code == 201
        blank = {"memories": [{"content": "A blank project is refused", "project": "   "}]}
        assert http.post("/api/v1/memories/import", json=blank).status_code == 422
        nul = {"name": "memory_store", "arguments": {"content": "NUL \u0000 inside", "project": "fuzz"}}
        assert http.post("/api/v1/tools/call", json=nul).status_code == 400
        # Issue 25: JSON nested past Python's recursion limit inside an import_from file, and a 4 MiB metadata value.
        deep = '{"results": [{"memory": "Deep metadata", "metadata": ' + '{"a":' * 20_000 + "1" + "}" * 20_000 + "}]}"
        for format, content in (("mem0", deep), ("mcp-memory", '{"type": "entity", "x": ' + "[" * 20_000)):
            answer = http.post("/api/v1/import_from", json={"format": format, "content": content})
            assert answer.status_code == 400, answer.text[:300]
        big = {"content": "Metadata has a size limit", "project": "fuzz", "metadata": {"blob": "x" * 4 * 1024 * 1024}}
        assert http.post("/api/v1/memories", json=big).status_code == 422
        nested = b'{"model": "m", "messages": ' + b"[" * 20_000 + b"]" * 20_000 + b"}"
        surrogate = b'{"model": "m", "messages": [{"role": "user", "content": "\\ud800"}]}'
        for body in (nested, surrogate):
            answer = http.post("/v1/chat/completions", content=body, headers={"Content-Type": "application/json"})
            assert answer.status_code == 400, answer.text[:300]
