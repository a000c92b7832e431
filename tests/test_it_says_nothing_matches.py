"""The relevance floor: search returns only what matches, says which channels matched, and says "nothing"."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from memoryhub.memories.store import import_memories
from memoryhub.retrieval import fusion
from memoryhub.retrieval.search import MemoryFilter, search_memories
from tests.api.conftest import make_agent
from tests.ui.conftest import row_ids

pytestmark = pytest.mark.django_db

NOTES = [
    "The API uses cursor pagination for every list endpoint",
    "Deploys go out with fly deploy from the main branch after CI is green",
    "Background jobs run on Celery with Redis as the broker",
    "getUserId in src/users/load_user.py returns None when the tenant is missing",
    "Money is stored as integer cents, never floats",
    "The staging database resets every night at 02:00",
]


@pytest.fixture
def notes():
    return import_memories(items=[{"content": text, "project": "alpha"} for text in NOTES])


@pytest.mark.parametrize("query", ["purple elephant trampoline", "banana violin glacier pillow", "meringue kayak"])
def test_a_made_up_query_returns_nothing(notes, query):
    assert search_memories(query=query, within=MemoryFilter(visible_from="alpha")) == []
    # Without the floor the same query still has nearest neighbours by meaning: ranks alone never say "nothing".
    assert search_memories(query=query, within=MemoryFilter(visible_from="alpha"), min_score=0.0)


@pytest.mark.parametrize(
    ("query", "expected", "channel"),
    [
        ("how do we paginate?", NOTES[0], "meaning"),
        ("celery redis broker", NOTES[2], "words"),
        ("getUserId", NOTES[3], "identifier"),
    ],
)
def test_a_real_query_finds_its_answer_and_explains_which_channels_matched(notes, query, expected, channel):
    hits = search_memories(query=query, within=MemoryFilter(visible_from="alpha"))
    assert hits and hits[0].memory.content == expected
    explain = hits[0].explain
    assert explain["channels"][channel] > 0
    assert all(0 < value <= 1 for value in explain["channels"].values())
    assert explain["match"] >= 0.25
    assert set(explain["channels"]) <= {"words", "identifier", "meaning"}


def test_every_result_clears_the_floor_and_min_score_overrides_it(notes, settings):
    loose = search_memories(
        query="where is the money and the database", within=MemoryFilter(visible_from="alpha"), min_score=0.0, k=6
    )
    strict = search_memories(
        query="where is the money and the database", within=MemoryFilter(visible_from="alpha"), min_score=0.6, k=6
    )
    assert len(loose) == 6
    assert all(h.explain["match"] >= 0.6 for h in strict)
    assert len(strict) < len(loose)
    settings.MEMORYHUB_SEARCH_MIN_SCORE = 0.6
    found = search_memories(query="where is the money and the database", within=MemoryFilter(visible_from="alpha"), k=6)
    assert [h.memory.pk for h in found] == [h.memory.pk for h in strict]


def test_min_score_outside_zero_to_one_is_refused(notes):
    with pytest.raises(ValueError):
        search_memories(query="pagination", within=MemoryFilter(visible_from="alpha"), min_score=1.5)


def test_match_strength_needs_more_than_one_word_of_several():
    assert fusion.match_strength(words=1 / 3, identifier=0.0, closeness=0.0) < 0.25
    assert fusion.match_strength(words=1.0, identifier=0.0, closeness=0.0) == 1.0
    assert fusion.match_strength(words=0.5, identifier=0.0, closeness=0.5) > 0.5  # two witnesses
    assert fusion.meaning(0.2) == 0.0 and fusion.meaning(0.9) == 1.0


def test_the_api_answers_an_empty_list_and_takes_min_score(notes):
    agent = make_agent("claude", ["alpha"])
    nothing = agent.post("search", {"query": "purple elephant trampoline quota", "project": "alpha"})
    assert nothing.status_code == 200
    assert nothing.json() == {"results": []}
    everything = agent.post("search", {"query": "purple elephant trampoline quota", "project": "alpha",
                                       "min_score": 0, "k": 3})  # fmt: skip
    assert len(everything.json()["results"]) == 3
    found = agent.post("search", {"query": "how do we paginate?", "project": "alpha"}).json()["results"]
    assert found[0]["content"] == NOTES[0]
    assert "meaning" in found[0]["explain"]["channels"]
    assert agent.post("search", {"query": "x", "project": "alpha", "min_score": 2}).status_code == 400


def test_the_dashboard_says_nothing_matches(notes):
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("curator", password="a-long-test-password"))
    html = client.get("/?q=purple elephant trampoline", HTTP_HX_REQUEST="true").content.decode()
    assert "Nothing matches “purple elephant trampoline”" in html
    assert row_ids(html) == []
