"""The gate's part in knowledge updates: the write's nearest active neighbours judged by `updates.judge_update`,
then the verdicts carried out once the new memory is stored (older ones superseded, conflicts queued).

Runs inside the gate's write transaction, after its twin check: a memory judged to hold another value is never
folded into as a duplicate, and one judged another fact (a look-alike) is neither folded nor superseded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import datetime

from memoryhub.judges.update_judge import ask_llm_about_update
from memoryhub.memories.supersession import kept_both, queue_conflict, supersede
from memoryhub.memories.updates import (
    RULES,
    Neighbour,
    UpdateVerdict,
    Verdict,
    content_words,
    judge_pair,
    judge_update,
    project_words,
)
from memoryhub.models import Memory, Status

# How many neighbours are judged: the nearest by meaning, then the best word matches. An update is about the
# same subject, so its older fact is among the very nearest; judging more only adds chances to be wrong.
NEIGHBOURS_JUDGED = 8


@dataclass
class UpdateOutcome:
    superseded: list[int] = field(default_factory=list)
    proposals: list[int] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # for the write's reason


def scope_topic(project: str | None, *, text: str = "") -> frozenset[str]:
    """The words that name the scope rather than a subject in it: the project's name, and of the words `text`
    holds, those that a large share of the scope's memories hold too (a product's name that differs from the
    project's: "tollgate" in the project "payments"). Asked only when a write is about to replace something."""
    topic = project_words(project)
    # Superseded memories count too: the scope's names do not change when one of its facts is replaced or restored.
    scope = Memory.objects.filter(status__in=(Status.ACTIVE, Status.SUPERSEDED))
    scope = scope.filter(project=project) if project else scope.filter(project__isnull=True)
    size = scope.count()
    if not text or size < SCOPE_NAME["min_memories"]:
        return topic
    enough = max(SCOPE_NAME["min_memories"], SCOPE_NAME["share"] * size)
    names = set()
    for word in (w for w in content_words(text) - topic if len(w) >= 3):
        holding = scope.filter(content__icontains=word)
        # The substring count is a cheap upper bound; the words themselves are counted only past it.
        if holding.count() < enough:
            continue
        whole = re.compile(rf"(?<![\w-]){re.escape(word)}", re.IGNORECASE)
        contents = holding.values_list("content", flat=True)[: SCOPE_NAME["most_read"]]
        if sum(1 for c in contents if whole.search(c)) >= enough:
            names.add(word)
    return topic | names


def judge_link(
    *, older: str, newer: str, similarity: float, project: str | None, linked: bool = False
) -> UpdateVerdict:
    """How a newer text stands to an older one of the same scope, as the gate judges a write: with the scope's
    own names set aside whenever the verdict would hide the older or ask about it (consolidation, and reviewing
    stored links; `linked`: the two are already linked, see `updates._Pair.linked`)."""
    verdict = judge_pair(older=older, newer=newer, similarity=similarity, topic=project_words(project), linked=linked)
    if verdict.verdict not in (Verdict.SUPERSEDE, Verdict.CONFLICT):
        return verdict
    aside = judge_pair(
        older=older, newer=newer, similarity=similarity, topic=scope_topic(project, text=newer), linked=linked
    )
    if aside.verdict == Verdict.SUPERSEDE and verdict.verdict == Verdict.CONFLICT:
        return verdict  # setting names aside never makes a pair the rules were unsure of a sure replacement
    if aside.verdict in (Verdict.SUPERSEDE, Verdict.CONFLICT) or similarity < RULES["ask_nearest_similarity"]:
        return aside
    # Only the scope's names stood between a replacement and another subject, and the two are very close in meaning:
    # which of the two is right is a person's call, as for a write's nearest fact (`updates._ask_about_the_nearest`).
    reason = f"{verdict.reason}; without the scope's names: {aside.reason}"
    return replace(aside, verdict=Verdict.CONFLICT, reason=reason)


# A name held by this share of a scope's memories (and by at least `min_memories`) names the scope, not a subject.
SCOPE_NAME = {"share": 0.2, "min_memories": 8, "most_read": 5000}


