"""Search in the domain (`search_memories`) on the real FTS5 and vec0 tables and the real embedding model: what is
found and in what order, scope and filters, hostile input; then what keeps search fast on large stores (the scope
token in the word index, common-word planning, the in-process vector copy), checked on small stores by lowering the
limits. The endpoint, POST /search, is tests/api/test_search.py.
"""

from __future__ import annotations

import re
from datetime import timedelta

import numpy as np
import pytest
from django.utils import timezone
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from memoryhub.embeddings import get_embedder
from memoryhub.memories.lifecycle import archive_memory, restore_memory
from memoryhub.memories.store import delete_memory, import_memories, update_memory
from memoryhub.models import Memory, Status
from memoryhub.retrieval import query_text, search
from memoryhub.retrieval.search import MemoryFilter, search_memories
from memoryhub.storage import keyword, sql, vector_index
from memoryhub.storage.sqlite import keyword as sqlite_keyword

pytestmark = pytest.mark.django_db

HOSTILE = [
    "",
    "   ",
    '"',
    "'",
    "multi-agent",
    "don't",
    "c++",
    "AI AND",
    "AND",
    "OR OR NOT",
    "NEAR(a b)",
    "ubuntu 20.04",
    "col:value",
    "a*",
    "^start",
    "(unbalanced",
    'say "hi',
    "🙂🔥 emoji only",
    "ünïcödé façade",
    "x" * 10_000,
    "word " * 3_000,
    "\x00nul\x00",
    "-- DROP TABLE memoryhub_memory; --",
    "'; SELECT * FROM sqlite_master; --",
    "{}[]()<>|\\/@#$%^&*+=~`",
]


def ids(hits) -> list[int]:
    return [h.memory.pk for h in hits]


def store(*items: dict) -> list[Memory]:
    pks = import_memories(items=list(items), source="test")
    return [Memory.objects.get(pk=pk) for pk in pks]


def assert_sound(hits, *, k: int = 10, projects: tuple = ("alpha", None)) -> None:
    """What every answer is, whatever the query: within the scope, active, each memory once, at most k, best first."""
    assert len(hits) <= k
    assert len(set(ids(hits))) == len(hits)
    assert all(h.memory.project in projects and h.memory.status == Status.ACTIVE for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def in_scope(corpus: list[Memory], project: str = "alpha") -> set[int]:
    return {m.pk for m in corpus if m.project in (project, None)}


@pytest.fixture
def corpus():
    return store(
        {"content": "getUserId returns None for anonymous sessions in the auth middleware", "project": "alpha"},
        {"content": "The user id is read from the session cookie on every request", "project": "alpha"},
        {"content": "Settings for local development live in config/settings_local.py", "project": "alpha"},
        {"content": "ModuleNotFoundError: No module named 'pysqlite3' means the wheel is missing", "project": "alpha"},
        {"content": "Deploys go through GitHub Actions and need the AWS_REGION variable", "project": "alpha"},
        {"content": "Billing invoices are generated nightly by a cron job", "project": "beta"},
        {"content": "The person prefers short answers with the code first", "project": None},
        {"content": "Python modules are imported once and then cached in sys.modules", "project": "alpha"},
    )


# What is found, and in what order.


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("getUserId", 0),
        ("UserId", 0),
        ("settings_local.py", 2),
        ("ModuleNotFoundError: No module named 'pysqlite3'", 3),
        ("AWS_REGION", 4),
    ],
)
@pytest.mark.parametrize("mode", ["hybrid", "keyword"])
def test_an_identifier_file_name_or_error_typed_verbatim_ranks_its_memory_first(corpus, query, expected, mode):
    hits = search_memories(query=query, within=MemoryFilter(visible_from="alpha"), mode=mode)
    assert hits[0].memory.pk == corpus[expected].pk
    assert hits[0].explain["exact_match"] is True


