"""Time on a memory beside `valid_from`: when its fact stopped being true (`valid_to`), when it leaves search, recall
and the tools (`expires_at`), and when someone last checked it (`verified_at`).

- `valid_to` is null while the fact is current. Supersession ends it at the successor's `valid_from`; a restore
  (or a successor that leaves and gives nobody its place) opens it again. A writer may also say it.
- `expires_at` needs no sweep: every search, recall and tool call leaves out what is past it at the moment it
  asks (`storage.filters.time_clauses`, `MemoryQuerySet.unexpired`); the dashboard lists it as expired and a person
  may extend it (`checking.set_expiry`).
- `verified_at` is set when the memory is made, when a person confirms or edits it, and when an agent writes the
  same fact again (the gate's `duplicate` and `merged` outcomes).

Everything here acts inside the caller's transaction; the filters that read these columns live in storage.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import UTC, datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from memoryhub.models import Memory, Status

# The latest moment a write may name: a later one is a typo (year 9999 would overflow a zone's arithmetic).
LATEST = datetime(9000, 1, 1, tzinfo=UTC)


def read_moment(value: Any) -> datetime | None:
    """ISO 8601 text with or without a zone (none: UTC), a date alone (its midnight, UTC), or a datetime; None when
    it cannot be read. The one reading of a moment: what a writer names here, and imported timestamps
    (`fields.parse_import_time`)."""
    parsed = value if isinstance(value, datetime) else None
    if isinstance(value, str) and len(value) <= 64:
        try:
            parsed = parse_datetime(value.strip())
            if parsed is None:
                day = parse_date(value.strip())
                parsed = datetime(day.year, day.month, day.day) if day else None
        except ValueError:  # well-formed but impossible: month 13, hour 25
            parsed = None
    if parsed is not None and timezone.is_naive(parsed):
        parsed = parsed.replace(tzinfo=UTC)
    return parsed


def parse_moment(value: Any, field: str) -> datetime | None:
    """A moment a writer names (`valid_to`, `expires_at`, `as_of`, `verified_before`), as `read_moment` reads it.
    Unlike an imported timestamp it may lie in the future. None or "" is no moment; anything else unreadable is a
    ValidationError naming `field`."""
    if value in (None, ""):
        return None
    parsed = read_moment(value)
    if parsed is None:
        raise ValidationError({field: "must be an ISO 8601 date-time or date (no zone is read as UTC)"})
    if not datetime(1900, 1, 1, tzinfo=UTC) <= parsed <= LATEST:
        raise ValidationError({field: "must be between the years 1900 and 9000"})
    return parsed.astimezone(UTC)


def written_times(
    *, valid_from: datetime | None, valid_to: Any = None, expires_at: Any = None
) -> dict[str, datetime | None]:
    """The end of validity and the expiry a write carries, checked: `valid_to` after `valid_from` (now when the
    write names none), `expires_at` any moment (one already past stores a memory nobody will find)."""
    ends = parse_moment(valid_to, "valid_to")
    expires = parse_moment(expires_at, "expires_at")
    if ends is not None and ends <= (valid_from or timezone.now()):
        raise ValidationError({"valid_to": "must be later than valid_from (the write's time when it names none)"})
    return {"valid_to": ends, "expires_at": expires}


def imported_times(item: dict[str, Any]) -> dict[str, datetime]:
    """`valid_to` and `expires_at` of an imported (restored) memory, as exported: kept as given, even an end
    before its start (a fact a person judged wrong was never true)."""
    out = {name: parse_moment(item.get(name), name) for name in ("valid_to", "expires_at")}
    return {name: value for name, value in out.items() if value is not None}


# --- valid_to: the chain of supersession -----------------------------------------------------------------------


def end_validity(*, memory_ids: Collection[int], successor_id: int) -> None:
    """These memories stopped being true when `successor_id` (their successor now) became true."""
    if not memory_ids:
        return
    began = Memory.objects.filter(pk=successor_id).values(began=Coalesce("valid_from", "created_at"))[:1]
    Memory.objects.filter(pk__in=list(memory_ids)).update(valid_to=Subquery(began))


def still_true(memory: Memory, now: datetime | None = None) -> bool:
    """Is the memory's fact true now: current (not superseded, not ended) and not expired. An `as_of` search marks
    each result with it, so an agent knows which of the facts true then are no longer."""
    now = now or timezone.now()
    if memory.status == Status.SUPERSEDED or (memory.valid_to is not None and memory.valid_to <= now):
        return False
    return memory.expires_at is None or memory.expires_at > now


def is_expired(memory: Memory, now: datetime | None = None) -> bool:
    return memory.expires_at is not None and memory.expires_at <= (now or timezone.now())


# --- verified_at ------------------------------------------------------------------------------------------------


def mark_verified(*, memory_ids: Collection[int], now: datetime | None = None) -> None:
    """Someone checked these memories just now (a person's confirm or edit, an agent writing the fact again)."""
    if memory_ids:
        Memory.objects.filter(pk__in=list(memory_ids)).update(verified_at=now or timezone.now())
