"""Importance that fades unless used: what the decay sweep and the dashboard ask of the rule (how many days until a
memory falls below the archive threshold, the fastest configured rate).

The rule itself, effective = importance x rate ** days since last referenced, has one home: memoryhub/models.py,
beside the row it describes and on the floor below the domain, so `Memory.effective_importance` needs no import
upward. It is named again here (`from memoryhub.memories.decay import effective_importance`) for its readers.
"""

from __future__ import annotations

import math
from datetime import datetime

from django.conf import settings

from memoryhub.models import (  # the rule itself, named here for its readers (see the docstring)
    CLOCK_FIELDS,
    EFFECTIVE_FIELDS,
    HALF_UNIT,
    PLACES,
    DecayRates,
    days_since,
    decay_rate,
    decayed,
    effective_from_row,
    effective_importance,
    effective_importance_expression,
    effective_value,
    last_referenced,
    rate_tables,
)

__all__ = [
    "CLOCK_FIELDS", "EFFECTIVE_FIELDS", "HALF_UNIT", "PLACES", "DecayRates", "days_below", "days_since",
    "days_until_below", "decay_rate", "decayed", "effective_from_row", "effective_importance",
    "effective_importance_expression", "effective_value", "fastest_rate", "last_referenced", "rate_tables",
]  # fmt: skip


def fastest_rate() -> float:
    """The lowest configured rate: no memory decays faster (the dashboard's bound on what can fade soon)."""
    return min(
        [settings.MEMORYHUB_DECAY_DEFAULT_RATE, *(rate for _, rates in rate_tables() for rate in rates.values())]
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
