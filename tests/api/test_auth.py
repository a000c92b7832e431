"""Bearer tokens: every endpoint but health needs one; hashed at rest; revocable; project scope and read-only.

The token mechanics come first; then a sweep over every operation of the API schema (new endpoints are covered
automatically): without a token, with a revoked token, and with a token of another project, nothing is read or
changed.
"""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from rest_framework.test import APIClient

from memoryhub.agents.tokens import create_token, hash_token, revoke_tokens, verify_token
from memoryhub.memories.store import create_memory
from memoryhub.models import ApiToken, Memory, MemoryEvent, Proposal
from tests.api.conftest import error_of, make_agent

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "header", ["Bearer mh_not-a-real-token", "Bearer", "Token abc", "Basic dXNlcjpwYXNz", "Bearer two tokens"]
)
def test_a_bad_token_is_a_401(header, db):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header)
    response = client.get("/api/v1/memories")
    assert response.status_code == 401
    assert error_of(response)["code"] == "not_authenticated"


def test_a_revoked_token_is_a_401(claude):
    assert claude.get("memories").status_code == 200
    assert revoke_tokens(name="claude") == 1
    response = claude.get("memories")
    assert response.status_code == 401
    assert "revoked" in error_of(response)["message"]


def test_health_needs_no_token(anon):
    create_memory(content="Alpha uses Redis for sessions", project="alpha")
    response = anon.get("/api/v1/health")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok" and body["memories"] == 1 and body["embed_model"]


def test_tokens_are_stored_only_as_a_sha256_hash(claude):
    row = ApiToken.objects.get(name="claude")
    assert row.token_hash == hash_token(claude.raw)
    assert len(row.token_hash) == 64
    stored = " ".join(str(v) for v in ApiToken.objects.values_list(flat=False).get(pk=row.pk))
    assert claude.raw not in stored
    assert claude.raw.startswith(row.prefix)


def test_verify_records_when_a_token_was_last_used(claude):
    assert ApiToken.objects.get(name="claude").last_used_at is None
    assert verify_token(claude.raw).name == "claude"
    assert ApiToken.objects.get(name="claude").last_used_at is not None
    assert verify_token(claude.raw + "x") is None


def test_create_token_prints_the_token_last_and_it_works(db, capsys):
    call_command("create_token", "opencode", "--project", "alpha", "--project", "beta", "--read-only")
    raw = capsys.readouterr().out.strip().splitlines()[-1]
    token = verify_token(raw)
    assert (token.name, token.projects, token.read_only) == ("opencode", ["alpha", "beta"], True)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert client.get("/api/v1/memories").status_code == 200
    assert client.post("/api/v1/memories", {"content": "Alpha uses Redis 7"}, format="json").status_code == 403


def test_revoke_token_command_revokes_by_name_or_prefix(db, capsys):
    first = make_agent("codex")
    second = make_agent("codex")
    call_command("revoke_token", "--prefix", first.token.prefix)
    assert first.get("memories").status_code == 401
    assert second.get("memories").status_code == 200
    call_command("revoke_token", "codex")
    assert second.get("memories").status_code == 401
    assert "Revoked 1 token." in capsys.readouterr().out


def test_the_source_is_the_tokens_agent_never_the_body(claude):
    response = claude.store("Alpha caches sessions in Redis", project="alpha", source="root")
    assert response.json()["memory"]["source"] == "claude"


# The sweep over every operation of the schema.

SECRET_WORDS = "kestrel-alpha-only"  # appears only in project alpha's memories, never in a request
QUERY = "where are sessions kept Redis"


def operations() -> list[tuple[str, str]]:
    schema = json.loads(OpenApiJsonRenderer().render(SchemaGenerator().get_schema(request=None, public=True)))
    return sorted((method, path) for path, item in schema["paths"].items() for method in item)


OPERATIONS = operations()
PUBLIC = {("get", "/api/v1/health")}
# The endpoints DESIGN.md names, each of which the sweeps below must reach.
NAMED = {
    ("get", "/api/v1/memories"),
    ("post", "/api/v1/memories"),
    ("post", "/api/v1/memories/import"),
    ("get", "/api/v1/memories/{id}"),
    ("patch", "/api/v1/memories/{id}"),
    ("delete", "/api/v1/memories/{id}"),
    ("post", "/api/v1/memories/{id}/refresh"),
    ("get", "/api/v1/memories/{id}/history"),
    ("post", "/api/v1/search"),
    ("post", "/api/v1/recall"),
    ("get", "/api/v1/tools"),
    ("post", "/api/v1/tools/call"),
    ("get", "/api/v1/proposals"),
    ("post", "/api/v1/proposals/run"),
    ("post", "/api/v1/proposals/{id}/accept"),
    ("post", "/api/v1/proposals/{id}/reject"),
    ("post", "/api/v1/proposals/{id}/undo"),
    ("get", "/api/v1/export"),
    ("post", "/api/v1/import_from"),
    ("post", "/api/v1/capture"),
    ("get", "/api/v1/whoami"),
}


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
    assert NAMED <= set(OPERATIONS), sorted(NAMED - set(OPERATIONS))


@pytest.mark.parametrize(("method", "path"), OPERATIONS)
def test_without_a_token_every_operation_but_health_is_a_401_and_changes_nothing(alpha, method, path):
    memory, proposal = alpha
    before = state()
    response = call(client_with(None), *request_for(method, path, memory.pk, proposal.pk))
    if (method, path) in PUBLIC:
        assert response.status_code == 200
    else:
        assert response.status_code == 401, response.content[:300]
        assert error_of(response)["code"] == "not_authenticated"
        assert response["WWW-Authenticate"].startswith("Bearer")
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
    error = error_of(response)
    assert error["code"] == "not_authenticated" and "revoked" in error["message"]
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