def judge_neighbours(
    *, text: str, project: str | None, candidates: tuple[list[int], dict[int, float]], valid_from: datetime | None
) -> list[UpdateVerdict]:
    """The verdict on each of the write's nearest active neighbours in its scope (from `similar_in_scope`);
    `valid_from` is when the write's fact became true (None: now)."""
    keyword_ids, vector_hits = candidates
    nearest = [
        mid for mid, sim in sorted(vector_hits.items(), key=lambda kv: -kv[1]) if sim >= RULES["cue_min_similarity"]
    ]
    ids = list(dict.fromkeys([*nearest[:NEIGHBOURS_JUDGED], *keyword_ids[:NEIGHBOURS_JUDGED]]))
    if not ids:
        return []
    rows = Memory.objects.filter(pk__in=ids, status=Status.ACTIVE)
    rows = rows.filter(project=project) if project else rows.filter(project__isnull=True)
    neighbours = [
        Neighbour(id=pk, content=content, similarity=vector_hits.get(pk, 0.0),
                  newer=valid_from is not None and (since or created) > valid_from)
        for pk, content, since, created in rows.values_list("pk", "content", "valid_from", "created_at")
    ]  # fmt: skip
    verdicts = judge_update(text=text, neighbours=neighbours, topic=project_words(project))
    if any(v.verdict == Verdict.SUPERSEDE for v in verdicts):
        # About to hide a fact: judge again with the scope's own names set aside (rare, so the count is affordable).
        verdicts = judge_update(text=text, neighbours=neighbours, topic=scope_topic(project, text=text))
    if not any(v.verdict == Verdict.CONFLICT for v in verdicts):
        return verdicts
    # Asked inside the write transaction, but only for the rare pair the rules could not call (the LLM, when
    # MEMORYHUB_GATE_LLM_JUDGE is on and one is configured; otherwise no opinion and the rules' verdict stands).
    texts = {n.id: n for n in neighbours}
    out = []
    for verdict in verdicts:
        if verdict.verdict == Verdict.CONFLICT:
            n = texts[verdict.memory_id]
            older, newer = (text, n.content) if n.newer else (n.content, text)
            opinion = ask_llm_about_update(older=older, newer=newer)
            if opinion is not None and opinion != verdict.verdict:
                verdict = replace(verdict, verdict=opinion, reason=f"{verdict.reason}; the LLM judged: {opinion}")
        out.append(verdict)
    return out


def apply_updates(*, memory: Memory, verdicts: list[UpdateVerdict], actor: str) -> UpdateOutcome:
    """Carry out the verdicts on a memory just stored. The newer by `valid_from` supersedes the older: a write
    that says its fact became true before the stored one is stored already superseded by it."""
    outcome = UpdateOutcome()
    acting = [v for v in verdicts if v.verdict in (Verdict.SUPERSEDE, Verdict.CONFLICT)]
    if not acting:
        return outcome
    others = Memory.objects.in_bulk([v.memory_id for v in acting])
    for verdict in acting:
        other = others.get(verdict.memory_id)
        if other is None or other.status != Status.ACTIVE or kept_both(other.pk, memory.pk):
            continue
        written_first = (memory.valid_from or memory.created_at) < (other.valid_from or other.created_at)
        older, newer = (memory, other) if written_first else (other, memory)
        if verdict.verdict == Verdict.SUPERSEDE:
            if memory.status != Status.ACTIVE:
                continue  # already superseded by another neighbour
            supersede(older=older, newer=newer, actor=actor, reason=verdict.reason)
            if older.pk == memory.pk:
                outcome.notes.append(f"superseded by memory #{other.pk}, which is newer ({verdict.reason})")
            else:
                outcome.superseded.append(older.pk)
                outcome.notes.append(f"supersedes memory #{older.pk} ({verdict.reason})")
        else:
            proposal = queue_conflict(older=older, newer=newer, reason=verdict.reason, actor=actor)
            if proposal is not None:
                outcome.proposals.append(proposal.pk)
                outcome.notes.append(
                    f"disagrees with memory #{other.pk} ({verdict.reason}); asked a person which is current "
                    f"(proposal #{proposal.pk})"
                )
    return outcome
