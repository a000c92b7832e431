"""Bearer tokens: every endpoint but health needs one; hashed at rest; project scope and read-only."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from memoryhub.agents.tokens import hash_token, revoke_tokens, verify_token
from memoryhub.memories.store import create_memory
from memoryhub.models import ApiToken
from tests.api.conftest import error_of, make_agent

pytestmark = pytest.mark.django_db

ENDPOINTS = [
    ("get", "/api/v1/memories"),
    ("post", "/api/v1/memories"),
    ("post", "/api/v1/memories/import"),
    ("get", "/api/v1/memories/1"),
    ("patch", "/api/v1/memories/1"),
    ("delete", "/api/v1/memories/1"),
    ("post", "/api/v1/memories/1/refresh"),
    ("get", "/api/v1/memories/1/history"),
    ("post", "/api/v1/search"),
    ("post", "/api/v1/recall"),
    ("get", "/api/v1/tools"),
    ("post", "/api/v1/tools/call"),
    ("get", "/api/v1/proposals"),
    ("post", "/api/v1/proposals/run"),
    ("post", "/api/v1/proposals/1/accept"),
    ("post", "/api/v1/proposals/1/reject"),
    ("post", "/api/v1/proposals/1/undo"),
    ("get", "/api/v1/export"),
]


@pytest.mark.parametrize(("method", "path"), ENDPOINTS)
def test_every_endpoint_but_health_needs_a_token(method, path, anon):
    response = getattr(anon, method)(path, {}, format="json")
    assert response.status_code == 401
    assert error_of(response)["code"] == "not_authenticated"
    assert response["WWW-Authenticate"].startswith("Bearer")


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
