"""Search rows say how each memory matched (words, identifier, meaning), mark the query's words in the text,
and a search that finds nothing says so, with a way to widen it; list headers sort; an archived memory says why."""

from __future__ import annotations

from memoryhub.memories.lifecycle import archive
from tests.ui.conftest import row_ids
from ui.templatetags.ui_tags import highlight, match_channels


def test_a_search_row_marks_the_words_and_says_how_it_matched(ui, store):
    html = ui.get("/?q=cursor+pagination").content.decode()
    row = html[html.index(f'id="memory-{store["pagination"].pk}"') :]
    row = row[: row.index("</tr>")]
    assert "<mark>cursor</mark> <mark>pagination</mark>" in row
    assert "matched by" in row and '<span class="chip chip-match">words</span>' in row


def test_the_list_without_a_search_marks_nothing(ui, store):
    html = ui.get("/").content.decode()
    assert "<mark>" not in html and "matched by" not in html


def test_a_search_that_finds_nothing_says_so_and_offers_a_wider_search(ui, store, settings):
    archive(memory_ids=[m.pk for m in store.values()], actor="test")
    html = ui.get("/?q=cursor+pagination").content.decode()
    assert row_ids(html) == []
    assert "Nothing matches “cursor pagination”" in html and "among active memories" in html
    assert 'href="?q=cursor+pagination&amp;status=all"' in html


def test_highlighting_escapes_and_matches_word_starts():
    assert highlight("Deploys <b>go</b> to deploy-host", "deploy go") == (
        "<mark>Deploy</mark>s &lt;b&gt;go&lt;/b&gt; to <mark>deploy</mark>-host"
    )
    assert highlight("a <tag>", "") == "a &lt;tag&gt;"


def test_channels_come_from_explain():
    assert match_channels({"keyword_rank": 2, "vector_rank": 5, "similarity": 0.6234}) == ["words", "meaning 62%"]
    assert match_channels({"exact_match": True, "keyword_rank": None}) == ["identifier"]
    assert match_channels({"channels": ["identifier", "meaning"], "similarity": 0.5}) == ["identifier", "meaning 50%"]
    assert match_channels({}) == []
    # The reply to a question that matched: lifted under it, whatever else it matched by.
    assert match_channels({"channels": {}, "answers": 12}) == ["reply"]
    assert match_channels({"channels": {"words": 0.5}, "answers": 12}) == ["words", "reply"]
    # The speaker's next turn after a turn that matched: lifted under it too.
    assert match_channels({"channels": {}, "continues": 12}) == ["next turn"]


def test_headers_sort_the_list_and_an_archived_memory_says_why(ui, store):
    html = ui.get("/").content.decode()
    assert 'href="?sort=importance"' in html and 'aria-sort="descending"' in html
    ordered = ui.get("/?sort=importance").content.decode()
    assert row_ids(ordered)[0] == store["pagination"].pk  # importance 0.8, the highest
    archive(memory_ids=[store["deploy"].pk], actor="ui:curator", note="no longer true")
    archived = ui.get("/?status=archived").content.decode()
    assert 'title="no longer true">by curator</span>' in archived