def test_a_run_of_words_typed_verbatim_ranks_the_memory_holding_it_first():
    holder, decoy = store(
        {"content": "Reporting runs on Hetzner in the load-test cluster", "project": "p"},
        {"content": "Search runs on Hetzner in staging; the reporting bug is tracked separately", "project": "p"},
    )
    hits = search_memories(query="reporting runs on Hetzner", within=MemoryFilter(visible_from="p"))
    assert ids(hits)[:2] == [holder.pk, decoy.pk]
    assert hits[0].explain["exact_match"] is True and hits[1].explain["exact_match"] is False
    # Two plain words are not a verbatim phrase: the usual ranking decides.
    assert (
        search_memories(query="reporting runs", within=MemoryFilter(visible_from="p"))[0].explain["exact_match"]
        is False
    )


def test_semantic_search_finds_meaning_without_shared_words(corpus):
    # MiniLM puts this pair at cosine 0.17, below what made-up queries reach: only without the floor.
    alpha = MemoryFilter(visible_from="alpha")
    hits = search_memories(query="how are releases shipped to production", within=alpha, mode="semantic", min_score=0.0)
    assert hits[0].memory.pk == corpus[4].pk
    assert hits[0].explain["keyword_rank"] is None and hits[0].explain["vector_rank"] == 1


def test_ranking_moves_with_importance():
    low, high = store(
        {"content": "The API rate limit is 100 requests per minute", "project": "p", "importance": 0.2},
        {"content": "The API rate limit is 100 requests per minute", "project": "p", "importance": 0.9},
    )
    assert ids(search_memories(query="api rate limit", within=MemoryFilter(visible_from="p")))[:2] == [high.pk, low.pk]
    Memory.objects.filter(pk=low.pk).update(importance=1.0)
    Memory.objects.filter(pk=high.pk).update(importance=0.1)
    assert ids(search_memories(query="api rate limit", within=MemoryFilter(visible_from="p")))[:2] == [low.pk, high.pk]


def test_a_confirmed_fresh_memory_wins_a_tie_against_a_stale_one():
    long_ago = (timezone.now() - timedelta(days=120)).isoformat()
    stale, fresh = store(
        {"content": "Staging runs on Kubernetes 1.29", "project": "p", "importance": 0.6,
         "created_at": long_ago, "updated_at": long_ago},
        {"content": "Staging runs on Kubernetes 1.29", "project": "p", "importance": 0.6, "confirmed": True},
    )  # fmt: skip
    hits = search_memories(query="which kubernetes version does staging run", within=MemoryFilter(visible_from="p"))
    assert ids(hits)[:2] == [fresh.pk, stale.pk]
    assert hits[0].explain["importance_factor"] > hits[1].explain["importance_factor"]


def test_explain_says_why_and_agrees_with_the_order(corpus):
    hits = search_memories(query="session user id", within=MemoryFilter(visible_from="alpha"), k=8, min_score=0)
    assert len(hits) >= 3
    expected = {
        "keyword_rank", "bm25", "substring_rank", "exact_match", "vector_rank", "distance", "similarity",
        "word_coverage", "fused", "relevance", "effective_importance", "confirmed", "importance_factor", "mode",
    }  # fmt: skip
    for hit in hits:
        assert expected <= set(hit.explain)
        verbatim = 1.0 if hit.explain["exact_match"] else 0.0
        product = verbatim + hit.explain["relevance"] * hit.explain["importance_factor"]
        assert hit.score == pytest.approx(product, abs=1e-4)
        assert (hit.explain["keyword_rank"] is None) == (hit.explain["bm25"] is None)
        assert (hit.explain["vector_rank"] is None) == (hit.explain["distance"] is None)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    keyword = sorted((h.explain["keyword_rank"], h.explain["bm25"]) for h in hits if h.explain["keyword_rank"])
    assert [b for _, b in keyword] == sorted(b for _, b in keyword)  # bm25: lower is better, rank 1 lowest
    vector = sorted((h.explain["vector_rank"], h.explain["distance"]) for h in hits if h.explain["vector_rank"])
    assert [d for _, d in vector] == sorted(d for _, d in vector)


