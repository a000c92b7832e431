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
