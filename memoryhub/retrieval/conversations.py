"""Ranking for conversations stored turn by turn, behind one switch: MEMORYHUB_CONVERSATION_RANKING (on by default).

A chat log imported one turn per memory (LoCoMo's files are such logs) leaves two things implicit that a
question about it needs:

- **who and when**: "what did Melanie paint on 13 October, 2023" asks for a date the turn never says; its
  metadata's `speaker` and `date` (IMPLICIT_METADATA) are counted as its words in word coverage
  (`implicit_context`, handed to fusion as its `context`);
- **the reply**: "How long have you been married?" matches "how long has Mel been married" far better than the
  answer "5 years already!" does. The next memory of the same project and metadata `session` (or
  `session_id`) after a question among the first results is lifted just under it (`replies`, `lift_replies`).

Both read only metadata a writer chose to send, so memories without it rank as they would with the switch off;
on conversations the tuning never saw, turns stored with session and date rank well above the same turns stored
plain (docs/search.md has the figures; `python -m bench locomo --conversation-ranking on|off` measures both ways). Off,
nothing here reads the store: the two lookups answer empty and fusion ranks as if no memory were a turn.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings

from memoryhub.retrieval import fusion
from memoryhub.storage import sql

IMPLICIT_METADATA = ("speaker", "date")

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


def replies(rows: dict[int, Any], where: str, params: list, load: Callable[[list[int]], dict[int, Any]]) -> Replies:
    """The reply to each candidate that asks a question, by the question's id: the next memory of its conversation
    (same project and metadata `session`, written right after it) that the search may see (`where`). A reply
    neither list found gets its row from `load`, for `lift_answers` to place it under its question. Nothing when
    conversation ranking is off."""
    if not enabled():
        return {}
    questions = [mid for mid, row in rows.items() if "?" in row.content]
    following = sql.next_in_session(questions, where, params) if questions else {}
    more = load([mid for mid in following.values() if mid not in rows])
    return {question: rows.get(mid) or more[mid] for question, mid in following.items() if mid in rows or mid in more}


def lift_replies(answers: Replies | Callable[[list[int]], Replies] | None) -> fusion.Lift:
    """fusion.fuse's `lift` step: `answers` as found (`replies`), or a function finding them for a list of ids,
    asked only about the first `answer_top` results that ask a question."""

    def lift(scored: list[fusion.Scored], p: fusion.Params) -> list[fusion.Scored]:
        found = answers
        if callable(answers):
            asking = [mid for _, mid, parts in scored[: p.answer_top] if "?" in parts.row.content]
            found = answers(asking) if asking and p.answer_share else None
        return lift_answers(scored, found, p.answer_share, p.answer_top)

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
