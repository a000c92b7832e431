"""Importance that fades unless used: effective = importance x rate ** days since last referenced.

Computed at read time, so it is always current and nothing has to run for it to be right. The rate comes
from the memory's category if one is configured, else its tier, else the default.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.utils import timezone


def decay_rate(category: str, tier: str) -> float:
    if category and category in settings.MEMORYHUB_DECAY_CATEGORY_RATES:
        return settings.MEMORYHUB_DECAY_CATEGORY_RATES[category]
    if tier and tier in settings.MEMORYHUB_DECAY_TIER_RATES:
        return settings.MEMORYHUB_DECAY_TIER_RATES[tier]
    return settings.MEMORYHUB_DECAY_DEFAULT_RATE


def days_since(moment: datetime, now: datetime | None = None) -> float:
    now = now or timezone.now()
    return max(0.0, (now - moment).total_seconds() / 86400.0)


def decayed(importance: float, rate: float, days: float, confirmed: bool) -> float:
    value = importance * rate**days
    if confirmed:
        value = max(value, min(importance, settings.MEMORYHUB_CONFIRMED_FLOOR))
    return round(value, 6)


def effective_importance(memory, now: datetime | None = None) -> float:
    return decayed(
        memory.importance,
        decay_rate(memory.category, memory.tier),
        days_since(memory.last_referenced_at, now),
        memory.confirmed,
    )


def days_until_below(memory, threshold: float | None = None, now: datetime | None = None) -> float | None:
    """Days from now until the memory falls below the archive threshold; None if it never will."""
    import math

    threshold = settings.MEMORYHUB_ARCHIVE_THRESHOLD if threshold is None else threshold
    current = effective_importance(memory, now)
    if current < threshold:
        return 0.0
    if memory.confirmed and min(memory.importance, settings.MEMORYHUB_CONFIRMED_FLOOR) >= threshold:
        return None
    rate = decay_rate(memory.category, memory.tier)
    if rate >= 1.0 or current <= 0:
        return None
    return math.log(threshold / current) / math.log(rate)
