"""Who may see and do what: the role table, and a person's `Access` (the one place every dashboard check asks).

A hub admin (`is_superuser`) sees and does everything and manages people. Anyone else has a role per project
(viewer, curator, owner) and sees only those projects plus the global memories. Global memories (no project) are
readable by every person who can log in, as every agent token reads them; only hub admins change them, because a
change to a global memory changes the recall of every project at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from django.db.models import Q

from memoryhub.models import Membership, Role


class Action(StrEnum):
    READ = "read"  # see, search, count, the activity page
    CURATE = "curate"  # confirm, edit, re-tag, merge, archive, restore, refresh, review proposals, promote
    DELETE = "delete"
    SWEEP = "sweep"  # the decay sweep and its undo
    TOKENS = "tokens"  # agents' tokens for the project
    MEMBERS = "members"  # grant and revoke roles in the project


# What each role may do in its project; each role holds everything the one before it holds.
ROLE_ACTIONS: dict[Role, frozenset[Action]] = {
    Role.VIEWER: frozenset({Action.READ}),
    Role.CURATOR: frozenset({Action.READ, Action.CURATE}),
    Role.OWNER: frozenset(Action),
}


@dataclass(frozen=True)
class Access:
    """What one person may do: hub admin, or a role per project. Built once per request by `access_for`."""

    username: str
    is_admin: bool = False
    roles: Mapping[str, Role] = field(default_factory=dict)

    def role_of(self, project: str | None) -> Role | None:
        if self.is_admin:
            return Role.OWNER
        return self.roles.get(project) if project else None

    def can(self, action: Action, project: str | None) -> bool:
        if self.is_admin:
            return True
        if project is None:
            return action is Action.READ  # globals: everyone reads them, hub admins curate them
        role = self.roles.get(project)
        return role is not None and action in ROLE_ACTIONS[Role(role)]

    def projects_for(self, action: Action = Action.READ) -> list[str] | None:
        """The projects where this person may do `action`, sorted; None for a hub admin (every project)."""
        if self.is_admin:
            return None
        return sorted(p for p, role in self.roles.items() if action in ROLE_ACTIONS[Role(role)])

    def rows(self, action: Action = Action.READ, *, field_name: str = "project") -> Q:
        """A filter for rows carrying a project (memories, proposals, gate log entries, usage records): those the
        person may `action`. Global rows (project NULL) are in it for reading only."""
        projects = self.projects_for(action)
        if projects is None:
            return Q()
        mine = Q(**{f"{field_name}__in": projects})
        return mine | Q(**{f"{field_name}__isnull": True}) if action is Action.READ else mine


def access_for(user) -> Access:
    """The access of a logged-in person (an inactive or anonymous one may do nothing)."""
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return Access(username="")
    if user.is_superuser:
        return Access(username=user.get_username(), is_admin=True)
    roles = dict(Membership.objects.filter(user=user).values_list("project", "role"))
    return Access(username=user.get_username(), roles={p: Role(r) for p, r in roles.items()})


def role_of(user, project: str | None) -> Role | None:
    return access_for(user).role_of(project)


def visible_projects(user) -> list[str] | None:
    """The projects a person sees (None: every one, a hub admin); global memories are seen by everyone."""
    return access_for(user).projects_for(Action.READ)


def can(user, action: Action, project: str | None) -> bool:
    return access_for(user).can(action, project)