def test_scores_are_readable_a_good_match_scores_high_and_noise_low(corpus):
    good = search_memories(query="getUserId anonymous sessions", within=MemoryFilter(visible_from="alpha"))[0]
    noise = search_memories(
        query="volcanic eruptions in iceland", within=MemoryFilter(visible_from="alpha"), mode="semantic", min_score=0
    )[0]
    assert 0.0 < noise.score < 0.6 < good.score
    assert (
        search_memories(
            query="volcanic eruptions in iceland", within=MemoryFilter(visible_from="alpha"), mode="semantic"
        )
        == []
    )


def test_an_agents_search_reinforces_what_it_returned_and_browsing_does_not(corpus):
    search_memories(query="getUserId", within=MemoryFilter(visible_from="alpha"), reinforce_results=False)
    corpus[0].refresh_from_db()
    assert corpus[0].access_count == 0 and corpus[0].last_accessed_at is None
    hits = search_memories(query="getUserId", within=MemoryFilter(visible_from="alpha"), k=2, reinforce_results=True)
    for hit in hits:
        hit.memory.refresh_from_db()
        assert hit.memory.access_count == 1 and hit.memory.last_accessed_at is not None
    untouched = Memory.objects.exclude(pk__in=ids(hits))
    assert not untouched.filter(access_count__gt=0).exists()


# Scope and filters.


def test_a_project_sees_its_own_and_global_memories_never_another_projects(corpus):
    def seen_from(project: str, mode: str):
        query = "invoices cron billing answers"
        return search_memories(query=query, within=MemoryFilter(visible_from=project), mode=mode, k=20, min_score=0)

    for mode in ("hybrid", "keyword", "semantic"):
        alpha = seen_from("alpha", mode)
        assert {h.memory.project for h in alpha} <= {"alpha", None}
        assert corpus[5].pk not in ids(alpha)
        beta = seen_from("beta", mode)
        assert corpus[5].pk in ids(beta)
        assert corpus[6].pk in ids(beta)  # the global preference is seen from every project
        assert {h.memory.project for h in beta} <= {"beta", None}


def test_without_a_project_only_globals_are_searched_unless_every_project_is_asked(corpus):
    assert {h.memory.project for h in search_memories(query="code answers billing deploys")} == {None}
    every = search_memories(
        query="code answers billing deploys", within=MemoryFilter(every_project=True), k=20, min_score=0
    )
    assert {"alpha", "beta", None} <= {h.memory.project for h in every}


def test_a_token_limited_to_projects_never_sees_the_others(corpus):
    hits = search_memories(
        query="billing invoices", within=MemoryFilter(every_project=True, allowed_projects=["alpha"]), k=20
    )
    assert corpus[5].pk not in ids(hits)
    assert {h.memory.project for h in hits} <= {"alpha", None}


def test_archived_memories_are_left_out_unless_asked_for(corpus):
    Memory.objects.filter(pk=corpus[5].pk).update(status=Status.ARCHIVED)
    for mode in ("hybrid", "keyword", "semantic"):
        assert corpus[5].pk not in ids(
            search_memories(query="billing invoices cron", within=MemoryFilter(visible_from="beta"), mode=mode)
        )
    assert corpus[5].pk in ids(
        search_memories(query="billing invoices cron", within=MemoryFilter(visible_from="beta", status=None))
    )
    archived = search_memories(
        query="billing invoices cron", within=MemoryFilter(visible_from="beta", status=Status.ARCHIVED)
    )
    assert ids(archived) == [corpus[5].pk]


