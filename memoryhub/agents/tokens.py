"""Agents' bearer tokens: created once and shown once, stored as a sha256 hash, checked in constant time.

An `Agent` is what a verified token grants: a name (the `source` of everything it writes), the projects it
may touch (None: all) and whether it may write. The API and the tools both ask it before acting.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from memoryhub.memories.actors import check_agent_name
from memoryhub.memories.secrets import redact_label
from memoryhub.models import ApiToken
from memoryhub.storage import by_key

TOKEN_PREFIX = "mh_"
# Writing last_used_at on every request would take SQLite's write lock for every read; once a minute is plenty.
LAST_USED_RESOLUTION = timedelta(seconds=60)


class AccessDenied(Exception):
    """The token may not do this (read-only, or another project). The API answers 403."""


@dataclass(frozen=True)
class Agent:
    name: str
    projects: list[str] | None = None  # None: every project
    read_only: bool = False
    token_id: int | None = None
    trusted: bool = True  # False: every write waits for a person's review (memories/holds.py)

    # DRF and Django ask `request.user.is_authenticated`; an agent with a verified token is.
    is_authenticated = True

    @classmethod
    def from_token(cls, token: ApiToken) -> Agent:
        return cls(name=token.name, projects=token.projects, read_only=token.read_only, token_id=token.pk,
                   trusted=not token.untrusted)  # fmt: skip

    def may_see(self, project: str | None) -> bool:
        """Global memories (project None) are visible to every token."""
        return project is None or self.projects is None or project in self.projects

    def may_write_to(self, project: str | None) -> bool:
        """A project-scoped token may not change global memories: they show up in every project."""
        if self.read_only:
            return False
        if self.projects is None:
            return True
        return project is not None and project in self.projects

    def default_project(self) -> str | None:
        """Where this agent works when a request names no project: the token's only project, else the server's
        MEMORYHUB_DEFAULT_PROJECT when the token may use it, else none (writes must then name one)."""
        if self.projects is not None and len(self.projects) == 1:
            return self.projects[0]
        configured = settings.MEMORYHUB_DEFAULT_PROJECT
        if configured and self.may_see(configured):
            return configured
        return None

    def check_read(self, project: str | None) -> None:
        if not self.may_see(project):
            raise AccessDenied(f"this token may not touch project {_named(project)}; it is limited to {self._scope()}")

    def check_write(self, project: str | None) -> None:
        if self.read_only:
            raise AccessDenied("this token is read-only")
        if not self.may_write_to(project):
            if project is None:
                raise AccessDenied(f"this token is limited to {self._scope()} and may not write global memories")
            raise AccessDenied(f"this token may not touch project {_named(project)}; it is limited to {self._scope()}")

    def check_may_write(self) -> None:
        if self.read_only:
            raise AccessDenied("this token is read-only")

    def _scope(self) -> str:
        return "projects " + ", ".join(repr(p) for p in self.projects or [])


def _named(project: str | None) -> str:
    """A project as a refusal names it: a secret sent as a project name is not echoed back."""
    return repr(redact_label(project) if isinstance(project, str) else project)


def hash_token(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def _clean_projects(projects: list[str] | None) -> list[str] | None:
    if projects is None:
        return None
    cleaned = list(dict.fromkeys(p.strip() for p in projects))
    if not cleaned or any(not p or len(p) > 200 for p in cleaned):
        raise ValidationError({"projects": "each project must be 1 to 200 characters"})
    return cleaned


def create_token(
    *, name: str, projects: list[str] | None = None, read_only: bool = False, untrusted: bool = False
) -> tuple[ApiToken, str]:
    """Make a token for an agent. Returns the row and the raw token, which is not stored anywhere. `untrusted`: its
    writes are held for a person's review."""
    name = (name or "").strip()
    if not name or len(name) > 200:
        raise ValidationError({"name": "the agent name must be 1 to 200 characters"})
    check_agent_name(name)  # never a person's username or a reserved word: the history would read it as theirs
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        name=name,
        token_hash=hash_token(raw),
        prefix=raw[:10],
        projects=_clean_projects(projects),
        read_only=read_only,
        untrusted=untrusted,
    )
    return token, raw


def verify_token(raw: str) -> ApiToken | None:
    """The active token matching `raw`, or None. The lookup is by hash, so timing says nothing of the token."""
    if not raw or len(raw) > 512:
        return None
    digest = hash_token(raw)
    token = by_key.row_where(ApiToken, "token_hash", digest)  # every API call asks: one plain statement
    # The indexed lookup already matched; compare again in constant time so no code path compares raw text.
    if token is None or not hmac.compare_digest(token.token_hash, digest) or not token.is_active:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token


def revoke_tokens(*, name: str | None = None, prefix: str | None = None) -> int:
    """Revoke the active tokens of an agent (by name) or one token (by its shown prefix). Returns how many."""
    if not name and not prefix:
        raise ValidationError({"name": "give the agent name or the token prefix"})
    tokens = ApiToken.objects.filter(revoked_at__isnull=True)
    if name:
        tokens = tokens.filter(name=name)
    if prefix:
        tokens = tokens.filter(prefix=prefix[:10])
    with transaction.atomic():
        return tokens.update(revoked_at=timezone.now())


def set_trust(*, token: ApiToken, untrusted: bool) -> ApiToken:
    """Switch a token's trust: from now on its writes are held for review (untrusted) or stored as the gate decides."""
    if token.untrusted != untrusted:
        token.untrusted = untrusted
        token.save(update_fields=["untrusted"])
    return token


def revoke_token(*, token: ApiToken) -> ApiToken:
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token
