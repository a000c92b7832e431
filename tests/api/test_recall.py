"""POST /recall: a block within budget, the query's matches first, then globals and project facts, with ids."""

from __future__ import annotations

import pytest

from memoryhub.memories.store import create_memory, import_memories
from memoryhub.models import UsageRecord
from memoryhub.retrieval.recall import HEADER, build_recall
from tests.api.conftest import error_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def memories(db):
    return {
        "pref": create_memory(
            content="The user prefers short answers without emojis", category="preference", importance=0.8
        ),
        "env": create_memory(content="The user's laptop runs Ubuntu 24.04 with zsh", category="environment"),
        "alpha": create_memory(
            content="Alpha deploys with `make deploy` from the main branch", project="alpha", confirmed=True
        ),
        "alpha_db": create_memory(content="Alpha stores invoices in PostgreSQL 16", project="alpha", importance=0.4),
        "beta": create_memory(content="Beta deploys with a Helm chart on Fridays", project="beta", confirmed=True),
    }


def test_it_answers_a_block_with_a_first_line_telling_the_agent_it_has_these(claude, memories):
    response = claude.post("recall", {"project": "alpha"})
    assert response.status_code == 200
    body = response.json()
    lines = body["text"].splitlines()
    assert lines[0] == HEADER
    assert len(body["text"]) <= 400
    assert body["memory_ids"][:2] == [memories["pref"].pk, memories["env"].pk]
    assert memories["alpha"].pk in body["memory_ids"]
    assert f"[#{memories['alpha'].pk}]" in body["text"]
    assert len(lines) == len(body["memory_ids"]) + 1
    record = UsageRecord.objects.get(agent="claude", kind="recall")
    assert record.recall_chars == len(body["text"])


def test_it_never_recalls_another_projects_memories(claude, codex, memories):
    assert memories["beta"].pk not in claude.post("recall", {"project": "alpha"}).json()["memory_ids"]
    assert memories["alpha"].pk not in codex.post("recall", {"project": "beta"}).json()["memory_ids"]


def test_what_matches_the_query_is_included_and_reinforced(claude, memories):
    body = claude.post("recall", {"project": "alpha", "query": "where are invoices stored"}).json()
    assert memories["alpha_db"].pk in body["memory_ids"]
    memories["alpha_db"].refresh_from_db()
    assert memories["alpha_db"].access_count == 1


@pytest.mark.parametrize("budget", [100, 150, 250, 400, 1000])
def test_the_block_always_fits_the_budget(claude, memories, budget):
    items = [
        {"content": f"Alpha fact number {n}: service {n} owns queue q{n} and table t{n}", "project": "alpha"}
        for n in range(20)
    ]
    import_memories(items=[item | {"confirmed": True} for item in items])  # one batch of embeddings
    body = claude.post("recall", {"project": "alpha", "query": "queue", "budget_chars": budget}).json()
    assert len(body["text"]) <= budget
    assert len(body["text"].splitlines()) == len(body["memory_ids"]) + (1 if body["memory_ids"] else 0)


def test_the_query_gets_room_even_when_globals_would_fill_the_budget(claude, memories):
    for n in range(10):
        create_memory(content=f"The user prefers style rule number {n} in every review", category="preference")
    body = claude.post("recall", {"project": "alpha", "query": "invoices PostgreSQL", "budget_chars": 400}).json()
    assert memories["alpha_db"].pk in body["memory_ids"]


def test_an_empty_store_recalls_nothing(claude):
    assert claude.post("recall", {"project": "alpha"}).json() == {"text": "", "memory_ids": []}


def test_recalling_another_project_is_forbidden(claude):
    assert claude.post("recall", {"project": "beta"}).status_code == 403


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"budget_chars": 10}, "budget_chars"),
        ({"project": 3}, "project"),
        ({"budget_chars": "lots"}, "budget_chars"),
        ({"query": ["x"]}, "query"),
    ],
)
def test_bad_fields_are_a_400_naming_them(claude, body, field):
    response = claude.post("recall", body)
    assert response.status_code == 400
    assert list(error_of(response)["fields"]) == [field]


def test_build_recall_refuses_a_project_outside_the_allowed_ones(memories):
    block = build_recall(project="beta", allowed_projects=["alpha"])
    assert (block.text, block.memory_ids) == ("", [])


def test_without_a_budget_the_block_fits_the_configured_one(claude, memories, settings):
    """MEMORYHUB_RECALL_BUDGET_CHARS is the size an agent gets when it names none (API, MCP, proxy, overview)."""
    default = claude.post("recall", {"project": "alpha"}).json()
    settings.MEMORYHUB_RECALL_BUDGET_CHARS = 150
    small = claude.post("recall", {"project": "alpha"}).json()
    assert len(default["text"]) > 150  # the default 400 holds more than the smaller budget can
    assert 0 < len(small["text"]) <= 150
    assert len(small["memory_ids"]) < len(default["memory_ids"])
    assert build_recall(project="alpha").text == small["text"]