def test_filters_narrow_by_category_tier_tags_and_source():
    a, b, c = store(
        {"content": "Redis caches the session tokens", "project": "p", "category": "fact", "tags": ["cache"]},
        {"content": "Redis must be flushed after a schema change", "project": "p", "category": "gotcha",
         "tier": "procedural", "tags": ["cache", "ops"]},
        {"content": "Redis runs on port 6379 in staging", "project": "p", "category": "environment",
         "source": "codex"},
    )  # fmt: skip
    assert ids(search_memories(query="redis", within=MemoryFilter(visible_from="p", category="gotcha"))) == [b.pk]
    assert ids(search_memories(query="redis", within=MemoryFilter(visible_from="p", tier="procedural"))) == [b.pk]
    assert set(ids(search_memories(query="redis", within=MemoryFilter(visible_from="p", tags=["cache"])))) == {
        a.pk,
        b.pk,
    }
    assert ids(search_memories(query="redis", within=MemoryFilter(visible_from="p", tags=["cache", "ops"]))) == [b.pk]
    assert ids(search_memories(query="redis", within=MemoryFilter(visible_from="p", source="codex"))) == [c.pk]


def test_date_ranges_filter_on_creation_and_last_access():
    now = timezone.now()
    old, recent = store(
        {"content": "The old deploy used Fabric scripts", "project": "p",
         "created_at": (now - timedelta(days=90)).isoformat()},
        {"content": "The new deploy uses GitHub Actions", "project": "p",
         "created_at": (now - timedelta(days=2)).isoformat(),
         "last_accessed_at": (now - timedelta(hours=1)).isoformat()},
    )  # fmt: skip
    week_ago = now - timedelta(days=7)
    assert ids(search_memories(query="deploy", within=MemoryFilter(visible_from="p", created_after=week_ago))) == [
        recent.pk
    ]
    assert ids(search_memories(query="deploy", within=MemoryFilter(visible_from="p", created_before=week_ago))) == [
        old.pk
    ]
    assert ids(search_memories(query="deploy", within=MemoryFilter(visible_from="p", accessed_after=week_ago))) == [
        recent.pk
    ]
    assert ids(search_memories(query="deploy", within=MemoryFilter(visible_from="p", accessed_before=week_ago))) == []


# Hostile and bad input.


@pytest.mark.parametrize("query", HOSTILE)
@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_hostile_queries_are_searched_as_text_and_leave_the_store_as_it_was(corpus, query, mode):
    hits = search_memories(query=query, within=MemoryFilter(visible_from="alpha"), mode=mode)
    assert_sound(hits)
    if not query.strip():
        assert hits == []
    elif mode == "keyword":
        # Operators and punctuation are text, never syntax: a keyword hit holds one of the query's words.
        words = re.findall(r"\w+", query.lower())
        assert all(any(word in h.memory.content.lower() for word in words) for h in hits), ids(hits)
    else:
        # The floor keeps only real matches; without it hybrid always has the meaning to go on: every memory in
        # scope comes back, ranked.
        assert set(ids(hits)) <= in_scope(corpus)
        everything = search_memories(query=query, within=MemoryFilter(visible_from="alpha"), mode=mode, min_score=0)
        assert_sound(everything)
        assert set(ids(everything)) == in_scope(corpus)
    assert Memory.objects.count() == len(corpus)
    sql.fts_integrity_check()


@hypothesis_settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.text(max_size=300))
def test_arbitrary_text_never_raises_in_keyword_search(corpus, query):
    hits = search_memories(query=query, within=MemoryFilter(visible_from="alpha"), mode="keyword")
    assert_sound(hits)  # within alpha and the globals, among the rest


@hypothesis_settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=80))
def test_arbitrary_text_in_hybrid_search_ranks_every_memory_in_scope(corpus, query):
    hits = search_memories(query=query, within=MemoryFilter(visible_from="alpha"), mode="hybrid", min_score=0)
    assert_sound(hits)
    assert set(ids(hits)) == (in_scope(corpus) if query.strip() else set())
    floored = search_memories(query=query, within=MemoryFilter(visible_from="alpha"), mode="hybrid")
    assert_sound(floored)
    assert set(ids(floored)) <= set(ids(hits))


