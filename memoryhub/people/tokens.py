"""Agents' tokens as people manage them: an owner makes, lists and revokes tokens for the projects they own.

The tokens themselves are memoryhub.agents.tokens' (the CLI commands use the same functions). A token an owner
makes is always limited to projects they own; only a hub admin makes a token for every project.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

from memoryhub.agents.tokens import create_token, revoke_token, set_trust
from memoryhub.models import ApiToken
from memoryhub.people.persons import NotAllowed
from memoryhub.people.roles import Access, Action


def _manages(access: Access, token: ApiToken) -> bool:
    if access.is_admin:
        return True
    owned = set(access.projects_for(Action.TOKENS) or [])
    return bool(token.projects) and set(token.projects) <= owned


def tokens_for(access: Access) -> list[ApiToken]:
    """The tokens this person may see and revoke, newest first (a handful per hub: filtered here, not in SQL)."""
    rows = ApiToken.objects.order_by("-created_at", "-id")
    return [token for token in rows if _manages(access, token)]


def make_token(
    *, by: Access, name: str, projects: list[str], read_only: bool, untrusted: bool = False
) -> tuple[ApiToken, str]:
    """A new token limited to `projects` (none given: every project, for a hub admin only). Returns the row and the
    raw token, shown once."""
    projects = [p.strip() for p in projects if p.strip()]
    if not projects and not by.is_admin:
        raise ValidationError({"projects": "choose at least one of your projects"})
    refused = [p for p in projects if not by.can(Action.TOKENS, p)]
    if refused:
        raise NotAllowed(f"you may not make tokens for {', '.join(repr(p) for p in refused)}")
    # A token's name is the actor of what it writes; a person's name there would read as that person's change.
    if get_user_model().objects.filter(username=(name or "").strip()).exists():
        raise ValidationError({"name": "that is a person's username; give the agent its own name"})
    return create_token(name=name, projects=projects or None, read_only=read_only, untrusted=untrusted)


def _managed(by: Access, token_id: int) -> ApiToken:
    token = ApiToken.objects.filter(pk=token_id).first()
    if token is None or not _manages(by, token):
        raise ApiToken.DoesNotExist(f"token #{token_id} does not exist")
    return token


def withdraw_token(*, by: Access, token_id: int) -> ApiToken:
    """Revoke one token this person manages; any other id answers like a missing one."""
    return revoke_token(token=_managed(by, token_id))


def trust_token(*, by: Access, token_id: int, untrusted: bool) -> ApiToken:
    """Switch the trust of one token this person manages; any other id answers like a missing one."""
    return set_trust(token=_managed(by, token_id), untrusted=untrusted)
