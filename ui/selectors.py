"""Reads for the dashboard: the filtered memory list, a memory's neighbours, decay figures, counts.

Nothing here writes. Search goes through memoryhub.retrieval.search without reinforcing: a person browsing is not use.
"""

from __future__ import annotations

import functools
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.core.paginator import Page, Paginator
from django.db import OperationalError
from django.db.models import (
    Avg,
    Count,
    Func,
    Max,
    Q,
    QuerySet,
    Sum,
    Value,
)
from django.db.models.functions import TruncDate
from django.utils import timezone

from memoryhub.memories.decay import (
    EFFECTIVE_FIELDS,
    days_below,
    decay_rate,
    effective_from_row,
    effective_importance_expression,
)
from memoryhub.memories.selectors import filter_memories
from memoryhub.models import (
    Category,
    GateLogEntry,
    Memory,
    MemoryEvent,
    Proposal,
    ProposalStatus,
    Status,
    Tier,
    UsageRecord,
)
from memoryhub.storage import sql

PAGE_SIZE = 25  # a screenful to curate; rendering and the search's k both grow with it
SEARCH_LIMIT = 100  # the search's own limit; a person reads the first pages of a search, not the thousandth hit
GLOBAL = "-"  # the project filter's value for memories without a project
SORTS = {"": "Default", "relevance": "Relevance", "recent": "Newest", "importance": "Importance", "used": "Most used"}


@dataclass
class MemoryFilters:
    q: str = ""
    project: str = ""
    category: str = ""
    tier: str = ""
    tag: str = ""
    source: str = ""
    status: str = Status.ACTIVE  # "all" for both
    confirmed: str = ""  # "yes" / "no"
    sort: str = ""
    page: int = 1

    @property
    def effective_sort(self) -> str:
        if self.sort == "relevance" and not self.q:
            return "recent"
        return self.sort or ("relevance" if self.q else "recent")


@dataclass
class MemoryListing:
    page: Page
    total: int
    searched: bool
    scores: dict[int, float] = field(default_factory=dict)
    explains: dict[int, dict] = field(default_factory=dict)  # per hit: how it matched (search's `explain`)
    exact: bool = True  # False: a search that stopped at its limit, so more matches may exist


def _filtered(filters: MemoryFilters) -> QuerySet[Memory]:
    return filter_memories(
        project=filters.project if filters.project != GLOBAL else None,
        globals_only=filters.project == GLOBAL,
        category=filters.category,
        tier=filters.tier,
        tag=filters.tag,
        source=filters.source,
        status=None if filters.status == "all" else filters.status,
        confirmed=(filters.confirmed == "yes") if filters.confirmed else None,
    )


@functools.cache
def _sqlite_has_pow() -> bool:
    """SQLite's math functions are a compile-time option; every build we ship has them, but say so if not."""
    try:
        list(Memory.objects.annotate(x=Func(Value(2.0), Value(2.0), function="pow")).values_list("x")[:1])
        return True
    except OperationalError:
        return False


def _by_importance(rows: QuerySet[Memory]) -> QuerySet[Memory] | list[int]:
    if _sqlite_has_pow():
        return rows.annotate(effective=effective_importance_expression()).order_by("-effective", "-pk")
    # Fallback: the same order computed in Python (slower at 10k rows, same result).
    pairs = [(m.effective_importance, m.pk) for m in rows.only(*EFFECTIVE_FIELDS)]
    return [pk for _, pk in sorted(pairs, key=lambda p: (-p[0], -p[1]))]


def _page_of_ids(ids: list[int], number: int, known: dict[int, Memory] | None = None) -> Page:
    """Paginate ids, then load only the memories of the page shown (unless the search already loaded them)."""
    page = Paginator(ids, PAGE_SIZE).get_page(number)
    wanted = list(page.object_list)
    by_id = {i: known[i] for i in wanted if i in known} if known else {}
    if len(by_id) < len(wanted):
        by_id |= Memory.objects.in_bulk([i for i in wanted if i not in by_id])
    page.object_list = [by_id[i] for i in page.object_list if i in by_id]
    return page


