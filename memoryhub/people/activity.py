"""Who did what in a project: the history events of its memories, newest first, filtered by actor and action.

A person's dashboard change is signed with their username, an agent's with its token's name, a command with the
command's name. A deleted memory's events stay: its project is read from the `deleted` event's snapshot.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q, QuerySet

from memoryhub.memories.actors import actor_kinds
from memoryhub.models import Memory, MemoryEvent


@dataclass(frozen=True)
class ActivityFilters:
    project: str
    actor: str = ""
    action: str = ""


def _in_project(project: str) -> Q:
    ids = Memory.objects.filter(project=project).values("pk")
    return Q(memory_id__in=ids) | Q(action="deleted", before__project=project)


def project_events(filters: ActivityFilters) -> QuerySet[MemoryEvent]:
    rows = MemoryEvent.objects.filter(_in_project(filters.project))
    if filters.actor:
        rows = rows.filter(actor=filters.actor)
    if filters.action:
        rows = rows.filter(action=filters.action)
    return rows.order_by("-created_at", "-id")


def actors_and_actions(project: str) -> tuple[list[str], list[str]]:
    """The values the filter menus offer: everyone who changed the project's memories, and every kind of change."""
    rows = MemoryEvent.objects.filter(_in_project(project)).order_by()
    actors = sorted({a for a in rows.values_list("actor", flat=True).distinct() if a})
    actions = sorted(set(rows.values_list("action", flat=True).distinct()))
    return actors, actions


def people_among(actors: list[str]) -> set[str]:
    """Which actor names are people (dashboard logins) rather than agents or commands (`memories.actors`)."""
    return {name for name, kind in actor_kinds(actors).items() if kind == "person"}


def agents_among(actors: list[str]) -> set[str]:
    """Which actor names are agents (API tokens)."""
    return {name for name, kind in actor_kinds(actors).items() if kind == "agent"}
