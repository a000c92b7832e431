"""Importance that fades unless used: effective = importance x rate ** days since last referenced.

The one home of effective importance. Computed at read time, so it is always current and nothing has to run
for it to be right. Every reader goes through here: the model's `Memory.effective_importance`, the decay
sweep (`effective_from_row`), search's candidate rows (`effective_value`) and the dashboard's importance
ordering (`effective_importance_expression`, the same rule as an SQL expression so SQLite can order by it).

The rule, once:
- the moment a memory was last referenced is the later of its last access and its last edit (its creation when
  neither happened; `CLOCK_FIELDS`): a person's edit or restore restarts the clock without counting as a use;
- the rate is the memory's category's if one is configured, else its tier's, else the default (`_rate_tables`);
- a confirmed memory never falls below min(importance, MEMORYHUB_CONFIRMED_FLOOR).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db.models import Case, ExpressionWrapper, F, FloatField, Func, Value, When
from django.db.models.functions import Coalesce, Greatest, Least
from django.utils import timezone

from memoryhub.storage.functions import JulianDay

# The decay clock: the latest of these that is set is the moment the memory was last referenced. Not "the first
# set": undoing a sweep must restart the clock of a memory an agent once used without faking a new use.
CLOCK_FIELDS = ("last_accessed_at", "updated_at", "created_at")
# Effective importance is rounded to this many places. The SQL form is not rounded; a reader that compares it
# with a boundary (a band, the threshold) adds HALF_UNIT first, so both forms fall on the same side of it.
PLACES = 6
HALF_UNIT = 0.5 * 10**-PLACES
# What effective importance needs of a row (for `.values(*EFFECTIVE_FIELDS)` and `.only(...)`).
EFFECTIVE_FIELDS = ("pk", "importance", "category", "tier", "confirmed", *CLOCK_FIELDS)


def _rate_tables() -> list[tuple[str, Mapping[str, float]]]:
    """The configured rates by field, in precedence order: the category's rate wins over the tier's."""
    return [
        ("category", settings.MEMORYHUB_DECAY_CATEGORY_RATES),
        ("tier", settings.MEMORYHUB_DECAY_TIER_RATES),
    ]


def decay_rate(category: str, tier: str) -> float:
    values = {"category": category, "tier": tier}
    for field_name, rates in _rate_tables():
        value = values[field_name]
        if value and value in rates:
            return rates[value]
    return settings.MEMORYHUB_DECAY_DEFAULT_RATE


def fastest_rate() -> float:
    """The lowest configured rate: no memory decays faster (the dashboard's bound on what can fade soon)."""
    return min(
        [settings.MEMORYHUB_DECAY_DEFAULT_RATE, *(rate for _, rates in _rate_tables() for rate in rates.values())]
    )


def last_referenced(last_accessed_at: datetime | None, updated_at: datetime | None, created_at: datetime) -> datetime:
    """The decay clock's start (see CLOCK_FIELDS)."""
    edited = updated_at or created_at
    return max(last_accessed_at, edited) if last_accessed_at else edited


def days_since(moment: datetime, now: datetime | None = None) -> float:
    now = now or timezone.now()
    return max(0.0, (now - moment).total_seconds() / 86400.0)


def decayed(importance: float, rate: float, days: float, confirmed: bool) -> float:
    value = importance * rate**days
    if confirmed:
        value = max(value, min(importance, settings.MEMORYHUB_CONFIRMED_FLOOR))
    return round(value, PLACES)


def effective_value(
    *,
    importance: float,
    category: str,
    tier: str,
    confirmed: bool,
    referenced_at: datetime,
    now: datetime | None = None,
) -> float:
    """Effective importance from a memory's plain values (for callers that read columns, not instances)."""
    return decayed(importance, decay_rate(category, tier), days_since(referenced_at, now), confirmed)


def effective_from_row(row: Mapping[str, Any], now: datetime | None = None) -> float:
    """Effective importance of a `.values(*EFFECTIVE_FIELDS)` row."""
    return effective_value(
        importance=row["importance"],
        category=row["category"],
        tier=row["tier"],
        confirmed=row["confirmed"],
        referenced_at=last_referenced(*(row[name] for name in CLOCK_FIELDS)),
        now=now,
    )


def effective_importance(memory, now: datetime | None = None) -> float:
    return effective_value(
        importance=memory.importance,
        category=memory.category,
        tier=memory.tier,
        confirmed=memory.confirmed,
        referenced_at=memory.last_referenced_at,
        now=now,
    )


def effective_importance_expression(now: datetime | None = None):
    """The same rule as an ORM expression over the memory table, so the database orders 10k rows by it in milliseconds.

    Built from `_rate_tables` and CLOCK_FIELDS like the Python function; `pow` (SQLite: a compile-time
    option) is needed to evaluate it. The value agrees with `effective_importance` to rounding (it is not
    rounded to 6 places), which the tests pin on a grid of memories.
    """
    now = now or timezone.now()
    rate = Case(
        *[
            When(**{field_name: name}, then=Value(value))
            for field_name, rates in _rate_tables()
            for name, value in rates.items()
            if name
        ],
        default=Value(settings.MEMORYHUB_DECAY_DEFAULT_RATE),
        output_field=FloatField(),
    )
    # Greatest of NULL is NULL on SQLite: each side falls back to a field that is always set.
    clock = JulianDay(Greatest(Coalesce(*CLOCK_FIELDS), Coalesce(*CLOCK_FIELDS[1:])))
    now_julian = now.timestamp() / 86400.0 + 2440587.5  # the same instant on SQLite's julianday scale (UTC)
    days = Greatest(Value(0.0), ExpressionWrapper(Value(now_julian) - clock, output_field=FloatField()))
    decayed_value = ExpressionWrapper(F("importance") * Func(rate, days, function="pow"), output_field=FloatField())
    floor = Least(F("importance"), Value(settings.MEMORYHUB_CONFIRMED_FLOOR), output_field=FloatField())
    return Case(
        When(confirmed=True, then=Greatest(decayed_value, floor, output_field=FloatField())),
        default=decayed_value,
        output_field=FloatField(),
    )


def days_below(*, current: float, importance: float, confirmed: bool, rate: float, threshold: float) -> float | None:
    """Days until a memory now at `current` falls below `threshold` if nobody uses it; None if it never will."""
    if current < threshold:
        return 0.0
    if confirmed and min(importance, settings.MEMORYHUB_CONFIRMED_FLOOR) >= threshold:
        return None
    if rate >= 1.0 or current <= 0:
        return None
    return math.log(threshold / current) / math.log(rate)


def days_until_below(memory, threshold: float | None = None, now: datetime | None = None) -> float | None:
    """Days from now until the memory falls below the archive threshold; None if it never will."""
    threshold = settings.MEMORYHUB_ARCHIVE_THRESHOLD if threshold is None else threshold
    return days_below(
        current=effective_importance(memory, now),
        importance=memory.importance,
        confirmed=memory.confirmed,
        rate=decay_rate(memory.category, memory.tier),
        threshold=threshold,
    )
