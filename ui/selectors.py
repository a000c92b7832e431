"""Reads for the dashboard: the filtered memory list, a memory's neighbours, decay figures, counts.

Nothing here writes. Search goes through memoryhub.retrieval.search without reinforcing: a person browsing is not use.
Every read starts from `memories_for(access)` or `scoped(access, rows)`: what a person sees is decided there only.
"""

from __future__ import annotations

import functools
import hashlib
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import timedelta

from django.core.paginator import Page, Paginator
from django.db import OperationalError
from django.db.models import (
    Avg,
    Count,
    F,
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
from memoryhub.people.roles import Access, Action
from memoryhub.retrieval.neighbours import nearest_memories
from memoryhub.retrieval.search import MemoryFilter, search_memories

PAGE_SIZE = 25  # a screenful to curate; rendering and the search's k both grow with it
SEARCH_LIMIT = 100  # the search's own limit; a person reads the first pages of a search, not the thousandth hit
GLOBAL = "-"  # the project filter's value for memories without a project
SORTS = {
    "": "Default",
    "relevance": "Relevance",
    "recent": "Newest",
    "importance": "Importance",
    "used": "Most used",
    "last_used": "Last use",
}
# The orders a list takes by a column; never-used memories go last when sorting by last use.
ORDERINGS = {
    "used": ("-access_count", F("last_accessed_at").desc(nulls_last=True), "-pk"),
    "last_used": (F("last_accessed_at").desc(nulls_last=True), "-pk"),
    "recent": ("-created_at", "-pk"),
}


def memories_for(access: Access, action: Action = Action.READ) -> QuerySet[Memory]:
    """The memories this person may `action` (read: their projects and the globals). Every dashboard read of
    memories starts here."""
    return Memory.objects.filter(access.rows(action))


def scoped(access: Access, rows: QuerySet) -> QuerySet:
    """Rows of any table with a `project` column (proposals, gate log, usage), narrowed to what the person sees."""
    return rows.filter(access.rows(Action.READ))


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

    @property
    def applied(self) -> int:
        """How many filters narrow the list (the phone's "Filters (n)"): the search and the order are not filters."""
        narrowing = (self.project, self.category, self.tier, self.tag, self.source, self.confirmed)
        return sum(1 for value in narrowing if value) + (self.status != Status.ACTIVE)


@dataclass
class MemoryListing:
    page: Page
    total: int
    searched: bool
    scores: dict[int, float] = field(default_factory=dict)
    explains: dict[int, dict] = field(default_factory=dict)  # per hit: how it matched (search's `explain`)
    exact: bool = True  # False: a search that stopped at its limit, so more matches may exist


def _filtered(filters: MemoryFilters, access: Access) -> QuerySet[Memory]:
    return filter_memories(
        project=filters.project if filters.project != GLOBAL else None,
        globals_only=filters.project == GLOBAL,
        category=filters.category,
        tier=filters.tier,
        tag=filters.tag,
        source=filters.source,
        status=None if filters.status == "all" else filters.status,
        confirmed=(filters.confirmed == "yes") if filters.confirmed else None,
    ).filter(access.rows(Action.READ))


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


def _search(
    filters: MemoryFilters, k: int, access: Access
) -> tuple[list[int], dict[int, float], bool, dict[int, Memory], dict]:
    # One project means its own memories here, as in the list: the dashboard leaves the globals out of it.
    within = MemoryFilter(
        visible_from=None if filters.project == GLOBAL else filters.project or None,
        globals_too=False,
        every_project=not filters.project,  # no project chosen: the dashboard sees every project at once
        allowed_projects=access.projects_for(Action.READ),
        status=None if filters.status == "all" else filters.status or None,
        category=filters.category or None,
        tier=filters.tier or None,
        source=filters.source or None,
        tags=[filters.tag] if filters.tag else None,
    )
    hits = search_memories(query=filters.q, within=within, k=k, reinforce_results=False)
    memories = {hit.memory.pk: hit.memory for hit in hits}
    scores = {hit.memory.pk: hit.score for hit in hits}
    explains = {hit.memory.pk: hit.explain for hit in hits}
    ids = sorted(scores, key=lambda pk: (-scores[pk], pk))
    exhausted = len(ids) < k
    # The search knows no "confirmed" filter: keep what the list would.
    if filters.confirmed:
        ids = [pk for pk in ids if memories[pk].confirmed == (filters.confirmed == "yes")]
    return ids, scores, exhausted, memories, explains


def list_memories(filters: MemoryFilters, access: Access) -> MemoryListing:
    listing = _list_memories(filters, access)
    listing.page.object_list = explain_superseded(explain_archived(list(listing.page.object_list)), access)
    return listing


def _list_memories(filters: MemoryFilters, access: Access) -> MemoryListing:
    sort = filters.effective_sort
    if filters.q.strip():
        # Ask the search for the pages up to this one and one more hit (which tells whether a next page exists):
        # its cost grows with k, and most searches are read on their first page.
        k = min(SEARCH_LIMIT, PAGE_SIZE * max(1, filters.page) + 1)
        ids, scores, exhausted, memories, explains = _search(filters, k, access)
        if sort != "relevance":
            ids = _reorder(ids, sort)
        page = _page_of_ids(ids, filters.page, memories)
        for memory in page.object_list:
            memory.match = explains.get(memory.pk) or {}
        return MemoryListing(
            page=page, total=len(ids), searched=True, scores=scores, explains=explains, exact=exhausted
        )
    rows = _filtered(filters, access)
    if sort == "importance":
        ordered = _by_importance(rows)
        if isinstance(ordered, list):
            return MemoryListing(page=_page_of_ids(ordered, filters.page), total=len(ordered), searched=False)
        page = Paginator(ordered, PAGE_SIZE).get_page(filters.page)
        return MemoryListing(page=page, total=page.paginator.count, searched=False)
    page = Paginator(rows.order_by(*ORDERINGS.get(sort, ORDERINGS["recent"])), PAGE_SIZE).get_page(filters.page)
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


def explain_superseded(memories: list[Memory], access: Access) -> list[Memory]:
    """Give each superseded memory `successor` (the memory that replaced it, if the person's page can load it) and
    `superseded_why` (the reason the link was made, from the event that made it), in two queries."""
    superseded = [m for m in memories if m.status == Status.SUPERSEDED and m.superseded_by_id]
    if not superseded:
        return memories
    successors = memories_for(access).in_bulk([m.superseded_by_id for m in superseded])
    events = MemoryEvent.objects.filter(memory_id__in=[m.pk for m in superseded], action="superseded").order_by(
        "memory_id", "-created_at", "-id"
    )
    notes: dict[int, str] = {}
    for memory_id, note in events.values_list("memory_id", "note"):
        notes.setdefault(memory_id, note)
    for memory in superseded:
        memory.successor = successors.get(memory.superseded_by_id)
        note = notes.get(memory.pk, "")
        memory.superseded_why = note.split(": ", 1)[1] if ": " in note else ""
    return memories


def _reorder(ids: list[int], sort: str) -> list[int]:
    rows = Memory.objects.filter(pk__in=ids)
    if sort == "importance":
        ordered = _by_importance(rows)
        return ordered if isinstance(ordered, list) else list(ordered.values_list("pk", flat=True))
    return list(rows.order_by(*ORDERINGS.get(sort, ORDERINGS["recent"])).values_list("pk", flat=True))


def filter_choices(access: Access) -> dict[str, list]:
    """Values for the filter menus. Kept a minute: a scan of every row's source is not worth doing per page view,
    and a project or agent that appeared in the last minute is still found by typing its filter in the URL."""
    from django.core.cache import cache

    # One entry per set of visible projects: people with the same roles share it, nobody sees another's menus.
    seen = access.projects_for(Action.READ)
    key = "ui:filter-choices:" + ("*" if seen is None else hashlib.sha256("\n".join(seen).encode()).hexdigest())
    choices = cache.get(key)
    if choices is None:
        rows = memories_for(access).order_by()
        projects = sorted(p for p in rows.values_list("project", flat=True).distinct() if p)
        sources = sorted(s for s in rows.values_list("source", flat=True).distinct() if s)
        choices = {"projects": projects, "sources": sources, "categories": Category.values, "tiers": Tier.values}
        cache.set(key, choices, 60)
    return choices


def project_filter(access: Access, project: str) -> dict[str, object]:
    """What a list's project filter shows (templates/ui/bits.html#project_field): the chosen project, the projects
    the person reads, and the value that stands for the globals."""
    return {"project": project, "projects": filter_choices(access)["projects"], "global_value": GLOBAL}


def nav_counts(access: Access) -> dict[str, int]:
    by_status = dict(memories_for(access).values_list("status").annotate(n=Count("pk")).order_by())
    return {
        "active": by_status.get(Status.ACTIVE, 0),
        "archived": by_status.get(Status.ARCHIVED, 0),
        "superseded": by_status.get(Status.SUPERSEDED, 0),  # replaced by a newer fact, apart from the archived
        "pending": scoped(access, Proposal.objects.filter(status=ProposalStatus.PENDING)).count(),
    }


# --- a memory's page -------------------------------------------------------------------------------------------


def history(memory_id: int) -> list[MemoryEvent]:
    return list(MemoryEvent.objects.filter(memory_id=memory_id).order_by("created_at", "id"))


def similar_memories(memory: Memory, access: Access, k: int = 8) -> list[tuple[Memory, float]]:
    """The nearest memories by vector (any project the person sees, any status), with cosine similarity."""
    return [(m, score) for m, score in nearest_memories(memory, k) if access.can(Action.READ, m.project)]


# --- gate log and overview --------------------------------------------------------------------------------------


def gate_entries(access: Access, decision: str = "") -> QuerySet[GateLogEntry]:
    rows = (
        scoped(access, GateLogEntry.objects.all())
        .select_related("memory", "promoted_to")
        .order_by("-created_at", "-id")
    )
    return rows.filter(decision=decision) if decision else rows


def counts_by(field_name: str, access: Access) -> list[tuple[str, int]]:
    rows = memories_for(access).values_list(field_name).annotate(n=Count("pk")).order_by("-n", field_name)
    return [(value or "", n) for value, n in rows]


def usage_by_agent(access: Access) -> tuple[list[str], list[dict]]:
    """Per agent: how many calls of each kind (write, search, recall, ...), from the usage records."""
    rows = (
        scoped(access, UsageRecord.objects.all())
        .values_list("agent", "kind")
        .annotate(n=Count("pk"))
        .order_by("agent", "kind")
    )
    kinds = sorted({kind for _, kind, _ in rows})
    table: dict[str, dict[str, int]] = defaultdict(dict)
    for agent, kind, n in rows:
        table[agent][kind] = n
    return kinds, [
        {"agent": a, "counts": [table[a].get(k, 0) for k in kinds], "total": sum(table[a].values())}
        for a in sorted(table)
    ]


def proxy_usage_by_day(access: Access, days: int = 14) -> list[dict]:
    """What the chat proxy did per day and agent over the last `days` days, newest day first: requests, recall
    characters injected, memory tool calls, upstream tokens, average latency; `share` is the requests as a
    fraction of the busiest row's, for the bar."""
    since = timezone.now() - timedelta(days=days)
    rows = list(
        scoped(access, UsageRecord.objects.filter(kind="proxy", created_at__gte=since))
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


def gate_outcomes_by_day(access: Access, days: int = 30) -> dict[tuple, int]:
    return per_day(scoped(access, GateLogEntry.objects.all()), "decision", days)


def proposals_by_day(access: Access, days: int = 30) -> dict[tuple, int]:
    """Proposals made per day, split by what became of them (pending, accepted, rejected, undone, stale)."""
    return per_day(scoped(access, Proposal.objects.all()), "status", days)


def recall_usage_by_project(access: Access) -> dict[str | None, dict]:
    """Average and last recall block size per project, from what the agents were actually sent."""
    rows = (
        scoped(access, UsageRecord.objects.all())
        .filter(Q(kind="recall") & Q(recall_chars__gt=0))
        .values("project")
        .annotate(avg=Avg("recall_chars"), biggest=Max("recall_chars"), n=Count("pk"))
    )
    return {row["project"]: row for row in rows}


def supersession_scopes(access: Access, project: str = "") -> list[str | None] | None:
    """The scopes whose automatic supersessions this person sees (None: every one, a hub admin's), narrowed to
    one project when asked (GLOBAL: the global memories); a project they may not see narrows to nothing."""
    visible = access.projects_for(Action.READ)
    if project == GLOBAL:
        return [None]
    if project:
        return [project] if visible is None or project in visible else []
    return None if visible is None else [*visible, None]
