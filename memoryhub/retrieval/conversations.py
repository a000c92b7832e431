"""Ranking for conversations stored turn by turn, behind one switch: MEMORYHUB_CONVERSATION_RANKING (on by default).

A chat log imported one turn per memory (LoCoMo's files are such logs) leaves two things implicit that a
question about it needs:

- **who and when**: "what did Melanie paint on 13 October, 2023" asks for a date the turn never says; its
  metadata's `speaker` and `date` (IMPLICIT_METADATA) are counted as its words in word coverage
  (`implicit_context`, handed to fusion as its `context`);
- **the reply**: "How long have you been married?" matches "how long has Mel been married" far better than the
  answer "5 years already!" does. The next memory of the same project and metadata `session` (or
  `session_id`) after a question among the first results is lifted just under it (`replies`, `lift_replies`).
  Turns stored with no session at all are recognised by their text: a question written as a speaker's turn
  ("Caroline: How long have you been married?") and, right after it in its project, another speaker's turn;
- **who said it**: a question about one person is answered by what that person said ("What did Caroline
  research?" by Caroline's turns, not by Melanie's questions about it). When the query names exactly one of
  the speakers of the turns found, the others' turns weigh less (`named_speaker_first`).

These read only metadata a writer chose to send and the "Name: " a turn's text begins with, so other memories
rank as they would with the switch off;
on conversations the tuning never saw, turns stored with session and date rank well above the same turns stored
plain (docs/search.md has the figures; `python -m bench locomo --conversation-ranking on|off` measures both ways). Off,
nothing here reads the store: the two lookups answer empty and fusion ranks as if no memory were a turn.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from django.conf import settings

from memoryhub.retrieval import fusion, query_text
from memoryhub.storage import sql

IMPLICIT_METADATA = ("speaker", "date")
# A turn of a transcript as text: "Caroline: I went to ...", one to three words before the colon. `speaker` also
# requires the first to be capitalised and not all capitals ("Melanie", not "TODO" or "note").
_TURN = re.compile(r"\s*([^\W\d_][\w'.-]*(?: [^\W\d_][\w'.-]*){0,2}): ")

Replies = dict[int, Any]  # the question's id -> the reply's fusion row (with `pk`)


def enabled() -> bool:
    return settings.MEMORYHUB_CONVERSATION_RANKING


def implicit_context(ids: list[int]) -> dict[int, str]:
    """What a memory's metadata says that its text may leave implicit (who said it, when), by id, for word
    coverage. Only the keys in IMPLICIT_METADATA; nothing when conversation ranking is off."""
    if not ids or not enabled():
        return {}
    return implicit_in(sql.memory_metadata(ids))


def implicit_in(metadata: dict[int, object]) -> dict[int, str]:
    """`implicit_context` of metadata already read (search reads it with the candidates' rows), by id; nothing when
    conversation ranking is off."""
    if not enabled():
        return {}
    out = {}
    for pk, values in metadata.items():
        if isinstance(values, dict):
            said = [str(values[key]) for key in IMPLICIT_METADATA if values.get(key)]
            if said:
                out[pk] = " ".join(said)
    return out


def speaker(content: str) -> str | None:
    """Who says a memory, when its text is written as a speaker's turn ("Caroline: ..."): the name, else None."""
    match = _TURN.match(content)
    if not match:
        return None
    name = match.group(1)
    return name if name[0].isupper() and not name.split()[0].isupper() else None


def _is_reply(question: str, reply: str) -> bool:
    """Two memories written one after the other as turns of different speakers: the second answers the first."""
    asker, answerer = speaker(question), speaker(reply)
    return asker is not None and answerer is not None and asker != answerer


def replies(rows: dict[int, Any], where: str, params: list, load: Callable[[list[int]], dict[int, Any]]) -> Replies:
    """The reply to each candidate that asks a question, by the question's id: the next memory of its conversation
    that the search may see (`where`): of the same project and metadata `session`, written right after it, or,
    for turns stored with no session, the next memory of the project when both are turns of different speakers
    (`_is_reply`). A reply neither list found gets its row from `load`, for `lift_answers` to place it under its
    question. Nothing when conversation ranking is off."""
    if not enabled():
        return {}
    questions = [mid for mid, row in rows.items() if "?" in row.content]
    following = sql.next_in_session(questions, where, params) if questions else {}
    turns = [mid for mid in questions if mid not in following and speaker(rows[mid].content)]
    unsessioned = sql.next_in_project(turns, where, params) if turns else {}
    more = load([mid for mid in {**following, **unsessioned}.values() if mid not in rows])
    found = {question: rows.get(mid) or more.get(mid) for question, mid in {**following, **unsessioned}.items()}
    return {
        question: reply
        for question, reply in found.items()
        if reply is not None and (question in following or _is_reply(rows[question].content, reply.content))
    }


def named_speaker_first(scored: list[fusion.Scored], query: str, share: float) -> list[fusion.Scored]:
    """When the query names exactly one of the speakers of the turns among `scored` (by a whole word, any case), the
    other speakers' turns score `share` of their score: what a person said answers a question about them far
    more often than what was said to them. Memories that are not turns, and verbatim matches, keep their score;
    a query naming none or several of the speakers changes nothing."""
    said_by = {mid: speaker(parts.row.content) for _, mid, parts in scored}
    speakers = set(said_by.values()) - {None}
    if share >= 1.0 or len(speakers) < 2:
        return scored
    words = set(query_text.words(query))
    named = {name for name in speakers if all(part in words for part in query_text.words(name))}
    if len(named) != 1:
        return scored
    out = []
    for score, mid, parts in scored:
        if said_by[mid] is not None and said_by[mid] not in named and not parts.exact:
            score = round(score * share, 6)
        out.append((score, mid, parts))
    out.sort(key=lambda item: (-item[0], item[1]))
    return out


def lift_replies(answers: Replies | Callable[[list[int]], Replies] | None, query: str = "") -> fusion.Lift:
    """fusion.fuse's `lift` step: `answers` as found (`replies`), or a function finding them for a list of ids,
    asked only about the first `answer_top` results that ask a question; then, when `query` names one speaker of
    the turns, the others' turns lowered (`named_speaker_first`)."""

    def lift(scored: list[fusion.Scored], p: fusion.Params) -> list[fusion.Scored]:
        found = answers
        if callable(answers):
            asking = [mid for _, mid, parts in scored[: p.answer_top] if "?" in parts.row.content]
            found = answers(asking) if asking and p.answer_share else None
        lifted = lift_answers(scored, found, p.answer_share, p.answer_top)
        return named_speaker_first(lifted, query, p.other_speaker_share) if query and enabled() else lifted

    return lift


def lift_answers(scored: list[fusion.Scored], answers: Replies | None, share: float, top: int) -> list[fusion.Scored]:
    """The reply to a question among the first `top` results scores at least `share` x the question's score.

    The reply joins the results just below its question (share < 1), even when neither list found it, with the
    question's match strength: it is what made the question match worth showing."""
    if not share or not answers:
        return scored
    lifted: dict[int, tuple] = {}
    for score, mid, parts in scored[:top]:
        reply = answers.get(mid)
        if reply is not None and share * score > lifted.get(reply.pk, (0.0,))[0]:
            lifted[reply.pk] = (round(share * score, 6), mid, parts, reply)
    if not lifted:
        return scored
    out = []
    for score, mid, parts in scored:
        better = lifted.pop(mid, None)
        if better and better[0] > score:
            parts = parts._replace(answers=better[1])
            score = better[0]
        out.append((score, mid, parts))
    for mid, (score, question, question_parts, reply) in lifted.items():
        factor = fusion.importance_factor(reply.confirmed, reply.effective)
        parts = fusion.Parts(None, False, None, 0.0, 0.0, 0.0, reply, factor, question_parts.match, {}, question)
        out.append((score, mid, parts))
    out.sort(key=lambda item: (-item[0], item[1]))
    return out