def _search(filters: MemoryFilters, k: int) -> tuple[list[int], dict[int, float], bool, dict[int, Memory], dict]:
    from memoryhub.retrieval.search import search_memories

    common = {
        "query": filters.q,
        "k": k,
        "category": filters.category or None,
        "tier": filters.tier or None,
        "source": filters.source or None,
        "status": None if filters.status == "all" else filters.status,
        "reinforce_results": False,
    }
    if filters.project == GLOBAL:
        scope: dict = {"project": None}
    elif filters.project:
        scope = {"project": filters.project}
    else:
        scope = {"project": None, "every_project": True}  # the dashboard sees every project at once
    if filters.tag:
        scope["tags"] = [filters.tag]
    hits = search_memories(**scope, **common)
    memories = {hit.memory.pk: hit.memory for hit in hits}
    scores = {hit.memory.pk: hit.score for hit in hits}
    explains = {hit.memory.pk: hit.explain for hit in hits}
    ids = sorted(scores, key=lambda pk: (-scores[pk], pk))
    exhausted = len(ids) < k
    # The search knows no "confirmed" filter and a project's search includes the globals: keep what the list would.
    if filters.confirmed:
        ids = [pk for pk in ids if memories[pk].confirmed == (filters.confirmed == "yes")]
    if filters.project and filters.project != GLOBAL:
        ids = [pk for pk in ids if memories[pk].project == filters.project]
    return ids, scores, exhausted, memories, explains


def list_memories(filters: MemoryFilters) -> MemoryListing:
    listing = _list_memories(filters)
    listing.page.object_list = explain_archived(list(listing.page.object_list))
    return listing


def _list_memories(filters: MemoryFilters) -> MemoryListing:
    sort = filters.effective_sort
    if filters.q.strip():
        # Ask the search for the pages up to this one and one more hit (which tells whether a next page exists):
        # its cost grows with k, and most searches are read on their first page.
        k = min(SEARCH_LIMIT, PAGE_SIZE * max(1, filters.page) + 1)
        ids, scores, exhausted, memories, explains = _search(filters, k)
        if sort != "relevance":
            ids = _reorder(ids, sort)
        page = _page_of_ids(ids, filters.page, memories)
        for memory in page.object_list:
            memory.match = explains.get(memory.pk) or {}
        return MemoryListing(
            page=page, total=len(ids), searched=True, scores=scores, explains=explains, exact=exhausted
        )
    rows = _filtered(filters)
    if sort == "importance":
        ordered = _by_importance(rows)
        if isinstance(ordered, list):
            return MemoryListing(page=_page_of_ids(ordered, filters.page), total=len(ordered), searched=False)
        page = Paginator(ordered, PAGE_SIZE).get_page(filters.page)
        return MemoryListing(page=page, total=page.paginator.count, searched=False)
    ordering = ("-access_count", "-last_accessed_at", "-pk") if sort == "used" else ("-created_at", "-pk")
    page = Paginator(rows.order_by(*ordering), PAGE_SIZE).get_page(filters.page)
    return MemoryListing(page=page, total=page.paginator.count, searched=False)


def explain_archived(memories: list[Memory]) -> list[Memory]:
    """Give each archived memory `archived_why` (a short chip: decayed, merged into #n, by a person) and
    `archived_note` (the full note of the event that archived it), read from its history in one query."""
    archived = [m for m in memories if m.status == Status.ARCHIVED]
    if not archived:
        return memories
    events = MemoryEvent.objects.filter(
        memory_id__in=[m.pk for m in archived], action__in=["archived", "merged"]
    ).order_by("memory_id", "-created_at", "-id")
    latest: dict[int, MemoryEvent] = {}
    for event in events.only("memory_id", "action", "actor", "note", "after"):
        latest.setdefault(event.memory_id, event)
    for memory in archived:
        event = latest.get(memory.pk)
        if event is None:
            memory.archived_why, memory.archived_note = "", ""
        elif event.action == "merged" or memory.merged_into_id:
            memory.archived_why = f"merged into #{memory.merged_into_id}" if memory.merged_into_id else "merged"
            memory.archived_note = event.note
        elif event.note.startswith("decayed"):
            memory.archived_why, memory.archived_note = "decayed", event.note
        else:
            memory.archived_why = f"by {event.actor.removeprefix('ui:')}" if event.actor else "by hand"
            memory.archived_note = event.note
    return memories


def _reorder(ids: list[int], sort: str) -> list[int]:
    rows = Memory.objects.filter(pk__in=ids)
    if sort == "importance":
        ordered = _by_importance(rows)
        return ordered if isinstance(ordered, list) else list(ordered.values_list("pk", flat=True))
    ordering = ("-access_count", "-last_accessed_at", "-pk") if sort == "used" else ("-created_at", "-pk")
    return list(rows.order_by(*ordering).values_list("pk", flat=True))


