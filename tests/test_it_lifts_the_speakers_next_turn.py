"""A conversation comes back to its topic a turn later: the speaker's next turn, after the other's reply, is lifted
under a matching turn among the first results (conversation ranking on), with or without session metadata, though
it shares no word with the query. Only two turns on, only the same speaker, only past another speaker's turn."""

from __future__ import annotations

import pytest

from memoryhub.memories.store import import_memories
from memoryhub.retrieval import conversations, fusion
from memoryhub.retrieval.search import MemoryFilter, search_memories

pytestmark = pytest.mark.django_db

QUERY = "When did Melanie paint a lake sunrise?"
SAID = "Melanie: I painted a lake sunrise last year, my first big canvas."
REPLY = "Caroline: Wow, that's lovely!"
NEXT = "Melanie: Thanks! It calms me down after a long week at work."


@pytest.fixture(autouse=True)
def conversation_ranking(settings):
    settings.MEMORYHUB_CONVERSATION_RANKING = True


def store(*texts: str, metadata: dict | None = None, project: str = "chat") -> list[int]:
    return import_memories(items=[{"content": t, "project": project, "metadata": dict(metadata or {})} for t in texts])


def search(query: str = QUERY, project: str = "chat"):
    return search_memories(query=query, within=MemoryFilter(visible_from=project))


@pytest.mark.parametrize("metadata", [{"session": 4}, {}], ids=["session", "plain"])
def test_the_speakers_next_turn_comes_under_the_turn_that_matched(metadata):
    said, _, after = store(SAID, REPLY, NEXT, metadata=metadata)
    hits = search()
    assert hits[0].memory.pk == said
    lifted = next(h for h in hits if h.memory.pk == after)
    assert lifted.explain["continues"] == said
    assert lifted.score == pytest.approx(0.5 * hits[0].score, abs=1e-5)


def test_with_a_share_of_0_the_next_turn_is_not_returned(tuned):
    tuned(continuation_share=0.0)
    _, _, after = store(SAID, REPLY, NEXT, metadata={"session": 4})
    hits = search()
    assert after not in [h.memory.pk for h in hits] and all("continues" not in h.explain for h in hits)


def test_with_conversation_ranking_off_nothing_is_lifted(settings):
    settings.MEMORYHUB_CONVERSATION_RANKING = False
    _, _, after = store(SAID, REPLY, NEXT, metadata={"session": 4})
    hits = search()
    assert after not in [h.memory.pk for h in hits] and all("continues" not in h.explain for h in hits)


@pytest.mark.parametrize(
    "texts",
    [
        (SAID, "Melanie: And then I framed it.", NEXT),  # no other speaker in between
        (SAID, REPLY, "Caroline: It calms me down after a long week at work."),  # another speaker two on
        (SAID, "We framed it.", NEXT),  # the one between is no turn
    ],
    ids=["same-speaker-between", "other-speaker-after", "no-turn-between"],
)
def test_only_the_same_speakers_turn_past_another_speakers_is_lifted(texts):
    store(*texts, metadata={"session": 4})
    assert all("continues" not in h.explain for h in search())


def test_the_next_turn_stays_within_its_session():
    said, _ = store(SAID, REPLY, metadata={"session": 4})
    store(NEXT, metadata={"session": 5})
    hits = search()
    assert hits[0].memory.pk == said and all("continues" not in h.explain for h in hits)


def test_a_made_up_query_still_finds_nothing():
    store(SAID, REPLY, NEXT, metadata={"session": 4})
    assert search("purple elephant trampoline quota") == []


class _Row:
    def __init__(self, pk: int, effective: float = 0.5, confirmed: bool = False):
        self.pk, self.effective, self.confirmed = pk, effective, confirmed


def test_only_the_first_results_lift_their_next_turn_and_a_better_own_score_stays():
    parts = fusion.Parts(None, False, None, 0.0, 0.0, 0.0, _Row(0), 1.0, 0.7, {}, None)
    scored = [(1.0, 1, parts), (0.8, 2, parts), (0.45, 3, parts), (0.3, 4, parts)]
    lifted = conversations.lift_continuations(scored, {1: _Row(4), 2: _Row(3), 3: _Row(9)}, share=0.5, top=2)
    assert [(score, mid) for score, mid, _ in lifted] == [(1.0, 1), (0.8, 2), (0.5, 4), (0.45, 3)]
    assert lifted[2][2].continues == 1 and lifted[3][2].continues is None  # 3 scores more on its own than 0.4
    assert 9 not in [mid for _, mid, _ in lifted]  # its lead (3) is not among the first two


def test_notes_labelled_by_their_kind_are_no_conversation():
    decision, _, other = store(
        "Decision: the billing service stores invoices in PostgreSQL 16.",
        "Gotcha: the CI cache breaks when the lockfile changes.",
        "Decision: API versions are put in the URL path.",
        project="alpha",
    )
    hits = search("where are invoices stored", project="alpha")
    assert [h.memory.pk for h in hits] == [decision]
    assert conversations.speaker("Decision: API versions are put in the URL path.") is None
    assert conversations.speaker("Melanie: I painted a lake sunrise.") == "Melanie"
