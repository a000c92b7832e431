"""The automatic supersessions: links the write gate made when a newer memory replaced an older one by the update
rules, as opposed to those a person made by deciding a conflict. A read only: nothing here writes.

A link is the older memory's current `superseded_by` together with the "superseded" history event that made it
(`supersession.supersede` writes it, with the rules' reason in its note). Which links a person made is decided
by `_made_by_a_person`, and nowhere else: the dashboard's "Replaced automatically" page and the
`review_supersessions` command both read through `automatic_supersessions`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db.models import CharField, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Cast, Concat

from memoryhub.models import Memory, MemoryEvent, Status

# `supersede` writes "superseded by #<newer>: <reason>" on the older memory; a person's decision passes
# "conflict proposal #<id>: <who> chose <choice>" as the reason (`supersession.decide_conflict`).
_NOTE_HEAD = re.compile(r"^superseded by #[0-9]+: ")
# The rules say which words told them the fact changed: "says it changed ('now'): ...".
_CUE = re.compile(r"says it changed \('([^']*)'\)")

# Scopes: project names, None for the global memories; `None` instead of a list means every scope.
Scopes = Sequence[str | None] | None


@dataclass(frozen=True)
class AutoSupersession:
    """One automatic link: `older` (superseded) replaced by `newer`, with the rules' reason and cue."""

    older: Memory
    newer: Memory
    reason: str
    cue: str  # the words that said the fact changed ("now", "moved"...); empty when the rules saw none
    actor: str  # who made the link: the writer of the newer memory, as the gate signs it
    linked_at: datetime
    event_id: int

    @property
    def project(self) -> str | None:
        return self.older.project

    @property
    def source(self) -> str:
        """Who wrote the newer memory (the agent, or the import or person that stored it)."""
        return self.newer.source or self.actor

    @property
    def in_force(self) -> bool:
        """Still in place (False once restored, or re-linked elsewhere since)."""
        return self.older.status == Status.SUPERSEDED and self.older.superseded_by_id == self.newer.pk


def _made_by_a_person() -> Q:
    """The one rule telling a person's supersession from the write gate's: a person deciding a conflict supersedes
    with a note naming the conflict proposal; every other supersession was made by the rules, at write time."""
    # LIKE, not a regex: SQLite runs REGEXP as a Python callback inside the query, which can stall a connection
    # that server threads share (the test database's).
    return Q(link_note__startswith="superseded by #") & Q(link_note__contains=": conflict proposal #")


def _in_scopes(rows: QuerySet[Memory], projects: Scopes) -> QuerySet[Memory]:
    if projects is None:
        return rows
    names = [p for p in projects if p is not None]
    wanted = Q(project__in=names)
    if None in projects:
        wanted |= Q(project__isnull=True)
    return rows.filter(wanted)


def _links(projects: Scopes) -> QuerySet[Memory]:
    """The superseded memories (in these scopes) whose current link the rules made, newest link first, each with
    the id and note of the event that made it."""
    # The latest "superseded" event that names the memory's current successor: the one that made this link.
    made_it = MemoryEvent.objects.filter(
        memory_id=OuterRef("pk"),
        action="superseded",
        note__startswith=Concat(
            Value("superseded by #"), Cast(OuterRef("superseded_by_id"), output_field=CharField()), Value(": ")
        ),
    ).order_by("-created_at", "-id")
    rows = _in_scopes(Memory.objects.filter(status=Status.SUPERSEDED, superseded_by__isnull=False), projects)
    return (
        rows.annotate(link_id=Subquery(made_it.values("pk")[:1]), link_note=Subquery(made_it.values("note")[:1]))
        .filter(link_id__isnull=False)
        .exclude(_made_by_a_person())
        .order_by("-link_id")
    )


def _reason(note: str) -> str:
    return _NOTE_HEAD.sub("", note, count=1)


def cue_of(reason: str) -> str:
    """The change cue the rules named in a reason ("says it changed ('now'): ..."), or ""."""
    found = _CUE.search(reason)
    return found.group(1) if found else ""


def _build(olders: list[Memory]) -> list[AutoSupersession]:
    newers = Memory.objects.in_bulk([m.superseded_by_id for m in olders])
    events = MemoryEvent.objects.in_bulk([m.link_id for m in olders])
    out = []
    for older in olders:
        newer, event = newers.get(older.superseded_by_id), events.get(older.link_id)
        if newer is None or event is None:
            continue  # deleted between the two reads
        reason = _reason(event.note)
        out.append(
            AutoSupersession(
                older=older,
                newer=newer,
                reason=reason,
                cue=cue_of(reason),
                actor=event.actor,
                linked_at=event.created_at,
                event_id=event.pk,
            )
        )
    return out


def automatic_supersessions(
    *, projects: Scopes = None, limit: int | None = None, offset: int = 0
) -> list[AutoSupersession]:
    """The automatic supersessions in force in these scopes (None: every scope), newest first."""
    rows = _links(projects)[offset : offset + limit] if limit is not None else _links(projects)[offset:]
    return _build(list(rows))


def count_automatic_supersessions(*, projects: Scopes = None) -> int:
    return _links(projects).count()


def automatic_supersession(*, older_id: int, projects: Scopes = None) -> AutoSupersession | None:
    """The automatic link that superseded this memory, if it is one and in these scopes."""
    return next(iter(_build(list(_links(projects).filter(pk=older_id)))), None)
