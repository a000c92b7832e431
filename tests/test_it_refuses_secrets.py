"""Every write route refuses every kind of secret (422 naming the field and kind, never the value), stores
nothing, and no secret's bytes end up in the database files, the WAL or a backup."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from bench.gate_set import secret_writes
from memoryhub.agents.tokens import Agent
from memoryhub.agents.tools import ToolError, call_tool
from memoryhub.memories.secrets import Finding, find_secrets, merge_spans, redact
from memoryhub.memories.store import create_memory
from memoryhub.models import GateLogEntry, Memory
from tests.api.conftest import error_of
from tests.factories import pending_merge
from tests.live_server import LiveServer, create_token, manage, migrated_store
from ui.forms import version_of

pytestmark = pytest.mark.django_db

SECRETS = secret_writes()


KINDS = sorted({kind for kind, _ in SECRETS})
FACT = "The alpha deploy runs from the release branch"


def value_of(text: str) -> str:
    """The bytes that must never be stored: the longest span the detector marks (at least 8 characters)."""
    spans = merge_spans(find_secrets(text))
    assert spans, text
    longest = max(spans, key=lambda f: f.end - f.start)
    return text[longest.start : longest.end][-10:]


def test_the_set_covers_every_kind_the_issue_lists():
    wanted = {
        "AWS access key", "AWS secret key", "Azure storage key", "GCP service account key", "GitHub token",
        "GitLab token", "npm token", "PyPI token", "Hugging Face token", "Stripe key", "SendGrid API key",
        "Slack token", "Twilio key", "Mailgun key", "DigitalOcean token", "Heroku API key", "OpenAI API key",
        "Anthropic API key", "Google API key", "JWT", "private key", "framework secret key",
        "password on a command line", "Authorization header", "password in plain text", "password in a URL",
    }  # fmt: skip
    assert wanted <= set(KINDS)


@pytest.mark.parametrize(("kind", "text"), SECRETS, ids=[k for k, _ in SECRETS])
def test_the_detector_names_the_kind_and_redaction_leaves_no_part(kind, text):
    found = find_secrets(text)
    assert kind in {f.kind for f in found}
    redacted = redact(text)
    assert value_of(text) not in redacted
    assert "[REDACTED " in redacted


def test_overlapping_spans_are_merged_before_redacting():
    jwt = "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiJmYWtlIn0" + ".Zm9vYmFyZm9vYmFyZm9v"
    text = f"curl -H 'Authorization: Bearer {jwt}' https://api.example.com"
    found = find_secrets(text)
    assert {"JWT", "Authorization header", "bearer token"} <= {f.kind for f in found}
    redacted = redact(text)
    assert "Zm9vYmFy" not in redacted and "eyJ" not in redacted
    assert redacted.count("[REDACTED") == 1
    # A later span that starts inside an earlier one and runs past it: nothing of either is left.
    spans = merge_spans([Finding("a", 0, 10), Finding("b", 5, 20), Finding("c", 25, 30)])
    assert [(f.start, f.end) for f in spans] == [(0, 20), (25, 30)]
    assert redact("x" * 32, [Finding("a", 0, 10), Finding("b", 5, 20)]).count("x") == 12


@pytest.mark.parametrize(
    "text",
    [
        "The API key lives in the STRIPE_API_KEY environment variable; never commit it.",
        "Passwords are hashed with Argon2id; the parameters are in settings.PASSWORD_HASHERS.",
        "Use `docker login --password-stdin` in CI so the password never shows in ps.",
        "DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app is read by settings/env.py",
        "Commit 3f9a2c1b7e4d5f60718293a4b5c6d7e8f9012345 introduced the regression.",
        "Run mysql -u root -p and type the password at the prompt.",
        "The credentials are in 1Password under 'Prod DB'.",
        "SECRET_KEY comes from the MEMORYHUB_SECRET_KEY environment variable.",
    ],
)
def test_talk_about_secrets_is_not_a_secret(text):
    assert find_secrets(text) == []


# --- every route ---------------------------------------------------------------------------------------------


def _assert_refused(response, kind: str, text: str, field: str = "content"):
    assert response.status_code == 422, response.content
    body = response.content.decode()
    assert value_of(text) not in body
    error = error_of(response)
    assert error["code"] == "rejected_secret"
    assert any(name.endswith(field) or field in name for name in error["fields"]), error
    assert kind in error["message"]


@pytest.mark.parametrize(("kind", "text"), SECRETS, ids=[k for k, _ in SECRETS])
def test_create_refuses_and_logs_only_the_redacted_text(claude, kind, text):
    response = claude.store(f"For the deploy: {text}", project="alpha")
    _assert_refused(response, kind, text)
    assert Memory.objects.count() == 0
    entry = GateLogEntry.objects.get()
    assert entry.kind == "secret" and value_of(text) not in entry.content + str(entry.payload)
    assert entry.payload["secrets"] and all(s["length"] >= 8 for s in entry.payload["secrets"])
    assert kind in {s["kind"] for s in entry.payload["secrets"]}


@pytest.mark.parametrize(("kind", "text"), SECRETS[::3], ids=[k for k, _ in SECRETS[::3]])
def test_tags_and_metadata_are_checked_on_create_and_edit(claude, kind, text):
    response = claude.store(FACT, project="alpha", metadata={"note": text})
    assert response.status_code == 422 and value_of(text) not in response.content.decode()
    assert "metadata.note" in error_of(response)["fields"]
    memory = create_memory(content=FACT, project="alpha")
    token = "ghp_" + "a1B2c3D4e5" * 4
    response = claude.patch(f"memories/{memory.pk}", {"tags": ["deploy", token]})
    assert response.status_code == 422 and "tags.1" in error_of(response)["fields"]
    response = claude.patch(f"memories/{memory.pk}", {"metadata": {"how": text}})
    assert response.status_code == 422 and value_of(text) not in response.content.decode()
    memory.refresh_from_db()
    assert (memory.tags, memory.metadata) == ([], {})


@pytest.mark.parametrize(("kind", "text"), SECRETS, ids=[k for k, _ in SECRETS])
def test_edit_and_import_refuse_naming_item_field_and_kind(curator, kind, text):
    memory = create_memory(content=FACT, project="alpha")
    _assert_refused(curator.patch(f"memories/{memory.pk}", {"content": f"{FACT}: {text}"}), kind, text)
    memory.refresh_from_db()
    assert memory.content == FACT
    items = [{"content": "The beta build uses Bazel 7", "project": "beta"}, {"content": text, "project": "beta"}]
    response = curator.post("memories/import", {"memories": items})
    _assert_refused(response, kind, text, field="memories.1.content")
    assert Memory.objects.count() == 1  # the whole import refused, not only the bad item


@pytest.mark.parametrize(("kind", "text"), SECRETS, ids=[k for k, _ in SECRETS])
def test_tool_calls_refuse_over_rest_and_for_mcp_and_the_proxy(claude, kind, text):
    response = claude.post(
        "tools/call", {"name": "memory_store", "arguments": {"content": f"Note: {text}", "project": "alpha"}}
    )
    assert response.status_code == 422 and value_of(text) not in response.content.decode()
    memory = create_memory(content=FACT, project="alpha")
    # MCP and the chat proxy run tools through call_tool: the same refusal, as a ToolError they hand the model.
    agent = Agent(name="claude", projects=["alpha"])
    with pytest.raises(ToolError) as caught:
        call_tool(name="memory_update", arguments={"id": memory.pk, "content": text}, agent=agent)
    assert caught.value.status == 422 and kind in caught.value.message and value_of(text) not in caught.value.message
    assert Memory.objects.get().content == FACT


def test_nul_bytes_are_refused_on_every_route(claude):
    memory = create_memory(content=FACT, project="alpha")
    bad = "Alpha deploys \x00 from main"
    assert claude.store(bad, project="alpha").status_code == 400
    assert claude.patch(f"memories/{memory.pk}", {"metadata": {"k": bad}}).status_code == 400
    response = claude.post("tools/call", {"name": "memory_store", "arguments": {"content": bad, "project": "alpha"}})
    assert response.status_code == 400
    agent = Agent(name="claude", projects=["alpha"])
    with pytest.raises(ToolError):
        call_tool(name="memory_update", arguments={"id": memory.pk, "tags": ["a\x00b"]}, agent=agent)
    assert claude.post("memories/import", {"memories": [{"content": bad, "project": "alpha"}]}).status_code == 400
    memory.refresh_from_db()
    assert [m.content for m in Memory.objects.all()] == [FACT] and memory.tags == [] and memory.metadata == {}


def test_accepting_a_proposal_with_new_text_refuses_a_secret(curator):
    kind, text = next((k, t) for k, t in SECRETS if k == "private key")
    proposal = pending_merge()
    response = curator.post(f"proposals/{proposal.pk}/accept", {"content": f"Alpha API key: {text}"})
    _assert_refused(response, kind, text)
    proposal.refresh_from_db()
    assert proposal.status == "pending" and Memory.objects.count() == 2


def test_the_dashboard_edit_form_refuses_a_secret(client, django_user_model):
    kind, text = next((k, t) for k, t in SECRETS if k == "OpenAI API key")
    client.force_login(django_user_model.objects.create_superuser("admin", "a@example.com", "pw-for-tests-only"))
    memory = create_memory(content=FACT, project="alpha")
    response = client.post(
        f"/memories/{memory.pk}/edit/",
        {
            f"m{memory.pk}-content": f"Use {text} for the bot",
            f"m{memory.pk}-version": version_of(memory),
        },
    )
    assert response.status_code == 422
    page = response.content.decode()
    assert kind in page and value_of(text) not in page, page[page.find("<main") :]
    memory.refresh_from_db()
    assert memory.content == FACT


# --- the files -----------------------------------------------------------------------------------------------


@pytest.mark.sqlite_only  # reads the SQLite file's bytes
def test_no_secret_bytes_reach_the_database_files_or_backups_and_they_are_owner_only(store_template, tmp_path):
    db = migrated_store(store_template, tmp_path)
    token = create_token(db, "files")
    with LiveServer(db, threads=2) as server:
        with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=120) as http:
            first = http.post("/api/v1/memories", json={"content": FACT, "project": "alpha"}).json()["memory"]["id"]
            for _, text in SECRETS:
                answers = [
                    http.post("/api/v1/memories", json={"content": f"Deploy note: {text}", "project": "alpha"}),
                    http.post("/api/v1/memories", json={"content": FACT, "metadata": {"cred": text}}),
                    http.post("/api/v1/memories/import", json={"memories": [{"content": text, "project": "a"}]}),
                    http.post("/api/v1/tools/call", json={"name": "memory_store", "arguments": {"content": text}}),
                    http.patch(f"/api/v1/memories/{first}", json={"content": f"{FACT} {text}"}),
                ]
                assert [a.status_code for a in answers] == [422] * 5
        manage(db, "backup", "--reason", "test")
    files = [db, *[p for p in (Path(f"{db}-wal"), Path(f"{db}-shm")) if p.exists()], *(tmp_path / "backups").iterdir()]
    assert any(p.parent.name == "backups" for p in files)
    blob = b"".join(p.read_bytes() for p in files)
    for _, text in SECRETS:
        assert value_of(text).encode() not in blob
    assert b"[REDACTED " in blob  # the gate log kept the refused writes, redacted
    for path in files:
        assert path.stat().st_mode & 0o077 == 0, f"{path.name} is readable by others"


_A, _H = "aB3dE5fG7hJ9kL2mN4pQ6rS8tV1wX3yZ5", "0123456789abcdef"
PHRASINGS = [
    "database:\n  password: Zq8!vR2mK",
    "the pwd is Zq8vR2mK9",
    'psql "postgresql://admin:Zq8vR2mK9@db.prod:5432/main"',
    "redis://:Zq8vR2mK9@cache:6379/0",
    "Server=db;Database=app;User Id=sa;Password=Zq8vR2mK9;",
    '{"username": "svc", "password": "Zq8vR2mK9"}',
    "[pypi]\nusername = __token__\npassword = pypi-AgEIcHlwaS5vcmc" + _A * 2,
    "heroku config:set API_KEY=" + _A,
    "az storage blob list --account-key " + "Fa1e" * 21 + "kk==",
    "TWILIO_AUTH_TOKEN=" + _H * 2,
    "git clone https://bob:ghp_" + _A + "abc@github.com/org/repo",
    "docker login --password=Zq8vR2mK9 ghcr.io",
    "mysql --user=root --password=Zq8vR2mK9 app",
    "the admin login is admin / Zq8vR2mK9",
    "use password Zq8vR2mK9 for the staging box",
    "JWT_SECRET=" + _A,
    "APP_KEY=base64:" + _A + "abc=",
    "npm config set //registry.npmjs.org/:_authToken npm_" + _A + "abc",
    "slack webhook https://hooks.slack.com/services/T0000/B0000/" + _A[:24],
]


@pytest.mark.parametrize("text", PHRASINGS)
def test_secrets_are_found_however_they_are_written(text):
    found = find_secrets(text)
    assert found, text
    assert "Zq8vR2mK9" not in redact(text) and _A[:12] not in redact(text) and _H * 2 not in redact(text)


@pytest.mark.parametrize("text", ["a_" * 4000, "a-" * 4000, "token_" * 1300, "http://" + "a:" * 3000, "a\n" * 4000])
def test_no_input_makes_the_checks_slow(text):
    """Patterns that can backtrack (a prefix like `(?:[a-z0-9]+_)*`) took seconds on inputs like these."""
    import time

    from memoryhub.writes.noise import noise_reason

    noise_reason("warm up the lazy imports")
    started = time.perf_counter()
    find_secrets(text)
    noise_reason(text)
    assert time.perf_counter() - started < 1.5


def test_the_dashboards_gate_log_shows_kind_field_and_length_never_the_value(claude, client, django_user_model):
    kind, text = next((k, t) for k, t in SECRETS if k == "GitLab token")
    claude.store(FACT, project="alpha", metadata={"ci": text})
    claude.store(f"CI pushes with {text}", project="alpha")
    client.force_login(django_user_model.objects.create_superuser("admin", "a@example.com", "pw-for-tests-only"))
    page = client.get("/gate/").content.decode()
    assert f"{kind} (26 chars) in content" in page and f"{kind} in metadata.ci" in page
    assert value_of(text) not in page
    assert "Promote to memory" not in page  # a refused secret cannot be promoted
