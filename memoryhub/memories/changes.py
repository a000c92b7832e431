"""The Changes inbox: every decision the memory made by itself, in one list a person reviews. A read only.

Five kinds, each read where it is recorded: automatic supersessions (`supersession_log`, the one rule telling them
from a person's), conflicts the rules put to a person (pending, or decided and undoable), merge proposals (pending or
accepted), writes the gate folded into a stored memory (the gate log's duplicate and merged entries) and memories
the decay sweep archived (their "archived" event carries the sweep's id). Each kind keeps its own latest
`PER_KIND`; the inbox shows them together, newest first, grouped by day.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime

from django.db.models import QuerySet
from django.utils import timezone

from memoryhub.memories.lifecycle import SWEEP_KEY
from memoryhub.memories.supersession_log import (
    AutoSupersession,
    Scopes,
    automatic_supersessions,
    count_automatic_supersessions,
)
from memoryhub.memories.supersession_log import _in_scopes as in_scopes
from memoryhub.models import (
    GateDecision,
    GateLogEntry,
    Memory,
    MemoryEvent,
    Proposal,
    ProposalKind,
    ProposalStatus,
)

PER_KIND = 50  # the latest of each kind: an inbox is read from the top; older ones stay on their own pages
# The kinds, in the order the filters show them, with their labels.
KINDS: dict[str, str] = {
    "supersession": "Replaced",
    "conflict": "Conflicts",
    "merge": "Merges",
    "fold": "Folded writes",
    "decay": "Decay archives",
}
LABELS = {"supersession": "replaced", "conflict": "conflict", "merge": "merge", "fold": "folded", "decay": "decayed"}
FOLDED = (GateDecision.DUPLICATE, GateDecision.MERGED)


@dataclass(frozen=True)
class Change:
    """One automatic decision. `kind` says which of the fields below are set."""

    kind: str
    pk: int  # the id of what it is (older memory, proposal, gate entry, archived memory): the row is `kind-pk`
    at: datetime
    project: str | None
    supersession: AutoSupersession | None = None
    proposal: Proposal | None = None
    sources: list[Memory] = field(default_factory=list)  # a proposal's memories, in its order (older first)
    entry: GateLogEntry | None = None  # a folded write
    memory: Memory | None = None  # an archived memory
    event: MemoryEvent | None = None  # the sweep's event that archived it

    @property
    def label(self) -> str:
        return LABELS[self.kind]

    @property
    def row_id(self) -> str:
        return f"change-{self.kind}-{self.pk}"

    @property
    def waiting(self) -> bool:
        """A person is asked (a conflict or merge not decided yet)."""
        return self.proposal is not None and self.proposal.status == ProposalStatus.PENDING


@dataclass(frozen=True)
class Day:
    day: date
    changes: list[Change]


def _proposals(kind: str, projects: Scopes) -> QuerySet[Proposal]:
    rows = Proposal.objects.filter(kind=kind, status__in=[ProposalStatus.PENDING, ProposalStatus.ACCEPTED])
    return in_scopes(rows, projects)


def _folds(projects: Scopes) -> QuerySet[GateLogEntry]:
    return in_scopes(GateLogEntry.objects.filter(decision__in=FOLDED), projects)


def _decay_events(projects: Scopes) -> QuerySet[MemoryEvent]:
    # The memory's project decides who sees its event; events carry no project of their own.
    memories = in_scopes(Memory.objects.all(), projects).values("pk")
    return MemoryEvent.objects.filter(action="archived", after__has_key=SWEEP_KEY, memory_id__in=memories)


def _proposal_changes(kind: str, projects: Scopes, limit: int) -> list[Change]:
    proposals = list(_proposals(kind, projects).order_by("-created_at", "-id")[:limit])
    ids = {int(i) for p in proposals for i in p.sources}
    memories = in_scopes(Memory.objects.filter(pk__in=ids), projects).in_bulk()
    return [
        Change(
            kind=kind,
            pk=p.pk,
            at=p.created_at,  # when the memory asked (a decision does not move it in the list)
            project=p.project,
            proposal=p,
            sources=[memories[int(i)] for i in p.sources if int(i) in memories],
        )
        for p in proposals
    ]


def _supersession_changes(projects: Scopes, limit: int) -> list[Change]:
    return [
        Change(kind="supersession", pk=s.older.pk, at=s.linked_at, project=s.project, supersession=s)
        for s in automatic_supersessions(projects=projects, limit=limit)
    ]


def _fold_changes(projects: Scopes, limit: int) -> list[Change]:
    entries = _folds(projects).select_related("memory", "promoted_to").order_by("-created_at", "-id")[:limit]
    return [Change(kind="fold", pk=e.pk, at=e.created_at, project=e.project, entry=e) for e in entries]


def _decay_changes(projects: Scopes, limit: int) -> list[Change]:
    events = list(_decay_events(projects).order_by("-created_at", "-id")[:limit])
    memories = Memory.objects.in_bulk([e.memory_id for e in events])
    return [
        Change(kind="decay", pk=e.memory_id, at=e.created_at, project=m.project, memory=m, event=e)
        for e in events
        if (m := memories.get(e.memory_id)) is not None
    ]


def changes(*, projects: Scopes = None, kinds: Iterable[str] | None = None, limit: int = PER_KIND) -> list[Change]:
    """The automatic decisions in these scopes (None: every scope) of these kinds (None: every kind), newest first.
    A memory archived by several sweeps (restored in between) shows once, for its latest archive."""
    wanted = set(KINDS) if kinds is None else set(kinds) & set(KINDS)
    out: list[Change] = []
    if "supersession" in wanted:
        out += _supersession_changes(projects, limit)
    if "conflict" in wanted:
        out += _proposal_changes(ProposalKind.CONFLICT, projects, limit)
    if "merge" in wanted:
        out += _proposal_changes(ProposalKind.MERGE, projects, limit)
    if "fold" in wanted:
        out += _fold_changes(projects, limit)
    if "decay" in wanted:
        seen: set[int] = set()
        out += [c for c in _decay_changes(projects, limit) if not (c.pk in seen or seen.add(c.pk))]
    return sorted(out, key=lambda c: (c.at, c.kind, c.pk), reverse=True)


def count_changes(*, projects: Scopes = None) -> dict[str, int]:
    """How many of each kind there are in these scopes (all of them, not only the latest shown)."""
    return {
        "supersession": count_automatic_supersessions(projects=projects),
        "conflict": _proposals(ProposalKind.CONFLICT, projects).count(),
        "merge": _proposals(ProposalKind.MERGE, projects).count(),
        "fold": _folds(projects).count(),
        "decay": _decay_events(projects).values("memory_id").distinct().count(),
    }


def by_day(items: list[Change]) -> list[Day]:
    """The changes (newest first) grouped by the local day they happened."""
    days: list[Day] = []
    for change in items:
        day = timezone.localdate(change.at)
        if not days or days[-1].day != day:
            days.append(Day(day=day, changes=[]))
        days[-1].changes.append(change)
    return days