@given(text=st.text(max_size=500))
def test_every_match_expression_is_built_from_quoted_terms(text):
    parsed = query_text.parse(text)
    queries = [parsed.word_query] if parsed.terms else []
    queries += [keyword.any_of(parsed.substrings)] if parsed.substrings else []
    for query in queries:
        # On the trigram index a query is its terms alone (the word index adds its column filters around them).
        expression = sqlite_keyword.match_expression(query, sql.TRIGRAM_TABLE)
        for term in expression.split(" OR "):
            assert term.startswith('"') and term.endswith('"')
            assert '"' not in term[1:-1].replace('""', "")
        assert [term.text for term in keyword.terms(query)] == [
            t[1:-1].replace('""', '"') for t in expression.split(" OR ")
        ]


def test_very_common_words_do_not_flood_the_keyword_query():
    parsed = query_text.parse("what is the way that we do the deploy of the api")
    assert parsed.terms == ("way", "deploy", "api")
    assert query_text.parse("to be or not to be").terms  # all stopwords: kept rather than searching nothing


@pytest.mark.parametrize("bad", [{"mode": "fuzzy"}, {"k": 0}, {"k": 1000}, {"k": "10"}])
def test_bad_arguments_get_a_clear_error(corpus, bad):
    with pytest.raises(ValueError):
        search_memories(query="deploy", within=MemoryFilter(visible_from="alpha"), **bad)


# Large stores, keyword side: the scope token in the word index and the plans for common words.


def test_the_word_index_follows_a_memory_moved_to_another_project():
    (moved,) = store({"content": "The zephyr queue retries three times", "project": "old"})
    assert ids(search_memories(query="zephyr queue", within=MemoryFilter(visible_from="old"), mode="keyword")) == [
        moved.pk
    ]
    update_memory(memory=moved, changes={"project": "new"})
    assert search_memories(query="zephyr queue", within=MemoryFilter(visible_from="old"), mode="keyword") == []
    assert ids(search_memories(query="zephyr queue", within=MemoryFilter(visible_from="new"), mode="keyword")) == [
        moved.pk
    ]
    Memory.objects.filter(pk=moved.pk).update(project=None)  # behind the domain's back: the trigger follows
    assert ids(search_memories(query="zephyr queue", within=MemoryFilter(visible_from="old"), mode="keyword")) == [
        moved.pk
    ]
    sql.fts_integrity_check()


def test_a_project_name_of_any_text_is_one_scope_token():
    odd = 'a "b" OR c: ünï/‽ NEAR(x)'
    (mine,) = store({"content": "The walrus endpoint is private", "project": odd})
    store({"content": "The walrus endpoint is public", "project": "a"})
    assert ids(search_memories(query="walrus endpoint", within=MemoryFilter(visible_from=odd), mode="keyword")) == [
        mine.pk
    ]
    sql.fts_integrity_check()


def test_a_rare_word_leads_when_the_other_words_are_common(tuned):
    tuned(keyword_common_docs=5)
    store(*({"content": f"Deploy notes for service number {n}", "project": "p"} for n in range(12)))
    (rare,) = store({"content": "Deploy notes about the zanzibar gateway", "project": "p"})
    kq = query_text.parse("zanzibar deploy notes")
    assert [search._is_common(u, ("p", None), 5) for u in kq.units] == [False, True, True]
    hits = search_memories(query="zanzibar deploy notes", within=MemoryFilter(visible_from="p"), mode="keyword")
    assert ids(hits)[0] == rare.pk and hits[0].explain["keyword_rank"] == 1


