"""What a person does about time: check a fact (it moves to the back of the "needs checking" list) and move the
moment a memory expires. The columns and their rules are `validity.py`'s."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from memoryhub.memories.lifecycle import confirm_memory
from memoryhub.memories.store import record_event
from memoryhub.memories.validity import mark_verified, parse_moment
from memoryhub.models import Memory, Status


def needs_checking(rows: QuerySet[Memory]) -> QuerySet[Memory]:
    """Of `rows`, the facts still in use (active, not expired), the one checked longest ago first."""
    # Never checked (a row written outside MemoryHub) first on either database: PostgreSQL puts NULL last by default.
    return rows.filter(status=Status.ACTIVE).unexpired().order_by(F("verified_at").asc(nulls_first=True), "pk")


def expired(rows: QuerySet[Memory]) -> QuerySet[Memory]:
    """Of `rows`, the active memories past their expiry (out of search and recall), the latest to expire first."""
    return rows.filter(status=Status.ACTIVE, expires_at__lte=timezone.now()).order_by("-expires_at", "-pk")


def verify_memory(*, memory: Memory, actor: str) -> Memory:
    """A person checked the fact and vouches for it: confirmed (if it was not) and checked now."""
    with transaction.atomic():
        if not Memory.objects.filter(pk=memory.pk, confirmed=True).exists():
            return confirm_memory(memory=memory, confirmed=True, actor=actor)  # confirming checks it (lifecycle)
        mark_verified(memory_ids=[memory.pk])
        record_event(memory.pk, "verified", actor=actor, note="checked by a person: still true")
    memory.refresh_from_db()
    return memory


def set_expiry(*, memory: Memory, expires_at: Any, actor: str) -> Memory:
    """A person moves (or, with None, removes) the moment a memory expires; one history event says from what. An
    expired memory extended into the future is back in search and recall at once."""
    moment = parse_moment(expires_at, "expires_at")
    with transaction.atomic():
        before = Memory.objects.values_list("expires_at", flat=True).get(pk=memory.pk)
        if before != moment:
            Memory.objects.filter(pk=memory.pk).update(expires_at=moment)
            note = f"expires {moment.date().isoformat()}" if moment else "expires never"
            if before is not None and before <= timezone.now():
                note += " (it had expired)"
            record_event(memory.pk, "expiry_set", actor=actor, note=note,
                         before={"expires_at": before.isoformat() if before else None},
                         after={"expires_at": moment.isoformat() if moment else None})  # fmt: skip
    memory.refresh_from_db()
    return memory
