"""Re-judging the automatic supersessions a store already holds with today's update rules, and undoing those the
rules would not make now: the repair for a store written by an earlier version whose rules linked facts that
were not one fact's old and new value.

Each link is judged as the write gate judges a pair (`updates.judge_pair`, the scope's topic words, the cosine of
the two memories' stored vectors). A link the rules would still make is kept. Any other is restored
(`supersession.restore`: both memories active, the pair remembered as two facts); when today's verdict is a
conflict, the pair is also put to a person, who decides which is current.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from django.core.exceptions import ValidationError
from django.db import transaction

from memoryhub.embeddings import get_embedder
from memoryhub.memories.supersession import conflict_key, queue_conflict, restore
from memoryhub.memories.supersession_log import AutoSupersession, automatic_supersessions
from memoryhub.memories.update_gate import scope_topic
from memoryhub.memories.updates import UpdateVerdict, Verdict, judge_pair
from memoryhub.models import ConflictChoice, Memory, Proposal, ProposalStatus
from memoryhub.storage import sql

ACTOR = "review_supersessions"


@dataclass(frozen=True)
class LinkReview:
    link: AutoSupersession
    similarity: float | None  # None: a vector was missing (judged at 0.0)
    verdict: UpdateVerdict

    @property
    def kept(self) -> bool:
        return self.verdict.verdict == Verdict.SUPERSEDE


@dataclass
class ReviewReport:
    reviews: list[LinkReview] = field(default_factory=list)
    restored: list[int] = field(default_factory=list)  # the older memories made active again
    queued: list[int] = field(default_factory=list)  # conflict proposals put to a person

    @property
    def kept(self) -> list[LinkReview]:
        return [r for r in self.reviews if r.kept]

    @property
    def not_made_now(self) -> list[LinkReview]:
        return [r for r in self.reviews if not r.kept]

    @property
    def without_vectors(self) -> int:
        return sum(1 for r in self.reviews if r.similarity is None)


def stored_similarities(pairs: list[tuple[Memory, Memory]]) -> list[float | None]:
    """The cosine of each pair's stored vectors, as the gate measured it; None where either memory has no vector
    from the current model (never embedded, or embedded by another model: `reembed` makes them)."""
    embedder = get_embedder()
    current = {m.pk for pair in pairs for m in pair if m.embed_model == embedder.model_id}
    vectors = sql.read_vectors(sorted(current), embedder.dimensions)
    out: list[float | None] = []
    for older, newer in pairs:
        a, b = vectors.get(older.pk), vectors.get(newer.pk)
        if a is None or b is None:
            out.append(None)
            continue
        norms = float(np.linalg.norm(a) * np.linalg.norm(b))
        out.append(float(np.dot(a, b)) / norms if norms else 0.0)
    return out


def judge_links(links: list[AutoSupersession]) -> list[LinkReview]:
    """Today's verdict on each link, judged as the write gate judges a write and its neighbour."""
    similarities = stored_similarities([(link.older, link.newer) for link in links])
    return [
        LinkReview(
            link=link,
            similarity=similarity,
            verdict=judge_pair(
                older=link.older.content,
                newer=link.newer.content,
                similarity=0.0 if similarity is None else similarity,
                memory_id=link.older.pk,
                topic=scope_topic(link.project),
            ),
        )
        for link, similarity in zip(links, similarities, strict=True)
    ]


def _ask_a_person(*, older: Memory, newer: Memory, reason: str) -> Proposal | None:
    """Put a restored pair to a person. The restore recorded the pair as decided ("keep both"), which would keep
    the question from being asked: that record is closed (stale) first, still saying "both", so the write gate
    does not link the two again on its own while the question waits."""
    Proposal.objects.filter(
        cluster_key=conflict_key(older.pk, newer.pk),
        status=ProposalStatus.ACCEPTED,
        choice=ConflictChoice.BOTH,
        decided_by=ACTOR,
    ).update(status=ProposalStatus.STALE)
    return queue_conflict(older=older, newer=newer, reason=reason, actor=ACTOR)


def _undo(review: LinkReview, report: ReviewReport) -> None:
    older, newer = review.link.older, review.link.newer
    with transaction.atomic():
        try:
            restore(memory=older, actor=ACTOR)
        except ValidationError:
            return  # restored or re-linked by someone else since it was read: nothing left to undo
        report.restored.append(older.pk)
        if review.verdict.verdict == Verdict.CONFLICT:
            why = f"restored by a review of automatic supersessions; today's rules: {review.verdict.reason}"
            proposal = _ask_a_person(older=older, newer=newer, reason=why)
            if proposal is not None:
                report.queued.append(proposal.pk)


def review_supersessions(*, projects: list[str | None] | None = None, restore_wrong: bool = False) -> ReviewReport:
    """Re-judge every automatic supersession in these scopes (None: all); with `restore_wrong`, restore each link
    today's rules would not make (a conflict is also put to a person). Without it nothing changes."""
    links = automatic_supersessions(projects=projects)
    report = ReviewReport(reviews=judge_links(links))
    if restore_wrong:
        for review in report.not_made_now:
            _undo(review, report)
    return report