def test_when_every_word_is_common_an_old_memory_holding_all_of_them_is_still_found(tuned):
    tuned(keyword_common_docs=5)
    (oldest,) = store({"content": "Cache invalidation after the schema migration", "project": "p"})
    store(*({"content": f"Cache warmup step {n}", "project": "p"} for n in range(10)))
    store(*({"content": f"Schema migration step {n}", "project": "p"} for n in range(10)))
    newest = store(*({"content": f"Invalidation of cache entry {n}", "project": "p"} for n in range(10)))
    hits = search_memories(
        query="cache invalidation schema migration", within=MemoryFilter(visible_from="p"), mode="keyword", k=20
    )
    assert ids(hits)[0] == oldest.pk
    # Rows holding only some of the words come from the newest ones.
    assert set(ids(hits)) & {m.pk for m in newest}


def test_a_store_under_the_limit_is_searched_as_plain_bm25():
    memories = store(*({"content": f"Kafka topic {n} keeps events for {n} days", "project": "p"} for n in range(30)))
    hits = search_memories(query="kafka topic events days", within=MemoryFilter(visible_from="p"), mode="keyword", k=30)
    query = query_text.parse("kafka topic events days").word_query
    plain = [mid for mid, _ in sql.fts_search(query, 50, "m.status = 'active'")]
    assert ids(hits) == plain[:30] and len(plain) == len(memories)


def test_an_identifier_held_whole_skips_the_trigram_index_and_a_fragment_uses_it():
    whole, inside = store(
        {"content": "fetchInvoiceTotals times out after 30 s", "project": "p"},
        {"content": "The helper getUserIdFromToken trusts the header", "project": "p"},
    )
    exact = search_memories(query="fetchInvoiceTotals", within=MemoryFilter(visible_from="p"), mode="keyword")[0]
    assert exact.memory.pk == whole.pk and exact.explain["exact_match"]
    assert exact.explain["substring_rank"] is None
    fragment = search_memories(query="UserIdFrom", within=MemoryFilter(visible_from="p"), mode="keyword")[0]
    assert fragment.memory.pk == inside.pk and fragment.explain["substring_rank"] == 1


def test_a_path_is_found_as_the_phrase_of_its_words(tuned):
    tuned(keyword_common_docs=3)
    store(*({"content": f"See docs/runbooks/step{n}.md and docs index", "project": "p"} for n in range(8)))
    (target,) = store({"content": "Rotation is described in docs/runbooks/secrets.md", "project": "p"})
    hit = search_memories(query="docs/runbooks/secrets.md", within=MemoryFilter(visible_from="p"), mode="keyword")[0]
    assert hit.memory.pk == target.pk and hit.explain["exact_match"]


VOCABULARY = ["cache", "deploy", "queue", "retry", "schema", "worker", "token", "billing", "nightly", "docs/run.md"]


@hypothesis_settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    query=st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=5).map(" ".join),
    limit=st.sampled_from([1, 2, 5]),
)
def test_every_plan_keeps_to_the_scope_and_finds_the_memory_holding_the_query(tuned, query, limit):
    tuned(keyword_common_docs=limit)
    search.forget_cached_plans()
    Memory.objects.all().delete()
    words = [w for w in VOCABULARY if w != "docs/run.md"]
    store(*({"content": f"The {words[n % 9]} and {words[(n * 7) % 9]} notes, item {n}", "project": "p"}
            for n in range(40)))  # fmt: skip
    store(*({"content": f"The {w} notes of another project", "project": "q"} for w in words))
    (holder,) = store({"content": f"Everything at once: {query}", "project": "p"})
    hits = search_memories(query=query, within=MemoryFilter(visible_from="p"), mode="keyword", k=50)
    assert all(h.memory.project in ("p", None) for h in hits)
    assert holder.pk in ids(hits)  # rare words, all words, or the newest: every plan reaches it
    if query_text.parse(query).phrase:  # three words or more, or a path: typed verbatim, so first
        assert hits[0].memory.pk == holder.pk and hits[0].explain["exact_match"] is True


