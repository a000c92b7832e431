"""Recall: a compact block an agent injects at the start of a turn, within a character budget.

Three sources, in this order: the person's global preferences and environment, the project's confirmed and
recently used important facts, then what matches the turn's query. Every source gets a first pick before any
source fills the rest, so a long list of preferences cannot crowd out the query's answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings
from django.db.models import Q

from memoryhub.memories.store import reinforce
from memoryhub.models import Memory, Status
from memoryhub.retrieval.search import search_memories

HEADER = "Memory (already in your context; search only for what is not here):"
GLOBAL_CATEGORIES = ("preference", "person", "environment")
FIRST_PICK = {"globals": 3, "project": 4, "query": 3}
# What the API accepts as budget_chars (and MEMORYHUB_RECALL_BUDGET_CHARS).
BUDGET_CHARS_MIN, BUDGET_CHARS_MAX = 100, 20000


@dataclass
class RecallBlock:
    text: str
    memory_ids: list[int] = field(default_factory=list)


def _line(memory: Memory, limit: int) -> str:
    content = " ".join(memory.content.split())
    if len(content) > limit:
        content = content[: max(limit - 1, 1)].rstrip() + "…"
    return f"- {content} [#{memory.pk}]"


def _ranked(memories: list[Memory]) -> list[Memory]:
    """Confirmed first, then by importance as it stands today, then the most recently used."""
    return sorted(memories, key=lambda m: (not m.confirmed, -m.effective_importance, -m.last_referenced_at.timestamp()))


def _globals(limit: int = 50) -> list[Memory]:
    rows = Memory.objects.filter(project__isnull=True, status=Status.ACTIVE)
    preferred = list(rows.filter(category__in=GLOBAL_CATEGORIES).order_by("-confirmed", "-importance", "-pk")[:limit])
    return _ranked(preferred)


def _project_facts(project: str | None, limit: int = 50) -> list[Memory]:
    if not project:
        return []
    rows = Memory.objects.filter(project=project, status=Status.ACTIVE)
    # Confirmed, or important, or used lately: what an agent should not have to search for.
    rows = rows.filter(Q(confirmed=True) | Q(importance__gte=0.6) | Q(access_count__gt=0))
    candidates = list(rows.order_by("-confirmed", "-importance", "-last_accessed_at", "-pk")[: limit * 2])
    floor = settings.MEMORYHUB_ARCHIVE_THRESHOLD
    return [m for m in _ranked(candidates) if m.confirmed or m.effective_importance >= floor][:limit]


def build_recall(
    *,
    project: str | None,
    query: str | None = None,
    budget_chars: int | None = None,
    allowed_projects: list[str] | None = None,
) -> RecallBlock:
    """The recall block for `project` (and `query`), never longer than `budget_chars`
    (None: MEMORYHUB_RECALL_BUDGET_CHARS, what every caller that names no size gets).

    `allowed_projects` is the caller's token scope; the caller checks that `project` is inside it.
    """
    budget = int(settings.MEMORYHUB_RECALL_BUDGET_CHARS if budget_chars is None else budget_chars)
    if budget < len(HEADER) + 10:
        return RecallBlock(text="", memory_ids=[])  # no room for a single line
    if project and allowed_projects is not None and project not in allowed_projects:
        return RecallBlock(text="", memory_ids=[])
    sources: dict[str, list[Memory]] = {"globals": _globals(), "project": _project_facts(project), "query": []}
    if query and query.strip():
        hits = search_memories(query=query, project=project, k=10, allowed_projects=allowed_projects)
        sources["query"] = [h.memory for h in hits]
    line_limit = max(60, budget // 3)
    chosen: dict[str, list[tuple[Memory, str]]] = {name: [] for name in sources}
    seen: set[int] = set()
    used = len(HEADER)

    def take(name: str, count: int | None) -> None:
        nonlocal used
        taken = 0
        for memory in sources[name]:
            if count is not None and taken >= count:
                return
            if memory.pk in seen:
                continue
            line = _line(memory, line_limit)
            if used + 1 + len(line) > budget:
                continue  # a shorter line further down may still fit
            chosen[name].append((memory, line))
            seen.add(memory.pk)
            used += 1 + len(line)
            taken += 1

    for name in sources:
        take(name, FIRST_PICK[name])
    for name in sources:
        take(name, None)
    ordered = [pair for name in sources for pair in chosen[name]]
    if not ordered:
        return RecallBlock(text="", memory_ids=[])
    query_ids = [m.pk for m, _ in chosen["query"]]
    if query_ids:
        # What matched the query was retrieved for this turn: that is a use, as in search.
        reinforce(memory_ids=query_ids)
    text = "\n".join([HEADER] + [line for _, line in ordered])
    return RecallBlock(text=text, memory_ids=[m.pk for m, _ in ordered])
