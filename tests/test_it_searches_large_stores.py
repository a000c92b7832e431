"""What keeps search fast on large stores, checked on small ones by lowering the limits: the scope token in the
word index, common-word planning, the in-process vector copy's scope masks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from memoryhub.embeddings import get_embedder
from memoryhub.memories.lifecycle import archive_memory, restore_memory
from memoryhub.memories.store import import_memories, update_memory
from memoryhub.models import Memory
from memoryhub.retrieval import query_text, search, vector_index
from memoryhub.retrieval.search import search_memories
from memoryhub.storage import sql

pytestmark = pytest.mark.django_db


def store(*items: dict) -> list[Memory]:
    return [Memory.objects.get(pk=pk) for pk in import_memories(items=list(items), source="test")]


def ids(hits) -> list[int]:
    return [h.memory.pk for h in hits]


def test_the_word_index_follows_a_memory_moved_to_another_project():
    (moved,) = store({"content": "The zephyr queue retries three times", "project": "old"})
    assert ids(search_memories(query="zephyr queue", project="old", mode="keyword")) == [moved.pk]
    update_memory(memory=moved, changes={"project": "new"})
    assert search_memories(query="zephyr queue", project="old", mode="keyword") == []
    assert ids(search_memories(query="zephyr queue", project="new", mode="keyword")) == [moved.pk]
    Memory.objects.filter(pk=moved.pk).update(project=None)  # behind the domain's back: the trigger follows
    assert ids(search_memories(query="zephyr queue", project="old", mode="keyword")) == [moved.pk]
    sql.fts_integrity_check()


def test_a_project_name_of_any_text_is_one_scope_token():
    odd = 'a "b" OR c: ünï/‽ NEAR(x)'
    (mine,) = store({"content": "The walrus endpoint is private", "project": odd})
    store({"content": "The walrus endpoint is public", "project": "a"})
    assert ids(search_memories(query="walrus endpoint", project=odd, mode="keyword")) == [mine.pk]
    sql.fts_integrity_check()


def test_a_rare_word_leads_when_the_other_words_are_common(settings):
    settings.MEMORYHUB_KEYWORD_COMMON_DOCS = 5
    store(*({"content": f"Deploy notes for service number {n}", "project": "p"} for n in range(12)))
    (rare,) = store({"content": "Deploy notes about the zanzibar gateway", "project": "p"})
    kq = query_text.parse("zanzibar deploy notes")
    scope = query_text.scope_expression(project="p", every_project=False)
    assert [search._is_common(u, scope, 5) for u in kq.units] == [False, True, True]
    hits = search_memories(query="zanzibar deploy notes", project="p", mode="keyword")
    assert ids(hits)[0] == rare.pk and hits[0].explain["keyword_rank"] == 1


def test_when_every_word_is_common_an_old_memory_holding_all_of_them_is_still_found(settings):
    settings.MEMORYHUB_KEYWORD_COMMON_DOCS = 5
    (oldest,) = store({"content": "Cache invalidation after the schema migration", "project": "p"})
    store(*({"content": f"Cache warmup step {n}", "project": "p"} for n in range(10)))
    store(*({"content": f"Schema migration step {n}", "project": "p"} for n in range(10)))
    newest = store(*({"content": f"Invalidation of cache entry {n}", "project": "p"} for n in range(10)))
    hits = search_memories(query="cache invalidation schema migration", project="p", mode="keyword", k=20)
    assert ids(hits)[0] == oldest.pk
    # Rows holding only some of the words come from the newest ones.
    assert set(ids(hits)) & {m.pk for m in newest}


def test_a_store_under_the_limit_is_searched_as_plain_bm25():
    memories = store(*({"content": f"Kafka topic {n} keeps events for {n} days", "project": "p"} for n in range(30)))
    hits = search_memories(query="kafka topic events days", project="p", mode="keyword", k=30)
    expression = query_text.in_text(query_text.parse("kafka topic events days").word_expression)
    plain = [mid for mid, _ in sql.fts_search(expression, 50, "m.status = 'active'")]
    assert ids(hits) == plain[:30] and len(plain) == len(memories)


def test_an_identifier_held_whole_skips_the_trigram_index_and_a_fragment_uses_it():
    whole, inside = store(
        {"content": "fetchInvoiceTotals times out after 30 s", "project": "p"},
        {"content": "The helper getUserIdFromToken trusts the header", "project": "p"},
    )
    exact = search_memories(query="fetchInvoiceTotals", project="p", mode="keyword")[0]
    assert exact.memory.pk == whole.pk and exact.explain["exact_match"]
    assert exact.explain["substring_rank"] is None
    fragment = search_memories(query="UserIdFrom", project="p", mode="keyword")[0]
    assert fragment.memory.pk == inside.pk and fragment.explain["substring_rank"] == 1


def test_a_path_is_found_as_the_phrase_of_its_words(settings):
    settings.MEMORYHUB_KEYWORD_COMMON_DOCS = 3
    store(*({"content": f"See docs/runbooks/step{n}.md and docs index", "project": "p"} for n in range(8)))
    (target,) = store({"content": "Rotation is described in docs/runbooks/secrets.md", "project": "p"})
    hit = search_memories(query="docs/runbooks/secrets.md", project="p", mode="keyword")[0]
    assert hit.memory.pk == target.pk and hit.explain["exact_match"]


@pytest.fixture
def quantized(settings):
    settings.MEMORYHUB_EXACT_KNN_MAX = 0
    settings.MEMORYHUB_KNN_FILTER_IDS_MAX = 0


def test_the_vector_copy_masks_other_projects_and_archived_memories(quantized):
    mine, theirs, shared = store(
        {"content": "Our release train leaves every second Tuesday", "project": "mine"},
        {"content": "Their release train leaves every Tuesday", "project": "theirs"},
        {"content": "Release trains are announced in the team channel", "project": None},
    )
    query = "when does the release train leave"
    hits = search_memories(query=query, project="mine", mode="semantic")
    assert set(ids(hits)) == {mine.pk, shared.pk} and hits[0].explain["knn"] == "quantized"
    assert set(ids(search_memories(query=query, project=None, mode="semantic"))) == {shared.pk}
    everything = search_memories(query=query, project=None, every_project=True, mode="semantic")
    assert set(ids(everything)) == {mine.pk, theirs.pk, shared.pk}
    limited = search_memories(query=query, every_project=True, allowed_projects=["theirs"], mode="semantic")
    assert set(ids(limited)) == {theirs.pk, shared.pk}
    archive_memory(memory=mine, actor="test")
    assert set(ids(search_memories(query=query, project="mine", mode="semantic"))) == {shared.pk}
    archived = search_memories(query=query, project="mine", mode="semantic", status=None)
    assert set(ids(archived)) == {mine.pk, shared.pk}
    restore_memory(memory=Memory.objects.get(pk=mine.pk), actor="test")
    update_memory(memory=Memory.objects.get(pk=mine.pk), changes={"project": "theirs"})
    assert set(ids(search_memories(query=query, project="theirs", mode="semantic"))) == {mine.pk, theirs.pk, shared.pk}


def test_narrow_filters_still_apply_to_the_vector_copy(quantized):
    gotcha, fact = store(
        {"content": "The release train skips public holidays", "project": "p", "category": "gotcha"},
        {"content": "The release train leaves on Tuesdays", "project": "p", "category": "fact"},
    )
    hits = search_memories(query="release train", project="p", mode="semantic", category="gotcha")
    assert ids(hits) == [gotcha.pk]


def test_the_copy_quantizes_a_query_exactly_as_vec0_does():
    rng = np.random.default_rng(7)
    for _ in range(50):
        vector = rng.standard_normal(384).astype(np.float32)
        vector[rng.integers(0, 384, 8)] = 0.0  # zero is not positive for either
        assert vector_index.binary_code(vector) == sql.quantize_binary(vector)


@pytest.mark.parametrize("exact_knn_max", [5000, 0])
def test_the_gates_candidates_come_from_exactly_the_writes_scope(settings, exact_knn_max):
    settings.MEMORYHUB_EXACT_KNN_MAX = exact_knn_max
    text = "The staging database runs on PostgreSQL 16"
    import_memories(items=[{"content": text, "project": f"other-{n}"} for n in range(150)], source="test")
    import_memories(items=[{"content": text, "project": None}], source="test")
    (mine,) = store({"content": "The staging database runs PostgreSQL 16", "project": "alpha"})
    embedder = get_embedder()
    words, nearest = search.similar_in_scope(
        content=text, vector=embedder.embed([text])[0], model_id=embedder.model_id, project="alpha"
    )
    assert words == [mine.pk] and set(nearest) == {mine.pk} and nearest[mine.pk] > 0.9
    words, nearest = search.similar_in_scope(content=text, vector=None, model_id=embedder.model_id, project=None)
    assert len(words) == 1 and Memory.objects.get(pk=words[0]).project is None and nearest == {}


VOCABULARY = ["cache", "deploy", "queue", "retry", "schema", "worker", "token", "billing", "nightly", "docs/run.md"]


@hypothesis_settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    query=st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=5).map(" ".join),
    limit=st.sampled_from([1, 2, 5]),
)
def test_every_plan_keeps_to_the_scope_and_finds_the_memory_holding_the_query(settings, query, limit):
    settings.MEMORYHUB_KEYWORD_COMMON_DOCS = limit
    search.forget_cached_plans()
    Memory.objects.all().delete()
    words = [w for w in VOCABULARY if w != "docs/run.md"]
    store(*({"content": f"The {words[n % 9]} and {words[(n * 7) % 9]} notes, item {n}", "project": "p"}
            for n in range(40)))  # fmt: skip
    store(*({"content": f"The {w} notes of another project", "project": "q"} for w in words))
    (holder,) = store({"content": f"Everything at once: {query}", "project": "p"})
    hits = search_memories(query=query, project="p", mode="keyword", k=50)
    assert all(h.memory.project in ("p", None) for h in hits)
    assert holder.pk in ids(hits)  # rare words, all words, or the newest: every plan reaches it
    if query_text.parse(query).phrase:  # three words or more, or a path: typed verbatim, so first
        assert hits[0].memory.pk == holder.pk and hits[0].explain["exact_match"] is True
