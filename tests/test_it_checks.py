"""`check` finds a store whose indexes drifted from its rows, and `rebuild_index` repairs it from the rows."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from memoryhub.embeddings import get_embedder
from memoryhub.memories.health import run_checks
from memoryhub.memories.store import create_memory
from memoryhub.models import Memory
from memoryhub.retrieval.search import MemoryFilter, search_memories
from memoryhub.storage import sql

pytestmark = pytest.mark.django_db

ORPHAN_ID = 999_999


@pytest.fixture
def memories() -> list[Memory]:
    texts = [
        "Staging deploys need the VPN to be connected",
        "The payments service retries webhooks three times",
        "Use ruff instead of flake8 in every repository",
        "Invoices are rendered with WeasyPrint",
        "The nightly job rotates the Postgres logs",
    ]
    return [create_memory(content=text, project="alpha") for text in texts]


def desync(memories: list[Memory]) -> tuple[Memory, Memory]:
    """Break the indexes the ways a crash, a bad tool or a hand edit would."""
    lost_keywords, lost_vector = memories[0], memories[1]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {sql.FTS_TABLE}({sql.FTS_TABLE}, rowid, content, tags) VALUES ('delete', %s, %s, %s)",
            [lost_keywords.pk, lost_keywords.content, "[]"],
        )
        cursor.execute(
            f"INSERT INTO {sql.FTS_TABLE}(rowid, content, tags) VALUES (%s, 'ghost entry', '[]')", [ORPHAN_ID]
        )
        cursor.execute(f"DELETE FROM {sql.vec_table(384)} WHERE memory_id = %s", [lost_vector.pk])
        blob = sql.to_blob(get_embedder().embed(["a vector without a memory"])[0])
        cursor.execute(
            f"INSERT INTO {sql.vec_table(384)}(memory_id, embedding, embedding_bits) "
            "VALUES (%s, %s, vec_quantize_binary(%s))",
            [ORPHAN_ID, blob, blob],
        )
    return lost_keywords, lost_vector


def test_a_healthy_store_passes_every_check(memories):
    out = io.StringIO()
    call_command("check", "--store-only", stdout=out)
    assert out.getvalue().splitlines() == [
        "integrity_check: ok",
        "fts5 integrity memory_fts: ok",
        "fts5 integrity memory_fts_trigram: ok",
        "counts: 5 memories, 5 keyword entries, 5 trigram entries, 5 vectors for 5 embedded memories",
        "store ok",
    ]


@pytest.mark.sqlite_only  # drifts FTS5's own tables; PostgreSQL's word index is a generated column
def test_check_names_what_drifted_and_fails(memories):
    lost_keywords, lost_vector = desync(memories)
    report = run_checks()
    assert not report.ok
    assert report.integrity == ["ok"]  # the file is sound; only the indexes disagree with the rows
    assert set(report.fts_errors) == {sql.FTS_TABLE}
    assert report.fts_missing == [lost_keywords.pk]
    assert report.fts_orphans == [ORPHAN_ID]
    assert report.vectors_missing == [lost_vector.pk]
    assert report.vector_orphans == [ORPHAN_ID]
    out = io.StringIO()
    with pytest.raises(CommandError, match="the store check failed"):
        call_command("check", "--store-only", stdout=out)
    assert f"memories missing their vector: 1 (ids {lost_vector.pk})" in out.getvalue()
    assert f"vectors without a memory: 1 (ids {ORPHAN_ID})" in out.getvalue()
    assert "rebuild_index" in out.getvalue()


@pytest.mark.sqlite_only  # drifts FTS5's own tables; PostgreSQL's word index is a generated column
def test_rebuild_index_repairs_the_keyword_and_vector_indexes_from_the_rows(memories):
    lost_keywords, lost_vector = desync(memories)
    out = io.StringIO()
    call_command("rebuild_index", stdout=out)
    lines = out.getvalue().splitlines()
    assert "keyword index: 5/5" in lines
    assert "orphan vectors removed: 1/1" in lines
    assert "vectors: 1/1" in lines
    assert "rebuilt: 5 memories indexed, 1 orphan vectors removed, 1 vectors written" in lines
    report = run_checks()
    assert report.ok, report.lines()
    assert report.rows == report.fts == report.trigram == report.vectors == 5

    # Both repaired memories are found again, by their words and by their meaning.
    keyword = search_memories(query="VPN staging", within=MemoryFilter(visible_from="alpha"), mode="keyword")
    assert keyword[0].memory.pk == lost_keywords.pk
    semantic = search_memories(
        query="webhook delivery attempts", within=MemoryFilter(visible_from="alpha"), mode="semantic", k=1
    )
    assert semantic[0].memory.pk == lost_vector.pk


def test_rebuild_index_embeds_rows_whose_text_changed_outside_the_domain(memories):
    edited = memories[2]
    Memory.objects.filter(pk=edited.pk).update(content="Use black for formatting Python code")
    report = run_checks()
    assert report.ok  # a pending embedding is reported, not an inconsistency
    assert report.awaiting_embedding == [edited.pk]
    call_command("rebuild_index", stdout=io.StringIO())
    edited.refresh_from_db()
    assert edited.embed_model == get_embedder().model_id
    assert run_checks().awaiting_embedding == []
    hits = search_memories(
        query="code formatter for Python", within=MemoryFilter(visible_from="alpha"), mode="semantic", k=1
    )
    assert hits[0].memory.pk == edited.pk
