"""The memory list: search, filters, sorting and pages, updated in place for htmx and whole for a plain link."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from memoryhub.memories.decay import effective_importance
from memoryhub.models import Memory
from tests.ui.conftest import HX, remember, row_ids
from ui.selectors import PAGE_SIZE


def test_it_lists_every_active_memory_with_its_fields(ui, store):
    html = ui.get("/").content.decode()
    assert set(row_ids(html)) == {m.pk for m in store.values()}
    assert "The API uses cursor pagination for every list endpoint" in html
    assert ">decision<" in html and ">alpha<" in html and ">global<" in html
    assert 'href="/?tag=pagination"' in html  # tags, each a link to its filter
    assert 'aria-label="Effective importance 0.80"' in html  # the importance bar
    assert ">codex<" in html  # the source


def test_an_htmx_request_gets_only_the_results_partial(ui, store):
    response = ui.get("/?project=alpha", **HX)
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<div id="memory-results"')
    assert "<html" not in html and 'id="filters"' not in html
    assert set(row_ids(html)) == {store["pagination"].pk, store["deploy"].pk}
    assert "HX-Request" in response["Vary"]


def test_the_same_url_without_htmx_is_the_whole_page_with_the_filter_kept(ui, store):
    html = ui.get("/?project=alpha&category=fact").content.decode()
    assert "<html" in html and 'id="filters"' in html
    assert '<option value="alpha" selected>' in html
    assert '<option value="fact" selected>' in html
    assert row_ids(html) == [store["deploy"].pk]


def test_each_filter_narrows_the_list(ui, store):
    cases = {
        "project=-": {store["editor"].pk},
        "project=beta": {store["pytest"].pk},
        "category=skill": {store["pytest"].pk},
        "tier=procedural": {store["pytest"].pk},
        "tag=deploy": {store["deploy"].pk},
        "source=codex": {store["deploy"].pk},
        "confirmed=yes": {store["editor"].pk},
        "confirmed=no": {store["pagination"].pk, store["deploy"].pk, store["pytest"].pk},
    }
    for query, expected in cases.items():
        assert set(row_ids(ui.get(f"/?{query}", **HX).content.decode())) == expected, query


def test_a_tag_filter_matches_whole_tags_only(ui, store):
    remember("Paging through results uses offsets in the legacy API", project="alpha", tags=["pagination-legacy"])
    assert row_ids(ui.get("/?tag=pagination", **HX).content.decode()) == [store["pagination"].pk]


def test_archived_memories_show_only_when_asked_for(ui, store):
    Memory.objects.filter(pk=store["deploy"].pk).update(status="archived")
    assert store["deploy"].pk not in row_ids(ui.get("/", **HX).content.decode())
    assert row_ids(ui.get("/?status=archived", **HX).content.decode()) == [store["deploy"].pk]
    assert len(row_ids(ui.get("/?status=all", **HX).content.decode())) == 4


def test_search_finds_by_words_and_by_meaning(ui, store):
    by_word = row_ids(ui.get("/?q=pagination", **HX).content.decode())
    assert by_word[0] == store["pagination"].pk
    by_meaning = row_ids(ui.get("/?q=which text editor does the user like", **HX).content.decode())
    assert by_meaning[0] == store["editor"].pk


def test_search_combines_with_filters(ui, store):
    html = ui.get("/?q=tests and deploys&project=beta", **HX).content.decode()
    assert row_ids(html) == [store["pytest"].pk]


def test_browsing_and_searching_do_not_count_as_use(ui, store):
    ui.get("/?q=pagination")
    ui.get("/")
    memory = Memory.objects.get(pk=store["pagination"].pk)
    assert memory.access_count == 0
    assert memory.last_accessed_at is None
    assert memory.importance == 0.8


def test_hostile_search_text_shows_results_or_nothing_never_an_error(ui, store):
    for query in ['"', "c++ AND (", "multi-agent don't", "NEAR(", "🙂" * 50, "x" * 5000]:
        response = ui.get("/", {"q": query}, **HX)
        assert response.status_code == 200, query


def test_sorting_by_importance_uses_the_decayed_value(ui, store):
    fresh_low = remember("A fresh memory of low importance", project="alpha", importance=0.5)
    stale_high = remember("A stale memory that was important once", project="alpha", importance=0.9)
    long_ago = timezone.now() - timedelta(days=60)
    Memory.objects.filter(pk=stale_high.pk).update(updated_at=long_ago, created_at=long_ago)
    order = row_ids(ui.get("/?project=alpha&sort=importance", **HX).content.decode())
    assert order.index(fresh_low.pk) < order.index(stale_high.pk)
    assert order[0] == store["pagination"].pk  # 0.8, fresh


def test_sorting_by_use_and_by_recency(ui, store):
    Memory.objects.filter(pk=store["pytest"].pk).update(access_count=7)
    Memory.objects.filter(pk=store["deploy"].pk).update(access_count=3)
    used = row_ids(ui.get("/?sort=used", **HX).content.decode())
    assert used[:2] == [store["pytest"].pk, store["deploy"].pk]
    recent = row_ids(ui.get("/?sort=recent", **HX).content.decode())
    assert recent == sorted(recent, reverse=True)


def test_the_last_use_column_sorts_by_last_use(ui, store):
    now = timezone.now()
    Memory.objects.filter(pk=store["pytest"].pk).update(access_count=9, last_accessed_at=now - timedelta(days=20))
    Memory.objects.filter(pk=store["deploy"].pk).update(access_count=1, last_accessed_at=now - timedelta(hours=1))
    html = ui.get("/?sort=last_used").content.decode()
    assert "sort=last_used" in html
    assert row_ids(html)[:2] == [store["deploy"].pk, store["pytest"].pk]  # the latest use first, not the most uses


def test_the_list_is_paged_and_page_links_keep_the_filters(ui, db):
    for n in range(30):
        remember(f"Service number {n} listens on port {9000 + n}", project="ports")
    first = ui.get("/?project=ports", **HX).content.decode()
    second = ui.get("/?project=ports&page=2", **HX).content.decode()
    assert len(row_ids(first)) == PAGE_SIZE and len(row_ids(second)) == 30 - PAGE_SIZE
    assert not set(row_ids(first)) & set(row_ids(second))
    assert "?project=ports&amp;page=2" in first
    assert f"1–{PAGE_SIZE}</strong> of <strong>30</strong>" in first


def test_a_search_is_paged_too_and_says_when_more_may_follow(ui, db):
    for n in range(30):
        remember(f"The worker pool number {n} restarts nightly", project="ports")
    first = ui.get("/?q=worker pool restarts", **HX).content.decode()
    assert len(row_ids(first)) == PAGE_SIZE
    assert f"of <strong>{PAGE_SIZE}+</strong>" in first  # the search stopped at its limit: more may exist
    second = ui.get("/?q=worker pool restarts&page=2", **HX).content.decode()
    assert len(row_ids(second)) == 30 - PAGE_SIZE
    assert not set(row_ids(first)) & set(row_ids(second))


def test_an_invalid_filter_is_ignored_with_a_message(ui, store):
    response = ui.get("/?category=nonsense&page=zero", **HX)
    html = response.content.decode()
    assert response.status_code == 200
    assert "Ignored the category filter" in html
    assert len(row_ids(html)) == 4


def test_an_empty_result_says_so(ui, store):
    html = ui.get("/?project=nowhere", **HX).content.decode()
    assert row_ids(html) == []
    assert "No memories match" in html


def test_the_sql_importance_order_uses_exactly_the_decay_formula(db):
    from memoryhub.memories.decay import effective_importance_expression

    now = timezone.now()
    cases = [
        ("decision", "semantic", 0.9, False, 3),
        ("gotcha", "episodic", 0.7, False, 40),
        ("", "episodic", 0.6, False, 10),
        ("", "", 0.8, False, 25),
        ("preference", "procedural", 0.9, True, 400),
        ("fact", "semantic", 0.4, True, 200),
    ]
    for n, (category, tier, importance, confirmed, days) in enumerate(cases):
        memory = remember(
            f"Decay case number {n} for the ordering",
            category=category,
            tier=tier,
            importance=importance,
            confirmed=confirmed,
        )
        moment = now - timedelta(days=days)
        Memory.objects.filter(pk=memory.pk).update(updated_at=moment, created_at=moment)
    rows = Memory.objects.annotate(sql_value=effective_importance_expression(now))
    for memory in rows:
        assert abs(memory.sql_value - effective_importance(memory, now)) < 1e-5, memory.content
