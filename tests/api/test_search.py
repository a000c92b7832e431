"""POST /search: hybrid search within the token's scope; results reinforce what they return."""

from __future__ import annotations

import pytest

from memoryhub.memories.store import create_memory
from memoryhub.models import Memory, UsageRecord
from tests.api.conftest import error_of

pytestmark = pytest.mark.django_db

MEMORY_FIELDS = {
    "id", "content", "category", "tier", "project", "tags", "metadata", "source", "importance",
    "effective_importance", "confirmed", "status", "embed_model", "created_at", "updated_at", "last_accessed_at",
    "access_count", "merged_into", "valid_from", "supersedes", "superseded_by", "valid_to", "expires_at", "verified_at",
}  # fmt: skip


@pytest.fixture
def corpus(db):
    return {
        "alpha": create_memory(content="Alpha deploys run through a Jenkins pipeline", project="alpha"),
        "beta": create_memory(content="Beta deploys run through a Jenkins pipeline too", project="beta"),
        "global": create_memory(content="The user wants deploys announced in Slack", category="preference"),
        "other": create_memory(content="Alpha uses PostgreSQL 16 for its main database", project="alpha"),
    }


def test_it_answers_results_best_first_with_every_memory_field_score_and_explain(claude, corpus):
    response = claude.post("search", {"query": "jenkins deploy pipeline", "project": "alpha"})
    assert response.status_code == 200
    results = response.json()["results"]
    assert results[0]["id"] == corpus["alpha"].pk
    assert set(results[0]) == MEMORY_FIELDS | {"score", "explain"}
    assert isinstance(results[0]["score"], float) and isinstance(results[0]["explain"], dict)
    assert [r["score"] for r in results] == sorted((r["score"] for r in results), reverse=True)
    assert UsageRecord.objects.filter(agent="claude", kind="search", project="alpha").count() == 1


def test_a_search_never_returns_another_projects_memories(claude, codex, corpus):
    alpha_ids = {
        r["id"] for r in claude.post("search", {"query": "jenkins deploy", "project": "alpha"}).json()["results"]
    }
    beta_ids = {r["id"] for r in codex.post("search", {"query": "jenkins deploy", "project": "beta"}).json()["results"]}
    assert corpus["beta"].pk not in alpha_ids and corpus["alpha"].pk in alpha_ids
    assert corpus["alpha"].pk not in beta_ids and corpus["beta"].pk in beta_ids
    assert corpus["global"].pk in alpha_ids & beta_ids  # globals are visible from every project


def test_searching_another_project_is_forbidden(claude, corpus):
    response = claude.post("search", {"query": "jenkins", "project": "beta"})
    assert response.status_code == 403
    assert "beta" in error_of(response)["message"]


def test_without_a_project_only_global_memories_are_searched(curator, corpus):
    ids = {r["id"] for r in curator.post("search", {"query": "deploys", "mode": "keyword"}).json()["results"]}
    assert ids == {corpus["global"].pk}


def test_returned_results_are_reinforced(claude, corpus):
    claude.post("search", {"query": "jenkins deploy pipeline", "project": "alpha", "k": 1})
    corpus["alpha"].refresh_from_db()
    assert corpus["alpha"].access_count == 1
    assert corpus["alpha"].last_accessed_at is not None


def test_a_read_only_token_may_search(reader, corpus):
    response = reader.post("search", {"query": "jenkins", "project": "alpha", "mode": "keyword"})
    assert response.status_code == 200
    assert [r["id"] for r in response.json()["results"]] == [corpus["alpha"].pk]


def test_k_mode_and_filters_shape_the_answer(curator, corpus):
    one = curator.post("search", {"query": "deploys", "project": "alpha", "k": 1}).json()["results"]
    assert len(one) == 1
    prefs = curator.post("search", {"query": "deploys", "project": "alpha", "category": "preference"}).json()
    assert [r["id"] for r in prefs["results"]] == [corpus["global"].pk]
    Memory.objects.filter(pk=corpus["other"].pk).update(status="archived")
    archived = curator.post("search", {"query": "PostgreSQL", "project": "alpha", "mode": "keyword"}).json()
    assert archived["results"] == []
    anything = curator.post("search", {"query": "PostgreSQL", "project": "alpha", "mode": "keyword", "status": "any"})
    assert [r["id"] for r in anything.json()["results"]] == [corpus["other"].pk]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "query"),
        ({"query": ""}, "query"),
        ({"query": 5}, "query"),
        ({"query": "x", "k": 0}, "k"),
        ({"query": "x", "k": 1000}, "k"),
        ({"query": "x", "mode": "fuzzy"}, "mode"),
        ({"query": "x", "category": "rumour"}, "category"),
        ({"query": "x", "tags": "deploy"}, "tags"),
    ],
)
def test_bad_fields_are_a_400_naming_them(claude, body, field):
    response = claude.post("search", body)
    assert response.status_code == 400
    assert field in error_of(response)["fields"]


def test_queries_that_break_naive_fts_are_answered(claude, corpus):
    for query in ['multi-agent "quoted', "c++ AND", "don't", "ubuntu 20.04", "*", "NEAR("]:
        assert claude.post("search", {"query": query, "project": "alpha"}).status_code == 200
