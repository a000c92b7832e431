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
- **what the speaker said next**: a conversation comes back to a topic one turn later ("I painted a lake
  sunrise last year" / "That's lovely!" / "Thanks, painting is my way to relax"): the speaker's next turn, after
  the other's reply, often holds the answer the matching turn only leads to. The memory two on from one of
  the first results, when the one between is another speaker's turn and it is the same speaker's, is lifted
  under it (`continuations`, `lift_continuations`);
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

from memoryhub.models import Category
from memoryhub.retrieval import fusion, query_text
from memoryhub.storage import sql

IMPLICIT_METADATA = ("speaker", "date")
# A turn of a transcript as text: "Caroline: I went to ...", one to three words before the colon. `speaker` also
# requires the first to be capitalised and not all capitals ("Melanie", not "TODO" or "note").
_TURN = re.compile(r"\s*([^\W\d_][\w'.-]*(?: [^\W\d_][\w'.-]*){0,2}): ")

# What an agent writes before a note to say what kind it is ("Decision: invoices live in PostgreSQL", "Gotcha: ...",
# "Note: ..."): a label, not a speaker. Read as speakers, a store of such notes looked like a conversation, and the
# note two on from a matching "Decision:" was lifted under it as that speaker's next turn.
# A memory's categories are such labels too.
NOTE_LABELS = frozenset(Category.values) | frozenset(
    {"facts", "decisions", "preferences", "gotchas", "note", "notes", "nb", "todo", "tip", "tips", "warning",
     "caveat", "lesson", "lessons", "rule", "rules", "context", "summary", "update", "status", "fix", "bug", "issue",
     "error", "problem", "solution", "workaround", "example", "reminder", "important", "step", "plan", "goal",
     "idea", "reason", "why", "result", "finding", "observation", "insight", "pattern", "convention", "policy",
     "setup", "config", "configuration", "usage", "command", "deprecated", "breaking", "security", "performance",
     "migration", "learned", "takeaway", "tldr", "done", "fixed", "changed", "added", "removed"}
)  # fmt: skip

Replies = dict[int, Any]  # the question's id -> the reply's fusion row (with `pk`)
Load = Callable[[list[int]], dict[int, Any]]  # ids -> their fusion rows


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
    """Who says a memory, when its text is written as a speaker's turn ("Caroline: ..."): the name, else None. A
    note's label ("Decision: ...", `NOTE_LABELS`) says no one."""
    match = _TURN.match(content)
    if not match:
        return None
    name = match.group(1)
    first = name.split()[0]
    return name if name[0].isupper() and not first.isupper() and first.lower() not in NOTE_LABELS else None


def _is_reply(question: str, reply: str) -> bool:
    """Two memories written one after the other as turns of different speakers: the second answers the first."""
    asker, answerer = speaker(question), speaker(reply)
    return asker is not None and answerer is not None and asker != answerer


def _following(ids: list[int], where: str, params: list) -> dict[int, int]:
    """The next memory of each one's conversation that the search may see: of the same project and session, or,
    for a memory of no session, the next one of its project that has none either."""
    following = sql.next_in_session(ids, where, params) if ids else {}
    rest = [mid for mid in ids if mid not in following]
    return following | (sql.next_in_project(rest, where, params) if rest else {})


def continuations(rows: dict[int, Any], where: str, params: list, load: Load) -> Replies:
    """The speaker's next turn after each candidate that is a turn, by the candidate's id: the memory two on in its
    conversation (`_following` twice), when the one between is another speaker's turn and it is the candidate's
    speaker's. Rows neither list found come from `load`. Nothing when conversation ranking is off."""
    if not enabled():
        return {}
    turns = {mid: who for mid, row in rows.items() if (who := speaker(row.content))}
    if not turns:
        return {}
    first = _following(list(turns), where, params)
    second = _following(sorted(set(first.values())), where, params)
    known = dict(rows)
    known |= load([mid for mid in {*first.values(), *second.values()} if mid not in known])
    out = {}
    for mid, who in turns.items():
        between, after = first.get(mid), second.get(first.get(mid, -1))
        if between not in known or after not in known:
            continue
        if speaker(known[between].content) not in (None, who) and speaker(known[after].content) == who:
            out[mid] = known[after]
    return out


def replies(rows: dict[int, Any], where: str, params: list, load: Load) -> Replies:
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


Find = Callable[[dict[int, Any]], Replies]  # the rows of some results -> what each of them leads to


def lift_replies(answers: Replies | Find | None, query: str = "",
                 following: Replies | Find | None = None) -> fusion.Lift:  # fmt: skip
    """fusion.fuse's `lift` step: `answers` as found (`replies`), or a function finding them for some results'
    rows, asked only about the first `answer_top` results that ask a question; then, when `query` names one
    speaker of the turns, the others' turns lowered (`named_speaker_first`); then the speaker's next turn after
    each of the first `continuation_top` results (`following`, as found or a function finding them,
    `continuations`) lifted under it."""

    def lift(scored: list[fusion.Scored], p: fusion.Params) -> list[fusion.Scored]:
        found = answers
        if callable(answers):
            asking = {mid: parts.row for _, mid, parts in scored[: p.answer_top] if "?" in parts.row.content}
            found = answers(asking) if asking and p.answer_share else None
        lifted = lift_answers(scored, found, p.answer_share, p.answer_top)
        if not enabled():
            return lifted
        if query:
            lifted = named_speaker_first(lifted, query, p.other_speaker_share)
        after = following
        if callable(following):
            leading = {mid: parts.row for _, mid, parts in lifted[: p.continuation_top]}
            after = following(leading) if p.continuation_share else None
        return lift_continuations(lifted, after, p.continuation_share, p.continuation_top)

    return lift


def lift_answers(scored: list[fusion.Scored], answers: Replies | None, share: float, top: int) -> list[fusion.Scored]:
    """The reply to a question among the first `top` results scores at least `share` x the question's score.

    The reply joins the results just below its question (share < 1), even when neither list found it, with the
    question's match strength: it is what made the question match worth showing."""
    return _lift(scored, answers, share, top, "answers")


def lift_continuations(scored: list[fusion.Scored], following: Replies | None, share: float,
                       top: int) -> list[fusion.Scored]:  # fmt: skip
    """The speaker's next turn after one of the first `top` results scores at least `share` x that result's score,
    as a reply does under its question (`lift_answers`); `explain.continues` names the turn it follows."""
    return _lift(scored, following, share, top, "continues")


def _lift(scored: list[fusion.Scored], leads_to: Replies | None, share: float, top: int,
          why: str) -> list[fusion.Scored]:  # fmt: skip
    """What each of the first `top` results leads to (`leads_to`: its id -> the other memory's row) scores at least
    `share` x its score, with its match strength, even when neither list found it; `why` names the Parts field
    that records which result lifted it."""
    if not share or not leads_to:
        return scored
    lifted: dict[int, tuple] = {}
    for score, mid, parts in scored[:top]:
        other = leads_to.get(mid)
        if other is not None and share * score > lifted.get(other.pk, (0.0,))[0]:
            lifted[other.pk] = (round(share * score, 6), mid, parts, other)
    if not lifted:
        return scored
    out = []
    for score, mid, parts in scored:
        better = lifted.pop(mid, None)
        if better and better[0] > score:
            parts = parts._replace(**{why: better[1]})
            score = better[0]
        out.append((score, mid, parts))
    for mid, (score, lead, lead_parts, other) in lifted.items():
        factor = fusion.importance_factor(other.confirmed, other.effective)
        parts = fusion.Parts(None, False, None, 0.0, 0.0, 0.0, other, factor, lead_parts.match, {}, None)
        out.append((score, mid, parts._replace(**{why: lead})))
    out.sort(key=lambda item: (-item[0], item[1]))
    return out
