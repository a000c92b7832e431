"""Reads for the decay page: how today's effective importance is spread, where it goes, what fades next.

The rule itself lives in memoryhub/memories/decay.py; here it is only read. With SQLite's math functions the
database computes it (`effective_importance_expression`) and answers with counts per 0.01 band of effective
importance for each (tier, category) pair: a few hundred rows instead of every memory, so the page costs the
same few milliseconds at 10k memories as at 100. Histograms, medians, the grid and the sweep's preview are all
read from those bands. Without `pow` the same bands are built in Python from `effective_from_row`.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.db.models import Case, Count, F, FloatField, IntegerField, QuerySet, Value, When
from django.db.models.functions import Cast, Floor
from django.utils import timezone

from memoryhub.memories.decay import (
    EFFECTIVE_FIELDS,
    HALF_UNIT,
    days_below,
    decay_rate,
    effective_from_row,
    effective_importance_expression,
    fastest_rate,
)
from memoryhub.models import Category, Memory, MemoryEvent, Status, Tier
from ui.selectors import _sqlite_has_pow

BANDS = 100  # bands of 0.01 over 0..1: medians to within half a band
NONE = "(none)"


@dataclass
class DecayRow:
    memory: Memory
    effective: float
    days_left: float


@dataclass
class DecayTally:
    """Active memories per (tier, category) and 0.01 band of effective importance, and how many are below the
    archive threshold now (what a sweep would archive)."""

    bands: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    due_now: int = 0

    @property
    def total(self) -> int:
        return sum(sum(counts) for counts in self.bands.values())

    def merged(self, *, tier: str | None = None, category: str | None = None) -> list[int]:
        """The bands of every pair with this tier and/or category."""
        out = [0] * BANDS
        for (t, c), counts in self.bands.items():
            if (tier is None or t == tier) and (category is None or c == category):
                out = [a + b for a, b in zip(out, counts, strict=True)]
        return out


def tally(now: datetime | None = None, *, memories: QuerySet[Memory] | None = None) -> DecayTally:
    """The decay figures of `memories` (a person's, from selectors.memories_for; None: the whole store)."""
    memories = Memory.objects.all() if memories is None else memories
    now = now or timezone.now()
    threshold = settings.MEMORYHUB_ARCHIVE_THRESHOLD
    result = DecayTally(bands=defaultdict(lambda: [0] * BANDS))
    if _sqlite_has_pow():
        rows = (
            memories.active()
            .annotate(effective=effective_importance_expression(now))
            .annotate(
                band=Cast(Floor((F("effective") + HALF_UNIT) * BANDS, output_field=FloatField()), IntegerField()),
                below=Case(
                    When(effective__lt=threshold - HALF_UNIT, then=Value(1)),
                    default=Value(0),
                    output_field=IntegerField(),
                ),
            )
            .values_list("tier", "category", "band", "below")
            .annotate(n=Count("pk"))
            .order_by()
        )
        for tier, category, band, below, n in rows:
            result.bands[(tier, category)][min(max(int(band), 0), BANDS - 1)] += n
            result.due_now += n if below else 0
    else:
        for row in memories.active().values(*EFFECTIVE_FIELDS).iterator(chunk_size=5000):
            value = effective_from_row(row, now)
            result.bands[(row["tier"], row["category"])][min(int(value * BANDS), BANDS - 1)] += 1
            result.due_now += value < threshold
    result.bands = dict(result.bands)
    return result


def _display_order(key: str) -> list[str]:
    """Tiers and categories in one order everywhere on the decay page: the model's, "(none)" last."""
    return [*(Tier.values if key == "tier" else Category.values), NONE]


def distribution(counts: DecayTally, key: str, bins: int = 10) -> dict[str, list[int]]:
    """Histogram of effective importance (bins of equal width over 0..1) per tier or per category."""
    out: dict[str, list[int]] = defaultdict(lambda: [0] * bins)
    for (tier, category), bands in counts.bands.items():
        label = (tier if key == "tier" else category) or NONE
        for band, n in enumerate(bands):
            out[label][band * bins // BANDS] += n
    order = _display_order(key)
    return {name: out[name] for name in sorted(out, key=lambda n: (order.index(n) if n in order else len(order), n))}


def band_median(bands: list[int]) -> float | None:
    """The middle memory's band (its centre), as the median of the values the bands count."""
    total = sum(bands)
    if not total:
        return None
    seen = 0
    for band, n in enumerate(bands):
        seen += n
        if seen > total // 2:
            return round((band + 0.5) / BANDS, 3)
    return None


def tier_curves(counts: DecayTally) -> list[dict]:
    """Per tier: today's median effective importance and the tier's own rate (what a memory of that tier decays
    at when its category has no rate of its own). Every tier, with or without memories (then from 0.5)."""
    curves = []
    for tier in Tier.values:
        bands = counts.merged(tier=tier)
        curves.append(
            {"tier": tier, "count": sum(bands), "start": band_median(bands) or 0.5, "rate": decay_rate("", tier)}
        )
    return curves


def category_curves(counts: DecayTally) -> list[dict]:
    """Per category: today's median effective importance and where it goes over the next 90 days.

    The curve follows the category's decay rate (a memory nobody uses); the tier rate applies where the
    category has none, so the curve uses the most common tier of that category's memories.
    """
    curves = []
    for category in [*Category.values, ""]:
        bands = counts.merged(category=category)
        n = sum(bands)
        if not category and not n:
            continue  # "(none)" is not a category: show it only when some memories have no category
        tiers = Counter({t: sum(b) for (t, c), b in counts.bands.items() if c == category})
        tier = tiers.most_common(1)[0][0] if n else ""
        curves.append(
            {
                "category": category or NONE,
                "count": n,
                "start": band_median(bands) or 0.5,
                "rate": decay_rate(category, tier),
            }
        )
    return curves


@dataclass
class GridCell:
    count: int
    median: float | None
    rate: float


def tier_category_grid(counts: DecayTally) -> dict:
    """Tier x category: how many active memories, their median effective importance, and the rate that applies
    (decay.decay_rate: the category's if it has one, else the tier's). Columns are the categories in use."""
    used = {category for _, category in counts.bands}
    columns = [c for c in [*Category.values, ""] if c in used] or list(Category.values)
    tiers = [t for t in [*Tier.values, ""] if t or any(k[0] == "" for k in counts.bands)]
    empty = [0] * BANDS
    rows = []
    for tier in tiers:
        cells = []
        for category in columns:
            bands = counts.bands.get((tier, category), empty)
            cells.append(GridCell(sum(bands), band_median(bands), decay_rate(category, tier)))
        rows.append({"tier": tier or NONE, "cells": cells})
    return {"columns": [c or NONE for c in columns], "rows": rows}


def falling_soon(
    within_days: float = 7.0,
    limit: int = 25,
    now: datetime | None = None,
    *,
    memories: QuerySet[Memory] | None = None,
    below_total: int | None = None,
) -> tuple[list[DecayRow], int]:
    """Active memories whose effective importance drops below the archive threshold within the window, soonest
    first (those already below, lowest first): the first `limit` (their rows loaded) and how many in all.

    Only memories that could fall that far are looked at: at the fastest configured rate, anything now above
    threshold / rate**days stays above the threshold for the whole window. Those already below are counted
    and the lowest `limit` of them read, not all of them (after a long pause that can be most of the store).
    """
    now = now or timezone.now()
    memories = Memory.objects.all() if memories is None else memories
    threshold = settings.MEMORYHUB_ARCHIVE_THRESHOLD
    fastest = fastest_rate()
    reach = threshold / fastest**within_days if fastest > 0 else float("inf")
    fields = ("pk", "category", "tier", "confirmed", "importance")
    found: list[tuple[float, float, int]] = []
    if _sqlite_has_pow():
        rows = memories.active().annotate(effective=effective_importance_expression(now))
        below = rows.filter(effective__lt=threshold - HALF_UNIT)
        # The caller may know the count already (the page's tally counts the same rows by the same rule).
        below_total = below.count() if below_total is None else below_total
        found = [
            (0.0, round(v, 6), pk) for pk, v in below.order_by("effective", "pk").values_list("pk", "effective")[:limit]
        ]
        candidates = rows.filter(effective__gte=threshold - HALF_UNIT, effective__lt=reach).values_list(
            *fields, "effective"
        )
    else:
        below_total = 0  # the scan below meets those already below too
        candidates = [
            (*(row[f] for f in fields), effective_from_row(row, now))
            for row in memories.active().values(*EFFECTIVE_FIELDS).iterator(chunk_size=5000)
        ]
    for pk, category, tier, confirmed, importance, value in candidates:
        value = round(value, 6)
        days = days_below(
            current=value,
            importance=importance,
            confirmed=confirmed,
            rate=decay_rate(category, tier),
            threshold=threshold,
        )
        if days is not None and days <= within_days:
            found.append((round(days, 1), value, pk))
    total = below_total + len(found) - min(below_total, limit)
    found.sort()
    shown = found[:limit]
    loaded = memories.in_bulk([pk for _, _, pk in shown])
    return [DecayRow(loaded[pk], value, days) for days, value, pk in shown if pk in loaded], total


def recently_archived(*, memories: QuerySet[Memory], limit: int = 20) -> list[tuple[Memory, MemoryEvent]]:
    """Archived memories, latest first, with the event that archived them (a sweep, a person, a merge).

    Archiving leaves `updated_at` alone (it is the decay clock), so the history says when it happened.
    """
    events = MemoryEvent.objects.filter(
        action__in=["archived", "merged"], memory_id__in=memories.filter(status=Status.ARCHIVED).values("pk")
    ).order_by("-created_at", "-id")[: limit * 4]
    latest: dict[int, MemoryEvent] = {}
    for event in events:
        latest.setdefault(event.memory_id, event)
    archived = memories.filter(pk__in=list(latest), status=Status.ARCHIVED).in_bulk()
    ordered = [(archived[mid], event) for mid, event in latest.items() if mid in archived]
    return ordered[:limit]
