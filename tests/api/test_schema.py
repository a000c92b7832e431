"""The OpenAPI schema validates with no warnings, every documented operation answers, and the docs work offline."""

from __future__ import annotations

import re

import pytest
import yaml
from django.core.management import call_command

from memoryhub.memories.store import create_memory
from memoryhub.models import Proposal

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def schema(tmp_path_factory) -> dict:
    path = tmp_path_factory.mktemp("schema") / "schema.yaml"
    # --fail-on-warn turns every drf-spectacular warning (an unannotated view, a guessed type) into a failure.
    call_command("spectacular", "--fail-on-warn", "--validate", "--file", str(path))
    return yaml.safe_load(path.read_text())


def test_the_schema_documents_the_whole_contract(schema):
    assert schema["openapi"].startswith("3.")
    expected = {
        "/api/v1/health": {"get"},
        "/api/v1/memories": {"get", "post"},
        "/api/v1/memories/import": {"post"},
        "/api/v1/memories/{id}": {"get", "patch", "delete"},
        "/api/v1/memories/{id}/refresh": {"post"},
        "/api/v1/memories/{id}/history": {"get"},
        "/api/v1/memories/{id}/restore": {"post"},
        "/api/v1/search": {"post"},
        "/api/v1/recall": {"post"},
        "/api/v1/tools": {"get"},
        "/api/v1/tools/call": {"post"},
        "/api/v1/proposals": {"get"},
        "/api/v1/proposals/{id}": {"get"},
        "/api/v1/proposals/run": {"post"},
        "/api/v1/proposals/{id}/accept": {"post"},
        "/api/v1/proposals/{id}/reject": {"post"},
        "/api/v1/proposals/{id}/undo": {"post"},
        "/api/v1/export": {"get"},
        "/api/v1/whoami": {"get"},
        "/api/v1/import_from": {"post"},
        "/api/v1/capture": {"post"},
    }
    documented = {path: {m for m in ops if m != "parameters"} for path, ops in schema["paths"].items()}
    assert documented == expected
    assert schema["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"
    memory = schema["components"]["schemas"]["Memory"]["properties"]
    assert set(memory) == {
        "id", "content", "category", "tier", "project", "tags", "metadata", "source", "importance",
        "effective_importance", "confirmed", "status", "embed_model", "created_at", "updated_at",
        "last_accessed_at", "access_count", "merged_into", "valid_from", "supersedes", "superseded_by", "valid_to",
        "expires_at", "verified_at",
    }  # fmt: skip


BODIES = {
    ("post", "/api/v1/memories"): {"content": "The schema test checks that every path answers", "project": "alpha"},
    ("post", "/api/v1/memories/import"): {"memories": [{"content": "Imported by the schema test", "project": "alpha"}]},
    ("patch", "/api/v1/memories/{id}"): {"tags": ["schema"]},
    ("post", "/api/v1/search"): {"query": "schema test", "project": "alpha"},
    ("post", "/api/v1/recall"): {"project": "alpha", "query": "schema"},
    ("post", "/api/v1/tools/call"): {"name": "memory_list", "arguments": {"project": "alpha"}},
    ("post", "/api/v1/proposals/{id}/accept"): {},
    ("post", "/api/v1/proposals/run"): {"project": "alpha"},
}


def test_every_documented_operation_answers(schema, curator):
    memory = create_memory(content="The alpha API answers on port 8080", project="alpha")
    a = create_memory(content="Alpha uses Redis for caching sessions", project="alpha")
    b = create_memory(content="Alpha caches sessions with Redis", project="alpha")
    proposal = Proposal.objects.create(sources=[a.pk, b.pk], cluster_key=f"{a.pk},{b.pk}", project="alpha",
                                       content="Alpha caches sessions in Redis")  # fmt: skip
    operations = [(m, p) for p, ops in schema["paths"].items() for m in ops if m != "parameters"]
    # Deleting goes last, so the other operations on {id} see a memory.
    operations.sort(key=lambda op: op[0] == "delete")
    for method, path in operations:
        pk = proposal.pk if path.startswith("/api/v1/proposals/") else memory.pk
        url = re.sub(r"\{id\}", str(pk), path)
        body = BODIES.get((method, path), {})
        response = (
            getattr(curator.client, method)(url, body, format="json") if method != "get" else curator.client.get(url)
        )
        assert response.status_code not in (404, 405, 500), (method, path, response.status_code, response.content[:300])
        assert response.status_code < 500, (method, path, response.content[:300])


def test_the_schema_is_served_as_yaml_and_json(anon):
    assert anon.get("/api/v1/schema").status_code == 200
    response = anon.get("/api/v1/schema", {"format": "json"})
    assert response.status_code == 200
    assert "/api/v1/memories" in response.json()["paths"]


def test_the_docs_page_loads_only_local_assets(anon):
    page = anon.get("/api/v1/docs")
    assert page.status_code == 200
    html = page.content.decode()
    sources = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert sources and all(s.startswith("/api/v1/") for s in sources), sources
    assert "cdn" not in html.lower()
    for source in sources:
        response = anon.get(source)
        assert response.status_code == 200, source
    assert "unsafe-eval" not in page["Content-Security-Policy"]
    assert "script-src 'self';" in page["Content-Security-Policy"]


def test_an_unknown_docs_asset_is_404(anon):
    assert anon.get("/api/v1/docs/assets/secrets.txt").status_code == 404


def test_the_docs_with_a_trailing_slash_lead_to_the_docs(anon):
    response = anon.get("/api/v1/docs/", follow=True)
    assert response.redirect_chain == [("/api/v1/docs", 301)] and response.status_code == 200
