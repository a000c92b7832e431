"""With conversation ranking on (MEMORYHUB_CONVERSATION_RANKING), word coverage counts what a memory's metadata
says its text leaves implicit: who said it, and when. Off (the default), metadata is not read."""

from __future__ import annotations

import pytest

from memoryhub.memories.store import import_memories
from memoryhub.retrieval.conversations import implicit_context, implicit_in
from memoryhub.retrieval.search import MemoryFilter, search_memories
from memoryhub.storage import sql

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def conversation_ranking(settings):
    settings.MEMORYHUB_CONVERSATION_RANKING = True


def _the_same_turn_on_two_days(other: dict[str, str], asked: dict[str, str]) -> list[int]:
    """One turn's words imported twice: on another day (8 May) and on the asked day (13 October), with more metadata."""
    turn = "Melanie: I painted a lake at sunrise, it calmed me down"
    days = [("8 May, 2023", other), ("13 October, 2023", asked)]
    return import_memories(
        items=[{"content": turn, "project": "chat", "metadata": {"date": day, **more}} for day, more in days]
    )


def _ask_for_the_asked_day():
    return search_memories(
        query="What did Melanie paint on 13 October, 2023?", within=MemoryFilter(visible_from="chat")
    )


def test_the_turn_from_the_asked_date_ranks_above_the_same_words_on_another_day():
    other_day, asked_day = _the_same_turn_on_two_days({"dia_id": "D1:3"}, {"dia_id": "D9:4"})
    hits = _ask_for_the_asked_day()
    assert [h.memory.pk for h in hits][:2] == [asked_day, other_day]
    assert hits[0].explain["word_coverage"] > hits[1].explain["word_coverage"]


def test_only_the_implicit_keys_are_read_and_memories_without_them_have_none():
    plain, tagged = import_memories(
        items=[
            {"content": "The API uses cursor pagination", "project": "p", "metadata": {"ticket": "API-12"}},
            {"content": "We paired on the flaky test", "project": "p",
             "metadata": {"speaker": "Dana", "date": "3 June 2024", "ticket": "QA-7"}},
        ]
    )  # fmt: skip
    assert implicit_context([plain, tagged]) == {tagged: "Dana 3 June 2024"}


def test_with_conversation_ranking_off_the_date_counts_for_nothing(settings):
    settings.MEMORYHUB_CONVERSATION_RANKING = False
    other_day, asked_day = _the_same_turn_on_two_days({"speaker": "Melanie"}, {"speaker": "Melanie"})
    hits = _ask_for_the_asked_day()
    assert {h.memory.pk for h in hits[:2]} == {other_day, asked_day}
    assert hits[0].explain["word_coverage"] == hits[1].explain["word_coverage"]
    assert implicit_context([other_day, asked_day]) == {}


def test_search_reads_the_metadata_with_its_candidates_rows_as_the_context_lookup_reads_it():
    ids = import_memories(
        items=[
            {
                "content": "Dana: the deploy is on Friday",
                "project": "p",
                "metadata": {"speaker": "Dana", "date": "3 June"},
            },
            {"content": "The API uses cursor pagination", "project": "p", "metadata": {"ticket": "API-12"}},
            {"content": "Staging is rebuilt on Sundays", "project": "p"},
        ]
    )
    read_with_rows = {row.id: row.metadata for row in sql.fusion_rows(ids)}
    assert read_with_rows == {mid: sql.memory_metadata(ids).get(mid) for mid in ids}
    assert read_with_rows[ids[2]] is None
    assert implicit_in(read_with_rows) == implicit_context(ids) == {ids[0]: "Dana 3 June"}
