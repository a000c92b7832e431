"""The one memory-filter selector: what the API's list, the agents' list tool and the dashboard's list share.

Filters and their meaning, everywhere:
- `project`: exactly that project (not its globals); `globals_only` for the memories without a project;
- `category`, `tier`, `status`, `source`: equal to the value;
- `tag`: the memory carries that whole tag, compared without regard to case (A-Z folded, as SQLite's lower()
  does); search's tag filter means the same (both are `memoryhub.storage.sql.tag_condition`);
- `confirmed`: True or False;
- `allowed_projects`: what a token may see (its projects and the globals; None: everything).
An empty string or None means "no filter". Nothing here writes.
"""

from __future__ import annotations

from django.db.models import QuerySet

from memoryhub.models import Memory
from memoryhub.storage import sql


def filter_memories(
    rows: QuerySet[Memory] | None = None,
    *,
    project: str | None = None,
    globals_only: bool = False,
    category: str | None = None,
    tier: str | None = None,
    status: str | None = None,
    tag: str | None = None,
    source: str | None = None,
    confirmed: bool | None = None,
    allowed_projects: list[str] | None = None,
) -> QuerySet[Memory]:
    """`rows` (all memories by default) narrowed by the filters given; unordered."""
    rows = Memory.objects.all() if rows is None else rows
    if allowed_projects is not None:
        rows = rows.in_projects(allowed_projects)
    if globals_only:
        rows = rows.filter(project__isnull=True)
    elif project:
        rows = rows.filter(project=project)
    for name, value in (("category", category), ("tier", tier), ("status", status), ("source", source)):
        if value:
            rows = rows.filter(**{name: value})
    if tag:
        rows = rows.filter(sql.has_tag(tag))
    if confirmed is not None:
        rows = rows.filter(confirmed=confirmed)
    return rows
