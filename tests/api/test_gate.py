"""The write gate on POST /memories: every decision answered truthfully, secrets never stored nor echoed."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from memoryhub.memories.secrets import find_secrets
from memoryhub.memories.store import create_memory, import_memories
from memoryhub.models import GateLogEntry, Memory, MemoryEvent
from memoryhub.writes.categories import guess_category, guess_tier
from memoryhub.writes.gate import multi_fact_warning, promote_gate_entry
from memoryhub.writes.noise import noise_reason
from tests.api.conftest import error_of

pytestmark = pytest.mark.django_db

NOISE = [
    ("Today I worked on the login page and fixed some tests", "session log or diary"),
    ("In this session we refactored the parser module", "session log or diary"),
    ("Let me check the configuration file first", "thinking aloud"),
    ("2024-05-01 12:30:00", "timestamp"),
    ("[2024-05-01T12:30:00Z] done", "timestamp"),
    ("fix tests", "too short"),
    ("ok cool", "acknowledgement"),
    ("cache bug", "too short"),
    (
        'Traceback (most recent call last):\n  File "app.py", line 3, in <module>\n    main()\nValueError: boom',
        "stack trace",
    ),
    ("$ pytest -q\n....F\n1 failed, 4 passed in 0.3s", "command output"),
    (
        "2024-05-01 10:00:01 INFO starting\n2024-05-01 10:00:02 INFO listening\n2024-05-01 10:00:03 ERROR boom",
        "log output",
    ),
]

# Built from pieces so no scanner mistakes this file for a leak; each is shaped like the real thing.
SECRETS = [
    ("OpenAI API key", "sk-proj-" + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7" * 2),
    ("Anthropic API key", "sk-ant-api03-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2" * 2),
    ("AWS access key", "AKIA" + "IOSFODNN7EXAMPLQ"),
    ("GitHub token", "ghp_" + "a1B2c3D4e5F6g7H8i9J0" * 2),
    ("Slack token", "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"),
    ("Google API key", "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"),
    ("JWT", "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0." + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"),
    ("Authorization header", "Authorization: Bearer " + "9f8e7d6c5b4a39281706f5e4d3c2b1a0"),
    ("private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----"),
    ("password in a URL", "postgres://app:" + "s3cretPassw0rd" + "@db.internal:5432/app"),
    ("password or secret assignment", "DB_PASSWORD=" + "hunter2hunter2"),
]


@pytest.mark.parametrize(("text", "why"), NOISE)
def test_it_refuses_noise_naming_why(claude, text, why):
    response = claude.store(text, project="alpha")
    assert response.status_code == 422
    body = response.json()
    assert body["outcome"] == "rejected"
    assert body["memory"] is None
    assert why in body["reason"]
    assert error_of(response)["code"] == "rejected_noise"
    assert Memory.objects.count() == 0
    entry = GateLogEntry.objects.get()
    assert (entry.decision, entry.kind, entry.source, entry.project) == ("rejected", "noise", "claude", "alpha")


@pytest.mark.parametrize(
    "text",
    [
        "The deploy script prints a traceback when the VPN is down; reconnect first",
        "Run `make test` before pushing to main",
        "Decided on 2024-05-01 to drop Python 3.9 support",
        "Tokens live in 1Password under the 'deploy' vault",
        "The DB URL is postgres://app:${DB_PASSWORD}@db.internal/app",
        "api_key = os.environ['OPENAI_API_KEY'] is how the client reads it",
    ],
)
def test_it_stores_facts_that_only_look_like_noise_or_secrets(claude, text):
    response = claude.store(text, project="alpha")
    assert response.status_code == 201, response.json()
    assert response.json()["outcome"] == "created"


@pytest.mark.parametrize(("kind", "secret"), SECRETS)
def test_it_refuses_a_secret_naming_its_kind_without_echoing_or_storing_it(claude, kind, secret):
    response = claude.store(f"For the deploy use {secret} when asked", project="alpha", tags=["deploy"])
    assert response.status_code == 422
    body = response.json()
    assert body["outcome"] == "rejected"
    assert kind in body["reason"]
    assert error_of(response)["code"] == "rejected_secret"
    # The sensitive part is the end of each example (for a URL, the password before '@').
    tail = secret.split("@")[0][-12:]
    text = response.content.decode()
    assert tail not in text
    assert Memory.objects.count() == 0
    entry = GateLogEntry.objects.get()
    assert entry.kind == "secret"
    assert tail not in entry.content
    assert f"[REDACTED {kind}, " in entry.content
    assert tail not in str(entry.payload)


def test_it_refuses_a_secret_hidden_in_metadata_or_tags(claude):
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0" * 2
    response = claude.store(
        "The deploy bot pushes tags to the release repo", project="alpha", metadata={"token": secret}
    )
    assert response.status_code == 422
    assert "GitHub token" in response.json()["reason"]
    assert secret not in response.content.decode()
    assert secret not in str(GateLogEntry.objects.get().payload)
    assert Memory.objects.count() == 0


def test_the_same_text_twice_stores_one_memory_and_reinforces_it(claude):
    first = claude.store("The staging database runs PostgreSQL 16", project="alpha")
    second = claude.store("the staging database runs  PostgreSQL 16.", project="alpha")
    assert first.status_code == 201
    assert second.status_code == 200
    body = second.json()
    assert body["outcome"] == "duplicate"
    assert body["memory"]["id"] == first.json()["memory"]["id"]
    assert body["memory"]["access_count"] == 1
    assert "same text" in body["reason"] and f"#{body['memory']['id']}" in body["reason"]
    assert Memory.objects.count() == 1
    entry = GateLogEntry.objects.get()
    assert (entry.decision, entry.memory_id) == ("duplicate", body["memory"]["id"])


def test_a_duplicate_with_new_tags_and_metadata_is_merged_into_the_existing_memory(claude):
    first = claude.store(
        "The staging database runs PostgreSQL 16", project="alpha", tags=["db"], metadata={"host": "db1"}
    )
    second = claude.store(
        "The staging database runs PostgreSQL 16",
        project="alpha",
        tags=["db", "staging"],
        metadata={"host": "db2", "port": 5432},
    )
    assert second.status_code == 200
    body = second.json()
    assert body["outcome"] == "merged"
    assert body["memory"]["tags"] == ["db", "staging"]
    assert body["memory"]["metadata"] == {"host": "db1", "port": 5432}  # what was there is kept
    assert Memory.objects.count() == 1
    assert MemoryEvent.objects.filter(memory_id=first.json()["memory"]["id"], action="merged").exists()


def test_a_paraphrase_in_the_same_scope_is_folded_by_meaning(claude):
    first = claude.store("Use pnpm, not npm, to install dependencies in this repo", project="alpha")
    second = claude.store("In this repo, install dependencies with pnpm instead of npm", project="alpha")
    assert second.status_code == 200
    assert second.json()["outcome"] == "duplicate"
    assert "same meaning" in second.json()["reason"]
    assert second.json()["memory"]["id"] == first.json()["memory"]["id"]
    assert Memory.objects.count() == 1


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("The API runs on port 8000 in development", "The API runs on port 8001 in development"),
        ("Always use tabs for indentation in Go files", "Never use tabs for indentation in Go files"),
    ],
)
def test_similar_words_stating_a_different_fact_are_stored_apart(claude, first, second):
    assert claude.store(first, project="alpha").status_code == 201
    assert claude.store(second, project="alpha").status_code == 201
    assert Memory.objects.count() == 2


def test_the_same_fact_in_another_scope_is_not_a_duplicate(claude, codex, curator):
    text = "The staging database runs PostgreSQL 16"
    assert claude.store(text, project="alpha").status_code == 201
    assert codex.store(text, project="beta").status_code == 201
    assert curator.store(text).status_code == 201  # global
    assert Memory.objects.count() == 3


def test_a_twin_is_found_in_its_own_scope_however_many_closer_matches_other_scopes_hold(claude):
    text = "The staging database runs on PostgreSQL 16"
    # 150 exact copies elsewhere outrank the project's own near-copy in the whole store, by words and by meaning.
    import_memories(items=[{"content": text, "project": f"other-{n}"} for n in range(150)], source="test")
    mine = create_memory(content="The staging database runs PostgreSQL 16", project="alpha")
    response = claude.store(text, project="alpha")
    assert response.status_code == 200 and response.json()["memory"]["id"] == mine.pk
    assert Memory.objects.filter(project="alpha").count() == 1


def test_an_archived_twin_does_not_swallow_a_new_write(claude):
    old = create_memory(content="The staging database runs PostgreSQL 16", project="alpha")
    Memory.objects.filter(pk=old.pk).update(status="archived")
    assert claude.store("The staging database runs PostgreSQL 16", project="alpha").status_code == 201


def test_category_and_tier_are_guessed_when_omitted_and_kept_when_given(claude):
    decided = claude.store("We decided to use Postgres instead of MySQL because of JSONB", project="alpha").json()
    assert decided["memory"]["category"] == "decision"
    assert decided["memory"]["tier"] == "semantic"
    assert "category guessed: decision" in decided["reason"]
    given = claude.store(
        "We decided to keep the monolith for now", project="alpha", category="project", tier="episodic"
    ).json()
    assert (given["memory"]["category"], given["memory"]["tier"]) == ("project", "episodic")
    assert given["reason"] == "stored as a new memory"


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("The user prefers tabs over spaces in Go code", "preference"),
        ("Beware: the ORM silently drops fields when the migration is missing", "gotcha"),
        ("To rebuild the search index, run `python manage.py rebuild_index`", "skill"),
        ("The API reference lives at https://docs.example.com/api", "reference"),
        ("The laptop runs Ubuntu 24.04 with zsh as the shell", "environment"),
        ("Maria is the maintainer of the billing service", "person"),
        ("Lunch is at noon on most days around here", ""),
    ],
)
def test_guess_category_scores_keywords_and_stays_empty_when_unsure(text, category):
    assert guess_category(text) == category


def test_guess_tier_follows_how_to_and_what_happened():
    assert guess_tier("To rebuild the index, run `make index`") == "procedural"
    assert guess_tier("The outage last week was caused by a full disk") == "episodic"
    assert guess_tier("Postgres is the main database", "fact") == "semantic"
    assert guess_tier("Lunch is at noon on most days") == ""


def test_several_facts_in_one_write_are_stored_with_a_warning_naming_them(claude):
    text = "The API runs on port 8000. The dashboard is served by nginx on port 3000. Tests use pytest with xdist."
    response = claude.store(text, project="alpha")
    assert response.status_code == 201
    warnings = response.json()["warnings"]
    assert len(warnings) == 1
    assert "3 facts" in warnings[0]
    assert "'The API runs on port 8000.'" in warnings[0]
    assert GateLogEntry.objects.get().decision == "warned"


def test_a_fact_with_its_reason_is_one_fact():
    assert multi_fact_warning("We chose Postgres for the store. It supports JSONB and full-text search.") is None
    assert multi_fact_warning("Use pnpm. Never npm.") is None


def test_noise_reason_lets_a_plain_fact_through():
    assert noise_reason("The billing service owns the invoices table") is None


def test_find_secrets_ignores_placeholders():
    assert find_secrets("password: ${DB_PASSWORD} and token=<your-token>") == []
    assert find_secrets("Authorization: Bearer <token>") == []


def test_a_person_can_promote_a_refused_write_to_a_memory(claude):
    claude.store("Today I learned that the cache needs a warm-up after deploys", project="alpha")
    entry = GateLogEntry.objects.get()
    memory = promote_gate_entry(entry=entry, actor="dana")
    assert memory.content == "Today I learned that the cache needs a warm-up after deploys"
    assert (memory.project, memory.source) == ("alpha", "claude")
    entry.refresh_from_db()
    assert entry.promoted_to_id == memory.pk
    assert MemoryEvent.objects.get(memory_id=memory.pk).actor == "dana"
    with pytest.raises(ValidationError, match="already promoted"):
        promote_gate_entry(entry=entry, actor="dana")


def test_a_refused_secret_cannot_be_promoted(claude):
    claude.store("The key is AKIAIOSFODNN7EXAMPLQ for the bucket", project="alpha")
    with pytest.raises(ValidationError, match="secret"):
        promote_gate_entry(entry=GateLogEntry.objects.get(), actor="dana")
    assert Memory.objects.count() == 0
