"""A conversation stored turn by turn asks in one memory and answers in the next: with conversation ranking on
(MEMORYHUB_CONVERSATION_RANKING), the reply to a question that matches the query is lifted just under it, though
it shares no word with the query. Off (the default), it is not."""

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


def turns(session, project: str = "chat", key: str = "session") -> list[int]:
    return import_memories(
        items=[
            {"content": "Caroline: What a lovely family picture! How long have you been married?", "project": project,
             "metadata": {key: session}},
            {"content": "Melanie: 5 years already! Time flies.", "project": project, "metadata": {key: session}},
            {"content": "Caroline: I went hiking with friends on Sunday.", "project": project,
             "metadata": {key: session}},
        ]
    )  # fmt: skip


def test_the_reply_follows_its_question_in_the_results():
    question, reply, _ = turns(3)
    hits = search_memories(query=QUERY, within=MemoryFilter(visible_from="chat"))
    ids = [h.memory.pk for h in hits]
    assert ids[:2] == [question, reply]
    assert hits[1].explain["answers"] == question
    assert hits[1].score == pytest.approx(0.8 * hits[0].score, abs=1e-5)


def test_session_id_counts_as_the_session_too():
    question, reply, _ = turns("run-7", key="session_id")
    assert [h.memory.pk for h in search_memories(query=QUERY, within=MemoryFilter(visible_from="chat"))][:2] == [
        question,
        reply,
    ]


def test_a_share_of_0_lifts_no_reply(tuned):
    tuned(answer_share=0.0)
    question, reply, _ = turns(3)
    hits = search_memories(query=QUERY, within=MemoryFilter(visible_from="chat"))
    assert hits[0].memory.pk == question
    assert reply not in [h.memory.pk for h in hits[:1]] and all("answers" not in h.explain for h in hits)


def test_with_conversation_ranking_off_the_reply_is_not_lifted_and_no_session_is_read(settings, monkeypatch):
    settings.MEMORYHUB_CONVERSATION_RANKING = False
    question, reply, _ = turns(3)
    monkeypatch.setattr(sql, "next_in_session", None)  # not asked
    hits = search_memories(query=QUERY, within=MemoryFilter(visible_from="chat"))
    assert hits[0].memory.pk == question
    assert reply not in [h.memory.pk for h in hits[:1]] and all("answers" not in h.explain for h in hits)


def test_only_the_next_memory_of_the_same_session_project_and_filter_is_a_reply():
    first = import_memories(items=[
        {"content": "Ana: Where did you park?", "project": "a", "metadata": {"session": 1}},
        {"content": "Ben: By the lake.", "project": "b", "metadata": {"session": 1}},  # another project
        {"content": "Ana: Did you sleep well?", "project": "a", "metadata": {"session": 1}},
        {"content": "Ben: Not at all.", "project": "a", "metadata": {"session": 2}},  # another session
        {"content": "Ana: Any plans?", "project": "a", "metadata": {}},  # no session
        {"content": "Ben: None yet.", "project": "a", "metadata": {}},
        {"content": "Ana: Tea or coffee?", "project": "a", "metadata": {"session": 3}},
        {"content": "Ben: Tea, thanks.", "project": "a", "metadata": {"session": 3}},
    ])  # fmt: skip
    park, lake, sleep, _, plans, _, tea, answer = first
    assert sql.next_in_session([park, sleep, plans, tea]) == {park: sleep, tea: answer}
    assert sql.next_in_session([tea], "m.id != %s", [answer]) == {}
    assert lake not in sql.next_in_session([park]).values()


def test_no_question_no_lift_and_nothing_clears_the_floor_by_a_reply_alone():
    turns(3)
    assert search_memories(query="purple elephant trampoline quota", within=MemoryFilter(visible_from="chat")) == []


class _Row:
    def __init__(self, pk: int, effective: float = 0.5, confirmed: bool = False):
        self.pk, self.effective, self.confirmed = pk, effective, confirmed


def test_lift_keeps_the_better_of_own_and_lifted_score_and_only_looks_at_the_top():
    parts = fusion.Parts(None, False, None, 0.0, 0.0, 0.0, _Row(0), 1.0, 0.9, {}, None)
    scored = [(1.0, 1, parts), (0.9, 2, parts), (0.5, 3, parts), (0.1, 4, parts)]
    answers = {1: _Row(4), 2: _Row(7), 3: _Row(9)}
    lifted = conversations.lift_answers(scored, answers, share=0.8, top=2)
    assert [(score, mid) for score, mid, _ in lifted] == [(1.0, 1), (0.9, 2), (0.8, 4), (0.72, 7), (0.5, 3)]
    assert lifted[2][2].answers == 1 and lifted[3][2].answers == 2  # who lifted them, for explain["answers"]
    assert lifted[3][2].match == 0.9  # a reply no list found has its question's match strength
    assert 9 not in [mid for _, mid, _ in lifted]  # its question (3) was not among the first two
    assert conversations.lift_answers(scored, answers, share=0.0, top=2) == scored
    assert conversations.lift_answers(scored, {1: _Row(2)}, share=0.8, top=2) == scored  # 2 scores more on its own
