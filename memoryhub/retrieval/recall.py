"""Recall: a compact block an agent injects at the start of a turn, within a character budget.

Answer first. With a query, the query's best matches that clear search's relevance floor go in first, best
first; what is left of the budget then holds the always-on facts: the person's global preferences and
environment and the project's confirmed, important or recently used facts, by effective importance (globals
and project each get a first pick so neither crowds the other out). Without a query (or when nothing clears the
floor), the block is only the always-on facts. One line per memory, trimmed to fit, ids in the order shown;
never over budget.

Why this order: the block is tier 1 of the design (tier 2 is the tools). An agent reads it before every turn,
and a 400-character block filled with preferences before any match drops the memory that answers the turn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.db.models import Q

from memoryhub.memories.bookkeeping import reinforce_later
from memoryhub.models import Memory, Status
from memoryhub.retrieval import conflicts
from memoryhub.retrieval.moments import standing, statuses_at, unchecked_since
from memoryhub.retrieval.search import MemoryFilter, search_memories

HEADER = "Memory (already in your context; search only for what is not here):"
GLOBAL_CATEGORIES = ("preference", "person", "environment")
QUERY_MATCHES = 5  # the most query matches shown: past the best few, matches are the search tool's job
FIRST_PICK = {"globals": 3, "project": 4}  # always-on sources, each served this many before either fills the rest
# What the API accepts as budget_chars (and MEMORYHUB_RECALL_BUDGET_CHARS).
BUDGET_CHARS_MIN, BUDGET_CHARS_MAX = 100, 20000
MIN_LINE_CONTENT = 40  # a line trimmed shorter than this says too little to be worth its characters


@dataclass
class RecallBlock:
    text: str
    memory_ids: list[int] = field(default_factory=list)


def _tag(memory: Memory, changed: set[int]) -> str:
    """The line's end: its id, and for a memory that replaced an older one, since when its value holds ("since
    2026-03-01", 17 characters): the date an agent needs to judge a value that changed."""
    parts = [f"#{memory.pk}"]
    if memory.pk in changed:
        parts.append(f"since {(memory.valid_from or memory.created_at).date().isoformat()}")
    if checked := unchecked_since(memory):  # nobody checked it for long: the agent may want to (moments.py)
        parts.append(f"checked {checked}")
    return f"[{', '.join(parts)}]"


def _line(memory: Memory, limit: int, tag: str) -> str:
    content = " ".join(memory.content.split())
    if len(content) > limit:
        content = content[: max(limit - 1, 1)].rstrip() + "…"
    return f"- {content} {tag}"


def _ranked(memories: list[Memory]) -> list[Memory]:
    """Confirmed first, then by importance as it stands today, then the most recently used."""
    return sorted(memories, key=lambda m: (not m.confirmed, -m.effective_importance, -m.last_referenced_at.timestamp()))


def _globals(limit: int = 50, as_of: datetime | None = None) -> list[Memory]:
    rows = standing(as_of).filter(project__isnull=True)
    preferred = list(rows.filter(category__in=GLOBAL_CATEGORIES).order_by("-confirmed", "-importance", "-pk")[:limit])
    return _ranked(preferred)


def _project_facts(project: str | None, limit: int = 50, as_of: datetime | None = None) -> list[Memory]:
    if not project:
        return []
    rows = standing(as_of).filter(project=project)
    # Confirmed, or important, or used lately: what an agent should not have to search for.
    rows = rows.filter(Q(confirmed=True) | Q(importance__gte=0.6) | Q(access_count__gt=0))
    candidates = list(rows.order_by("-confirmed", "-importance", "-last_accessed_at", "-pk")[: limit * 2])
    floor = settings.MEMORYHUB_ARCHIVE_THRESHOLD
    return [m for m in _ranked(candidates) if m.confirmed or m.effective_importance >= floor][:limit]


class _Block:
    """Lines chosen so far, and the characters they use (the header and a newline before each line)."""

    def __init__(self, budget: int, changed: set[int] | None = None):
        self.budget = budget
        self.changed = changed or set()  # memories that replaced an older one: their line carries the date
        self.line_limit = max(60, budget // 3)
        self.lines: list[tuple[Memory, str]] = []
        self.seen: set[int] = set()
        self.used = len(HEADER)

    def add(self, memory: Memory) -> bool:
        if memory.pk in self.seen:
            return False
        tag = _tag(memory, self.changed)
        room = self.budget - self.used - 1 - len(f"- … {tag}")
        limit = min(self.line_limit, room + 1)  # +1: the ellipsis is counted in the limit
        if limit < min(MIN_LINE_CONTENT, len(" ".join(memory.content.split()))):
            return False  # a shorter line further down may still fit
        line = _line(memory, limit, tag)
        self.lines.append((memory, line))
        self.seen.add(memory.pk)
        self.used += 1 + len(line)
        return True


def build_recall(
    *,
    project: str | None,
    query: str | None = None,
    budget_chars: int | None = None,
    allowed_projects: list[str] | None = None,
    as_of: datetime | None = None,
) -> RecallBlock:
    """The recall block for `project` (and `query`), never longer than `budget_chars` (None:
    MEMORYHUB_RECALL_BUDGET_CHARS): the query's best matches first, then the always-on facts (see the module
    docstring).

    `allowed_projects` is the caller's token scope; the caller checks that `project` is inside it. `as_of`: the
    facts true at that moment instead of now (moments.py).
    """
    budget = int(settings.MEMORYHUB_RECALL_BUDGET_CHARS if budget_chars is None else budget_chars)
    if budget < len(HEADER) + 10:
        return RecallBlock(text="", memory_ids=[])  # no room for a single line
    if project and allowed_projects is not None and project not in allowed_projects:
        return RecallBlock(text="", memory_ids=[])
    hits = []
    if query and query.strip():
        # search_memories applies the relevance floor: a turn that matches nothing adds no lines.
        within = MemoryFilter(visible_from=project, allowed_projects=allowed_projects, as_of=as_of,
                              status=statuses_at(Status.ACTIVE, as_of))  # fmt: skip
        hits = search_memories(query=query, within=within, k=QUERY_MATCHES)
    always_on = {"globals": _globals(as_of=as_of), "project": _project_facts(project, as_of=as_of)}
    shown = [h.memory.pk for h in hits] + [m.pk for memories in always_on.values() for m in memories]
    changed = set(Memory.objects.filter(superseded_by_id__in=shown).values_list("superseded_by_id", flat=True))
    block = _Block(budget, changed)
    # A value a newer write disagrees with waits for a person's answer in search, where both rank newer first; the
    # block an agent reads as true holds the newer alone, not two values for one thing.
    block.seen.update(older for older, _ in conflicts.pending_pairs(set(shown)))
    matched = [h.memory.pk for h in hits if block.add(h.memory)]
    for name, memories in always_on.items():
        taken = 0
        for memory in memories:
            if taken >= FIRST_PICK[name]:
                break
            taken += block.add(memory)
    for memories in always_on.values():
        for memory in memories:
            block.add(memory)
    if not block.lines:
        return RecallBlock(text="", memory_ids=[])
    if matched:
        # What matched the query was retrieved for this turn: that is a use, as in search.
        reinforce_later(matched)
    text = "\n".join([HEADER] + [line for _, line in block.lines])
    return RecallBlock(text=text, memory_ids=[m.pk for m, _ in block.lines])