def filter_choices() -> dict[str, list]:
    """Values for the filter menus. Kept a minute: a scan of every row's source is not worth doing per page view,
    and a project or agent that appeared in the last minute is still found by typing its filter in the URL."""
    from django.core.cache import cache

    choices = cache.get("ui:filter-choices")
    if choices is None:
        projects = sorted(p for p in Memory.objects.values_list("project", flat=True).distinct() if p)
        sources = sorted(s for s in Memory.objects.values_list("source", flat=True).distinct() if s)
        choices = {"projects": projects, "sources": sources, "categories": Category.values, "tiers": Tier.values}
        cache.set("ui:filter-choices", choices, 60)
    return choices


def nav_counts() -> dict[str, int]:
    by_status = dict(Memory.objects.values_list("status").annotate(n=Count("pk")))
    return {
        "active": by_status.get(Status.ACTIVE, 0),
        "archived": by_status.get(Status.ARCHIVED, 0),
        "pending": Proposal.objects.filter(status=ProposalStatus.PENDING).count(),
    }


# --- a memory's page -------------------------------------------------------------------------------------------


def history(memory_id: int) -> list[MemoryEvent]:
    return list(MemoryEvent.objects.filter(memory_id=memory_id).order_by("created_at", "id"))


def similar_memories(memory: Memory, k: int = 8) -> list[tuple[DecayFacts, float]]:
    """The nearest memories by vector (any project, any status), with cosine similarity."""
    from memoryhub.embeddings import get_embedder

    if not memory.embed_model:
        return []
    dimensions = get_embedder().dimensions
    vector = sql.read_vectors([memory.pk], dimensions).get(memory.pk)
    if vector is None:
        return []
    neighbours = [(pk, distance) for pk, distance in sql.knn(vector, k + 1) if pk != memory.pk][:k]
    by_id = Memory.objects.in_bulk([pk for pk, _ in neighbours])
    return [(by_id[pk], round(1.0 - distance, 3)) for pk, distance in neighbours if pk in by_id]


# --- decay -----------------------------------------------------------------------------------------------------


@dataclass
class DecayRow:
    memory: Memory
    effective: float
    days_left: float


@dataclass(frozen=True, slots=True)
class DecayFacts:
    """What the decay page needs of an active memory; the full row is loaded only for the few it lists."""

    pk: int
    category: str
    tier: str
    confirmed: bool
    importance: float


def active_effective(now: datetime | None = None) -> list[tuple[DecayFacts, float]]:
    """Every active memory's decay facts with its effective importance now.

    SQLite computes the value (decay.effective_importance_expression, the rule's SQL form): 10k rows in a few
    milliseconds, where building 10k model instances and computing in Python took most of a second. Without
    SQLite's `pow`, the same rule in Python (decay.effective_from_row).
    """
    now = now or timezone.now()
    rows = Memory.objects.active()
    fields = ("pk", "category", "tier", "confirmed", "importance")
    if _sqlite_has_pow():
        values = rows.annotate(effective=effective_importance_expression(now)).values_list(*fields, "effective")
        return [(DecayFacts(*row[:5]), round(row[5], 6)) for row in values.iterator(chunk_size=5000)]
    return [
        (DecayFacts(*(row[f] for f in fields)), effective_from_row(row, now))
        for row in rows.values(*EFFECTIVE_FIELDS).iterator(chunk_size=5000)
    ]


NONE = "(none)"


def _display_order(key: str) -> list[str]:
    """Tiers and categories in one order everywhere on the decay page: the model's, "(none)" last."""
    return [*(Tier.values if key == "tier" else Category.values), NONE]


def distribution(pairs: list[tuple[DecayFacts, float]], key: str, bins: int = 10) -> dict[str, list[int]]:
    """Histogram of effective importance (bins of equal width over 0..1) per tier or per category."""
    out: dict[str, list[int]] = defaultdict(lambda: [0] * bins)
    for memory, value in pairs:
        label = getattr(memory, key) or NONE
        out[label][min(int(value * bins), bins - 1)] += 1
    order = _display_order(key)
    return {name: out[name] for name in sorted(out, key=lambda n: (order.index(n) if n in order else len(order), n))}


