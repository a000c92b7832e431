"""Cross-cutting access checks over every operation of the API schema (new endpoints are covered automatically):
without a token, with a revoked token, and with a token of another project, nothing is read or changed.

tests/api/test_auth.py covers the token mechanics; this file sweeps the whole surface.
"""

from __future__ import annotations

import json

import pytest
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from rest_framework.test import APIClient

from memoryhub.agents.tokens import create_token, revoke_tokens
from memoryhub.memories.store import create_memory
from memoryhub.models import Memory, MemoryEvent, Proposal

pytestmark = pytest.mark.django_db

SECRET_WORDS = "kestrel-alpha-only"  # appears only in project alpha's memories, never in a request
QUERY = "where are sessions kept Redis"


def operations() -> list[tuple[str, str]]:
    schema = json.loads(OpenApiJsonRenderer().render(SchemaGenerator().get_schema(request=None, public=True)))
    return sorted((method, path) for path, item in schema["paths"].items() for method in item)


OPERATIONS = operations()
PUBLIC = {("get", "/api/v1/health")}


def request_for(method: str, path: str, memory_id: int, proposal_id: int) -> tuple[str, str, dict]:
    """A well-formed call aimed at project alpha's data, so only the token can be the reason for a refusal."""
    url = path.replace("{id}", str(proposal_id if "/proposals/" in path else memory_id))
    bodies = {
        "/api/v1/memories": {"content": "Alpha deploys use blue-green switching", "project": "alpha"},
        "/api/v1/memories/import": {"memories": [{"content": "Imported into alpha by a stranger", "project": "alpha"}]},
        "/api/v1/memories/{id}": {"content": "Rewritten by someone else", "tags": ["hijacked"]},
        "/api/v1/search": {"query": QUERY, "project": "alpha", "status": "any"},
        "/api/v1/recall": {"query": QUERY, "project": "alpha"},
        "/api/v1/tools/call": {"name": "memory_search", "arguments": {"query": QUERY, "project": "alpha"}},
        "/api/v1/proposals/run": {"project": "alpha"},
        "/api/v1/proposals/{id}/accept": {"content": "Merged by someone else"},
        "/api/v1/import_from": {
            "format": "markdown",
            "name": "CLAUDE.md",
            "project": "alpha",
            "content": "- Alpha deploys were imported by a stranger from another project.",
        },
        "/api/v1/capture": {
            "project": "alpha",
            "turns": [{"role": "user", "text": "Remember that alpha was captured by a stranger from another project."}],
        },
    }
    params = {
        "/api/v1/memories": {"project": "alpha"},
        "/api/v1/export": {"format": "jsonl"},
    }
    if method in ("get", "delete"):
        return method, url, params.get(path, {})
    return method, url, bodies.get(path, {})


@pytest.fixture
def alpha():
    first = create_memory(content=f"Alpha stores sessions in Redis {SECRET_WORDS}", project="alpha", source="claude")
    second = create_memory(content=f"Alpha keeps user sessions in Redis {SECRET_WORDS}", project="alpha")
    proposal = Proposal.objects.create(
        sources=[first.pk, second.pk],
        cluster_key=f"{first.pk},{second.pk}",
        project="alpha",
        content=f"Alpha keeps sessions in Redis {SECRET_WORDS}",
    )
    return first, proposal


def call(client: APIClient, method: str, url: str, data: dict):
    if method in ("get", "delete"):
        return getattr(client, method)(url, data)
    return getattr(client, method)(url, data, format="json")


def text_of(response) -> str:
    raw = b"".join(response.streaming_content) if response.streaming else response.content
    return raw.decode()


def state() -> tuple:
    """Everything a call could change: rows with their text and status, events, proposals."""
    memories = tuple(Memory.objects.order_by("pk").values_list("pk", "content", "status", "tags", "access_count"))
    proposals = tuple(Proposal.objects.order_by("pk").values_list("pk", "status", "merged_memory"))
    return memories, MemoryEvent.objects.count(), proposals


def client_with(raw: str | None) -> APIClient:
    client = APIClient()
    if raw:
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


def test_the_schema_lists_the_operations_this_file_sweeps():
    # A guard: if the schema lost its operations, the sweeps below would pass vacuously.
    assert len(OPERATIONS) >= 18
    assert ("post", "/api/v1/memories") in OPERATIONS and ("get", "/api/v1/export") in OPERATIONS


@pytest.mark.parametrize(("method", "path"), OPERATIONS)
def test_without_a_token_every_operation_but_health_is_a_401_and_changes_nothing(alpha, method, path):
    memory, proposal = alpha
    before = state()
    response = call(client_with(None), *request_for(method, path, memory.pk, proposal.pk))
    if (method, path) in PUBLIC:
        assert response.status_code == 200
    else:
        assert response.status_code == 401, response.content[:300]
        assert response.json()["error"]["code"] == "not_authenticated"
        assert SECRET_WORDS not in text_of(response)
    assert state() == before


@pytest.mark.parametrize(("method", "path"), sorted(set(OPERATIONS) - PUBLIC))
def test_a_revoked_token_is_refused_everywhere_and_changes_nothing(alpha, method, path):
    memory, proposal = alpha
    _, raw = create_token(name="retired-agent")
    revoke_tokens(name="retired-agent")
    before = state()
    response = call(client_with(raw), *request_for(method, path, memory.pk, proposal.pk))
    assert response.status_code == 401, response.content[:300]
    assert SECRET_WORDS not in text_of(response)
    assert state() == before


@pytest.mark.parametrize(("method", "path"), sorted(set(OPERATIONS) - PUBLIC))
def test_another_projects_token_can_neither_read_nor_change_alpha(alpha, method, path):
    memory, proposal = alpha
    _, raw = create_token(name="codex", projects=["beta"])
    before = state()
    response = call(client_with(raw), *request_for(method, path, memory.pk, proposal.pk))
    body = text_of(response)
    # Refused outright (403/404), or answered without a trace of alpha (lists, export, tool schemas).
    assert response.status_code in (200, 403, 404), body[:300]
    assert SECRET_WORDS not in body, f"{method} {path} leaked alpha: {body[:300]}"
    memories, events, proposals = state()
    assert (memories, proposals) == (before[0], before[2]), f"{method} {path} changed alpha"
