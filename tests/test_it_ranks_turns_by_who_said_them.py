"""Conversations stored turn by turn with no session metadata ("Caroline: ..." one memory after another): the reply
to a matching question is still lifted under it, recognised by the turns' text; and a query naming one speaker of
the turns found ranks that speaker's turns above the other's (conversation ranking on, its default)."""

from __future__ import annotations

import pytest

from memoryhub.memories.store import import_memories
from memoryhub.retrieval import conversations, fusion
from memoryhub.retrieval.search import MemoryFilter, search_memories
from memoryhub.storage import sql

pytestmark = pytest.mark.django_db

QUERY = "How long have Mel and her husband been married?"


@pytest.fixture(autouse=True)
def conversation_ranking(settings):
    settings.MEMORYHUB_CONVERSATION_RANKING = True


def plain_turns(*texts: str, project: str = "chat") -> list[int]:
    return import_memories(items=[{"content": text, "project": project} for text in texts])


def ids_for(query: str, project: str = "chat") -> list[int]:
    return [h.memory.pk for h in search_memories(query=query, within=MemoryFilter(visible_from=project))]


def test_the_reply_to_a_question_follows_it_without_a_session():
    question, reply, _ = plain_turns(
        "Caroline: What a lovely family picture! How long have you been married?",
        "Melanie: 5 years already! Time flies.",
        "Caroline: I went hiking with friends on Sunday.",
    )
    hits = search_memories(query=QUERY, within=MemoryFilter(visible_from="chat"))
    assert [h.memory.pk for h in hits][:2] == [question, reply]
    assert hits[1].explain["answers"] == question


def test_the_next_memory_is_no_reply_unless_both_are_turns_of_different_speakers():
    plain_turns(
        "Caroline: How long have you been married?",
        "Caroline: Sorry, I mean you and your husband.",  # the same speaker goes on
        "How long have we used Redis?",
        "Redis was added in 2021.",  # not turns at all
    )
    for query in (QUERY, "How long have we used Redis?"):
        hits = search_memories(query=query, within=MemoryFilter(visible_from="chat"))
        assert hits and all("answers" not in h.explain for h in hits)


def test_only_the_next_memory_of_the_project_without_a_session_is_asked_for():
    first = import_memories(items=[
        {"content": "Ana: Where did you park?", "project": "a"},
        {"content": "Ben: By the lake.", "project": "b"},  # another project
        {"content": "Ben: By the car.", "project": "a"},
        {"content": "Ana: Did you sleep well?", "project": "a", "metadata": {"session": 1}},  # in a session
        {"content": "Ben: Not at all.", "project": "a"},
        {"content": "Ana: Any plans?", "project": "a"},
        {"content": "Ben: None yet.", "project": "a", "metadata": {"session": 2}},  # the reply is in a session
        {"content": "Ana: Tea or coffee?", "project": "a"},
        {"content": "Ben: Tea, thanks.", "project": "a"},
    ])  # fmt: skip
    park, _, car, sleep, _, plans, _, tea, answer = first
    assert sql.next_in_project([park, sleep, plans, tea]) == {park: car, tea: answer}
    assert sql.next_in_project([tea], "m.id != %s", [answer]) == {}


def test_a_query_naming_one_speaker_puts_that_speakers_turns_first():
    melanie, caroline = plain_turns(
        "Melanie: Caroline, your pottery bowls are amazing, what got you into pottery?",
        "Caroline: I took a pottery class last spring.",
    )
    assert ids_for("What pottery class did Caroline take?")[:2] == [caroline, melanie]
    assert ids_for("what pottery class did caroline take")[:2] == [caroline, melanie]  # any case


def test_a_query_naming_both_speakers_or_neither_is_ranked_as_before(tuned):
    plain_turns(
        "Melanie: Caroline, your pottery bowls are amazing, what got you into pottery?",
        "Caroline: I took a pottery class last spring.",
    )
    queries = ("What pottery did Caroline and Melanie talk about?", "What pottery class was taken?")
    before = [search_memories(query=q, within=MemoryFilter(visible_from="chat")) for q in queries]
    tuned(other_speaker_share=1.0)
    off = [search_memories(query=q, within=MemoryFilter(visible_from="chat")) for q in queries]
    assert [[(h.memory.pk, h.score) for h in hits] for hits in before] == [
        [(h.memory.pk, h.score) for h in hits] for hits in off
    ]
    assert all(before)


def test_with_conversation_ranking_off_no_speaker_is_favoured(settings, tuned):
    # No question among the turns, so only the speaker rule can move them.
    plain_turns("Melanie: Caroline showed me the bowls from her pottery class.", "Caroline: I took a pottery class.")
    query = "What pottery class did Caroline take?"

    def ranked() -> list[tuple[int, float]]:
        return [(h.memory.pk, h.score) for h in search_memories(query=query, within=MemoryFilter(visible_from="chat"))]

    favoured = ranked()
    settings.MEMORYHUB_CONVERSATION_RANKING = False
    off = ranked()
    settings.MEMORYHUB_CONVERSATION_RANKING = True
    tuned(other_speaker_share=1.0)
    assert off == ranked() != favoured


def test_made_up_queries_still_find_nothing_among_turns():
    plain_turns(
        "Caroline: What a lovely family picture! How long have you been married?",
        "Melanie: 5 years already! Time flies.",
    )
    assert ids_for("purple elephant trampoline quota") == []


@pytest.mark.parametrize(
    ("text", "who"),
    [
        ("Caroline: I went hiking.", "Caroline"),
        ("Mary Ann: Sure!", "Mary Ann"),
        ("Zoë: Ja, gerne.", "Zoë"),
        ("TODO: rotate the keys", None),
        ("note: the cache is warm", None),
        ("Deploys go through GitHub Actions.", None),
        ("See https://example.com: it explains", None),
    ],
)
def test_a_speaker_is_a_capitalised_name_before_a_colon(text, who):
    assert conversations.speaker(text) == who


class _Row:
    def __init__(self, content: str):
        self.content, self.pk, self.effective, self.confirmed = content, 0, 0.5, False


def _scored(*items: tuple[float, str], exact: int | None = None) -> list[fusion.Scored]:
    return [
        (score, i, fusion.Parts(None, i == exact, None, 0.0, 0.0, 0.0, _Row(text), 1.0, 0.5, {}, None))
        for i, (score, text) in enumerate(items)
    ]


def test_the_other_speakers_turns_score_the_share_and_the_rest_keep_theirs():
    scored = _scored((0.9, "Melanie: Did Jon dance?"), (0.8, "Jon: I danced all night."), (0.7, "Dance notes"))
    out = conversations.named_speaker_first(scored, "Why did Jon dance?", 0.5)
    assert [(score, mid) for score, mid, _ in out] == [(0.8, 1), (0.7, 2), (0.45, 0)]
    assert conversations.named_speaker_first(scored, "Why did Jon dance?", 1.0) == scored


def test_a_verbatim_match_keeps_its_place_whoever_said_it():
    scored = _scored((1.9, "Melanie: did Jon dance"), (0.8, "Jon: I danced all night."), exact=0)
    out = conversations.named_speaker_first(scored, "did Jon dance", 0.5)
    assert [mid for _, mid, _ in out] == [0, 1]