# Large stores, vector side: narrow filters, the quantized in-process copy, the gate's candidates.


def test_a_narrow_filter_does_not_starve_the_results(tuned):
    # Sixty near-identical memories elsewhere fill any global candidate pool before the one that matters.
    store(*[{"content": f"Postgres connection pool size is {n} in service {n}", "project": "noise"} for n in range(60)])
    (target,) = store({"content": "The database pool holds twenty connections", "project": "target"})
    for filter_ids_max in (2000, 0):  # rank within the allowed rows; or widen the global pool by selectivity
        tuned(knn_filter_ids_max=filter_ids_max)
        for mode in ("semantic", "hybrid", "keyword"):
            hits = search_memories(
                query="postgres connection pool size", within=MemoryFilter(visible_from="target"), mode=mode, k=3
            )
            assert ids(hits) == [target.pk], (filter_ids_max, mode)


@pytest.mark.sqlite_only  # the in-process vector copy; PostgreSQL ranks in the database
def test_quantized_search_finds_what_exact_search_finds(tuned, monkeypatch, corpus):
    alpha = MemoryFilter(visible_from="alpha")
    exact = search_memories(query="where is the session user id read", within=alpha, mode="semantic")
    monkeypatch.setattr(vector_index, "EXACT_KNN_MAX", 0)
    for filter_ids_max in (0, 2000):  # widened global pool, then ranking within the filter's rows
        tuned(knn_filter_ids_max=filter_ids_max)
        quantized = search_memories(query="where is the session user id read", within=alpha, mode="semantic")
        assert quantized[0].explain["knn"].startswith("quantized")
        assert ids(quantized)[:3] == ids(exact)[:3]
        for q, e in zip(quantized, exact, strict=False):
            assert q.explain["distance"] == pytest.approx(e.explain["distance"], abs=0.01)


@pytest.mark.sqlite_only  # the in-process vector copy; PostgreSQL ranks in the database
def test_the_quantized_copy_follows_new_changed_and_deleted_memories(tuned, monkeypatch, corpus):
    monkeypatch.setattr(vector_index, "EXACT_KNN_MAX", 0)
    tuned(knn_filter_ids_max=0)
    query = "kubernetes helm chart for the ingress controller"
    assert (
        search_memories(query=query, within=MemoryFilter(visible_from="alpha"), mode="semantic", min_score=0)[
            0
        ].explain["knn"]
        == "quantized"
    )
    (added,) = store({"content": "The ingress controller is deployed with a Helm chart on Kubernetes",
                      "project": "alpha"})  # fmt: skip
    assert (
        search_memories(query=query, within=MemoryFilter(visible_from="alpha"), mode="semantic")[0].memory.pk
        == added.pk
    )
    update_memory(memory=corpus[7], changes={"content": "Kubernetes ingress uses the nginx Helm chart, pinned"})
    top = ids(search_memories(query=query, within=MemoryFilter(visible_from="alpha"), mode="semantic"))[:2]
    assert set(top) == {added.pk, corpus[7].pk}
    delete_memory(memory=added)
    assert (
        search_memories(query=query, within=MemoryFilter(visible_from="alpha"), mode="semantic")[0].memory.pk
        == corpus[7].pk
    )


@pytest.fixture
def quantized(tuned, monkeypatch):
    monkeypatch.setattr(vector_index, "EXACT_KNN_MAX", 0)
    tuned(knn_filter_ids_max=0)