def _median(values: list[float]) -> float | None:
    values = sorted(values)
    return values[len(values) // 2] if values else None


def tier_curves(pairs: list[tuple[DecayFacts, float]]) -> list[dict]:
    """Per tier: today's median effective importance and the tier's own rate (what a memory of that tier decays
    at when its category has no rate of its own). Every tier, with or without memories (then from 0.5)."""
    groups: dict[str, list[float]] = defaultdict(list)
    for memory, value in pairs:
        groups[memory.tier].append(value)
    return [
        {
            "tier": tier,
            "count": len(groups.get(tier, [])),
            "start": _median(groups.get(tier, [])) or 0.5,
            "rate": decay_rate("", tier),
        }
        for tier in Tier.values
    ]


@dataclass
class GridCell:
    count: int
    median: float | None
    rate: float


def tier_category_grid(pairs: list[tuple[DecayFacts, float]]) -> dict:
    """Tier x category: how many active memories, their median effective importance, and the rate that applies
    (decay.decay_rate: the category's if it has one, else the tier's). Columns are the categories in use."""
    groups: dict[tuple[str, str], list[float]] = defaultdict(list)
    for memory, value in pairs:
        groups[(memory.tier, memory.category)].append(value)
    used = {category for _, category in groups}
    columns = [c for c in [*Category.values, ""] if c in used] or list(Category.values)
    tiers = [t for t in [*Tier.values, ""] if t or any(k[0] == "" for k in groups)]
    rows = [
        {
            "tier": tier or NONE,
            "cells": [
                GridCell(len(groups[(tier, c)]), _median(groups[(tier, c)]), decay_rate(c, tier)) for c in columns
            ],
        }
        for tier in tiers
    ]
    return {"columns": [c or NONE for c in columns], "rows": rows}


def category_curves(pairs: list[tuple[DecayFacts, float]]) -> list[dict]:
    """Per category: today's median effective importance and where it goes over the next 90 days.

    The curve follows the category's decay rate (a memory nobody uses); the tier rate applies where the
    category has none, so the curve uses the most common tier of that category's memories.
    """
    groups: dict[str, list[tuple[DecayFacts, float]]] = defaultdict(list)
    for memory, value in pairs:
        groups[memory.category].append((memory, value))
    curves = []
    for category in [*Category.values, ""]:
        members = groups.get(category, [])
        values = sorted(v for _, v in members)
        start = values[len(values) // 2] if values else 0.5
        tier = Counter(m.tier for m, _ in members).most_common(1)[0][0] if members else ""
        rate = decay_rate(category, tier)
        if not category and not members:
            continue  # "(none)" is not a category: show it only when some memories have no category
        curves.append({"category": category or NONE, "count": len(members), "start": start, "rate": rate})
    return curves


def falling_soon(
    pairs: list[tuple[DecayFacts, float]], within_days: float = 7.0, limit: int = 25
) -> tuple[list[DecayRow], int]:
    """Active memories whose effective importance drops below the archive threshold within the window, soonest
    first: the first `limit` (their rows loaded) and how many there are in all."""
    threshold = settings.MEMORYHUB_ARCHIVE_THRESHOLD
    all_rates = [
        settings.MEMORYHUB_DECAY_DEFAULT_RATE,
        *settings.MEMORYHUB_DECAY_TIER_RATES.values(),
        *settings.MEMORYHUB_DECAY_CATEGORY_RATES.values(),
    ]
    # A memory that stays above the threshold for the window even at the fastest rate needs no closer look.
    safe_above = threshold / min(all_rates) ** within_days if min(all_rates) > 0 else float("inf")
    rates: dict[tuple[str, str], float] = {}  # a handful of (category, tier) pairs among thousands of memories
    found = []
    for memory, value in pairs:
        if value >= safe_above:
            continue
        key = (memory.category, memory.tier)
        if key not in rates:
            rates[key] = decay_rate(*key)
        days = days_below(
            current=value,
            importance=memory.importance,
            confirmed=memory.confirmed,
            rate=rates[key],
            threshold=threshold,
        )
        if days is not None and days <= within_days:
            found.append((round(days, 1), value, memory.pk))
    found.sort()
    shown = found[:limit]
    memories = Memory.objects.in_bulk([pk for _, _, pk in shown])
    return [DecayRow(memories[pk], value, days) for days, value, pk in shown if pk in memories], len(found)


def recently_archived(limit: int = 20) -> list[tuple[Memory, MemoryEvent]]:
    """Archived memories, latest first, with the event that archived them (a sweep, a person, a merge).

    Archiving leaves `updated_at` alone (it is the decay clock), so the history says when it happened.
    """
    events = MemoryEvent.objects.filter(action__in=["archived", "merged"]).order_by("-created_at", "-id")[: limit * 4]
    latest: dict[int, MemoryEvent] = {}
    for event in events:
        latest.setdefault(event.memory_id, event)
    memories = Memory.objects.filter(pk__in=list(latest), status=Status.ARCHIVED).in_bulk()
    ordered = [(memories[mid], event) for mid, event in latest.items() if mid in memories]
    return ordered[:limit]


# --- gate log and overview --------------------------------------------------------------------------------------


def gate_entries(decision: str = "") -> QuerySet[GateLogEntry]:
    rows = GateLogEntry.objects.select_related("memory", "promoted_to").order_by("-created_at", "-id")
    return rows.filter(decision=decision) if decision else rows


def counts_by(field_name: str) -> list[tuple[str, int]]:
    rows = Memory.objects.values_list(field_name).annotate(n=Count("pk")).order_by("-n", field_name)
    return [(value or "", n) for value, n in rows]


def usage_by_agent() -> tuple[list[str], list[dict]]:
    """Per agent: how many calls of each kind (write, search, recall, ...), from the usage records."""
    rows = UsageRecord.objects.values_list("agent", "kind").annotate(n=Count("pk")).order_by("agent", "kind")
    kinds = sorted({kind for _, kind, _ in rows})
    table: dict[str, dict[str, int]] = defaultdict(dict)
    for agent, kind, n in rows:
        table[agent][kind] = n
    return kinds, [
        {"agent": a, "counts": [table[a].get(k, 0) for k in kinds], "total": sum(table[a].values())}
        for a in sorted(table)
    ]


def proxy_usage_by_day(days: int = 14) -> list[dict]:
    """What the chat proxy did per day and agent over the last `days` days, newest day first: requests, recall
    characters injected, memory tool calls, upstream tokens, average latency; `share` is the requests as a
    fraction of the busiest row's, for the bar."""
    since = timezone.now() - timedelta(days=days)
    rows = list(
        UsageRecord.objects.filter(kind="proxy", created_at__gte=since)
        .annotate(day=TruncDate("created_at"))
        .values("day", "agent")
        .annotate(
            requests=Count("pk"),
            recall_chars=Sum("recall_chars"),
            tool_calls=Sum("tool_calls"),
            prompt_tokens=Sum("prompt_tokens"),
            completion_tokens=Sum("completion_tokens"),
            latency_ms=Avg("latency_ms"),
        )
        .order_by("-day", "agent")
    )
    busiest = max((row["requests"] for row in rows), default=1)
    for row in rows:
        row["share"] = row["requests"] / busiest
        row["label"] = f"{row['requests']} requests"
        row["latency_ms"] = round(row["latency_ms"] or 0.0)
    return rows


def per_day(rows: QuerySet, field_name: str, days: int) -> dict[tuple, int]:
    """Counts per (day, value of `field_name`) over the last `days` days, by the rows' created_at (UTC days)."""
    since = timezone.now() - timedelta(days=days)
    counted = (
        rows.filter(created_at__gte=since)
        .annotate(day=TruncDate("created_at"))
        .values_list("day", field_name)
        .annotate(n=Count("pk"))
    )
    return {(day, value): n for day, value, n in counted}


def gate_outcomes_by_day(days: int = 30) -> dict[tuple, int]:
    return per_day(GateLogEntry.objects.all(), "decision", days)


def proposals_by_day(days: int = 30) -> dict[tuple, int]:
    """Proposals made per day, split by what became of them (pending, accepted, rejected, undone, stale)."""
    return per_day(Proposal.objects.all(), "status", days)


def recall_usage_by_project() -> dict[str | None, dict]:
    """Average and last recall block size per project, from what the agents were actually sent."""
    rows = (
        UsageRecord.objects.filter(Q(kind="recall") & Q(recall_chars__gt=0))
        .values("project")
        .annotate(avg=Avg("recall_chars"), biggest=Max("recall_chars"), n=Count("pk"))
    )
    return {row["project"]: row for row in rows}
