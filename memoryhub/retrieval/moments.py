"""Searching and recalling at a moment: what was true then (`as_of`), and what a fact's line says of its age.

Without `as_of` a search sees the memories current now (its status filter, nothing past `expires_at`); with it,
the memories true at that moment, superseded ones included and later ones left out (the rule is the filter's:
`storage.filters.time_clauses`, `MemoryQuerySet.true_at`), and each result says whether it still holds.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from memoryhub.memories.validity import still_true
from memoryhub.models import Memory, Status

# What was true at a moment may since have been replaced: an `as_of` search looks at both.
THEN = (Status.ACTIVE, Status.SUPERSEDED)


def statuses_at(status: str | tuple[str, ...] | None, as_of: datetime | None) -> str | tuple[str, ...] | None:
    """The statuses a search looks at: as asked, and with `as_of` the superseded beside the active."""
    if as_of is not None and status == Status.ACTIVE:
        return THEN
    return status


def standing(as_of: datetime | None = None) -> QuerySet[Memory]:
    """The memories recall may show: active and not expired now, or (with `as_of`) true at that moment."""
    if as_of is None:
        return Memory.objects.filter(status=Status.ACTIVE).unexpired()
    return Memory.objects.filter(status__in=THEN).true_at(as_of)


def then_and_now(memory: Memory, as_of: datetime | None) -> dict[str, Any]:
    """What a search result adds at a moment: whether the fact true then still holds (nothing without `as_of`)."""
    return {} if as_of is None else {"true_now": still_true(memory)}


def unchecked_since(memory: Memory, now: datetime | None = None) -> str | None:
    """The day a fact was last checked, when nobody has for MEMORYHUB_UNCHECKED_DAYS (its recall line says so)."""
    checked = memory.verified_at or memory.created_at
    if checked is None or (now or timezone.now()) - checked < timedelta(days=settings.MEMORYHUB_UNCHECKED_DAYS):
        return None
    return checked.date().isoformat()