@pytest.mark.sqlite_only  # the in-process vector copy; PostgreSQL ranks in the database
def test_the_vector_copy_masks_other_projects_and_archived_memories(quantized):
    mine, theirs, shared = store(
        {"content": "Our release train leaves every second Tuesday", "project": "mine"},
        {"content": "Their release train leaves every Tuesday", "project": "theirs"},
        {"content": "Release trains are announced in the team channel", "project": None},
    )
    query = "when does the release train leave"
    hits = search_memories(query=query, within=MemoryFilter(visible_from="mine"), mode="semantic")
    assert set(ids(hits)) == {mine.pk, shared.pk} and hits[0].explain["knn"] == "quantized"
    assert set(ids(search_memories(query=query, within=MemoryFilter(visible_from=None), mode="semantic"))) == {
        shared.pk
    }
    everything = search_memories(
        query=query, within=MemoryFilter(visible_from=None, every_project=True), mode="semantic"
    )
    assert set(ids(everything)) == {mine.pk, theirs.pk, shared.pk}
    limited = search_memories(
        query=query, within=MemoryFilter(every_project=True, allowed_projects=["theirs"]), mode="semantic"
    )
    assert set(ids(limited)) == {theirs.pk, shared.pk}
    archive_memory(memory=mine, actor="test")
    assert set(ids(search_memories(query=query, within=MemoryFilter(visible_from="mine"), mode="semantic"))) == {
        shared.pk
    }
    archived = search_memories(query=query, within=MemoryFilter(visible_from="mine", status=None), mode="semantic")
    assert set(ids(archived)) == {mine.pk, shared.pk}
    restore_memory(memory=Memory.objects.get(pk=mine.pk), actor="test")
    update_memory(memory=Memory.objects.get(pk=mine.pk), changes={"project": "theirs"})
    assert set(ids(search_memories(query=query, within=MemoryFilter(visible_from="theirs"), mode="semantic"))) == {
        mine.pk,
        theirs.pk,
        shared.pk,
    }


def test_narrow_filters_still_apply_to_the_vector_copy(quantized):
    gotcha, fact = store(
        {"content": "The release train skips public holidays", "project": "p", "category": "gotcha"},
        {"content": "The release train leaves on Tuesdays", "project": "p", "category": "fact"},
    )
    hits = search_memories(
        query="release train", within=MemoryFilter(visible_from="p", category="gotcha"), mode="semantic"
    )
    assert ids(hits) == [gotcha.pk]


def test_the_copy_quantizes_a_query_exactly_as_vec0_does():
    rng = np.random.default_rng(7)
    for _ in range(50):
        vector = rng.standard_normal(384).astype(np.float32)
        vector[rng.integers(0, 384, 8)] = 0.0  # zero is not positive for either
        assert vector_index.binary_code(vector) == sql.quantize_binary(vector)


@pytest.mark.parametrize("exact_knn_max", [5000, 0])
def test_the_gates_candidates_come_from_exactly_the_writes_scope(monkeypatch, exact_knn_max):
    monkeypatch.setattr(vector_index, "EXACT_KNN_MAX", exact_knn_max)
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


def test_project_has_one_meaning_seen_from_it_the_globals_too_unless_left_out():
    mine, shared, theirs = store(
        {"content": "The kestrel cache warms at noon", "project": "p"},
        {"content": "The kestrel cache warms at noon for everyone"},
        {"content": "The kestrel cache warms at noon over there", "project": "q"},
    )
    assert MemoryFilter(visible_from="p").scopes() == ["p", None]
    assert set(ids(search_memories(query="kestrel cache", within=MemoryFilter(visible_from="p")))) == {
        mine.pk, shared.pk,
    }  # fmt: skip
    only_p = MemoryFilter(visible_from="p", globals_too=False)
    assert ids(search_memories(query="kestrel cache", within=only_p)) == [mine.pk]
    assert ids(search_memories(query="kestrel cache", within=only_p, mode="semantic")) == [mine.pk]
    assert ids(search_memories(query="kestrel cache")) == [shared.pk]  # no filter: the globals
    everywhere = MemoryFilter(every_project=True)
    assert set(ids(search_memories(query="kestrel cache", within=everywhere))) == {mine.pk, shared.pk, theirs.pk}
