"""Re-judging the automatic supersessions a store already holds with today's update rules, and undoing those the
rules would not make now: the repair for a store written by an earlier version whose rules linked facts that
were not one fact's old and new value.

Each link is judged as the write gate judges a pair (`update_gate.judge_link`: the scope's own words set aside, the
cosine of the two memories' stored vectors). A link the rules would still make is kept. One they would put to a
person (a conflict: the same subject with another value, not clearly a replacement) is kept as it is and put to a
person, who decides which is current. Any other (another subject, two facts) is restored (`supersession.restore`:
both memories active, the pair remembered as two facts).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from django.core.exceptions import ValidationError
from django.db import transaction

from memoryhub.embeddings import get_embedder
from memoryhub.memories.supersession import queue_conflict, restore
from memoryhub.memories.supersession_log import AutoSupersession, automatic_supersessions
from memoryhub.memories.updates import UpdateVerdict, Verdict
from memoryhub.models import Memory
from memoryhub.storage import sql
from memoryhub.writes.update_gate import judge_link

ACTOR = "review_supersessions"


@dataclass(frozen=True)
class LinkReview:
    link: AutoSupersession
    similarity: float | None  # None: a vector was missing (judged at 0.0)
    verdict: UpdateVerdict

    @property
    def kept(self) -> bool:
        """The rules would make this link today, or ask a person about the pair: either way it is one fact's
        values, so the link stands until a person says otherwise."""
        return self.verdict.verdict in (Verdict.SUPERSEDE, Verdict.CONFLICT)

    @property
    def unsure(self) -> bool:
        return self.verdict.verdict == Verdict.CONFLICT


@dataclass
class ReviewReport:
    reviews: list[LinkReview] = field(default_factory=list)
    restored: list[int] = field(default_factory=list)  # the older memories made active again
    queued: list[int] = field(default_factory=list)  # conflict proposals put to a person

    @property
    def kept(self) -> list[LinkReview]:
        return [r for r in self.reviews if r.kept]

    @property
    def unsure(self) -> list[LinkReview]:
        return [r for r in self.reviews if r.unsure]

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
            verdict=judge_link(
                older=link.older.content,
                newer=link.newer.content,
                similarity=0.0 if similarity is None else similarity,
                project=link.project,
                linked=True,
            ),
        )
        for link, similarity in zip(links, similarities, strict=True)
    ]


def _undo(review: LinkReview, report: ReviewReport) -> None:
    with transaction.atomic():
        try:
            restore(memory=review.link.older, actor=ACTOR)
        except ValidationError:
            return  # restored or re-linked by someone else since it was read: nothing left to undo
        report.restored.append(review.link.older.pk)


def _ask(review: LinkReview, report: ReviewReport) -> None:
    """Put a kept link the rules are unsure of to a person (once: a pair already asked is not asked again)."""
    why = f"an automatic supersession the current rules would ask about: {review.verdict.reason}"
    proposal = queue_conflict(older=review.link.older, newer=review.link.newer, reason=why, actor=ACTOR)
    if proposal is not None:
        report.queued.append(proposal.pk)


def review_supersessions(*, projects: list[str | None] | None = None, restore_wrong: bool = False) -> ReviewReport:
    """Re-judge every automatic supersession in these scopes (None: all); with `restore_wrong`, restore each link
    today's rules would not make, and put each they are unsure of to a person. Without it nothing changes."""
    links = automatic_supersessions(projects=projects)
    report = ReviewReport(reviews=judge_links(links))
    if restore_wrong:
        for review in report.not_made_now:
            _undo(review, report)
        for review in report.unsure:
            _ask(review, report)
    return report
