"""The one memory-filter selector: what the API's list, the agents' list tool and the dashboard's list share.

Filters and their meaning, everywhere:
- `project`: exactly that project (not its globals); `globals_only` for the memories without a project;
- `category`, `tier`, `status`, `source`: equal to the value;
- `tag`: the memory carries that whole tag, compared without regard to case (A-Z folded, as SQLite's lower()
  does); search's tag filter means the same (both are `memoryhub.storage.sql.tag_condition`);
- `confirmed`: True or False;
- `verified_before`: nobody checked it since that moment (memories/validity.py says who checks);
- `allowed_projects`: what a token may see (its projects and the globals; None: everything).
An empty string or None means "no filter". Nothing here writes.

`visible_memory` is one memory by id under the same `allowed_projects`: what the API's /memories/<id> routes and
the agents' tools answer from, so another project's memory is a 404 exactly like a missing one on every route.
"""

from __future__ import annotations

from datetime import datetime

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
    verified_before: datetime | None = None,
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
    if verified_before is not None:
        rows = rows.filter(verified_at__lt=verified_before)
    return rows


# The largest integer SQLite (and PostgreSQL's bigint) holds: a larger id cannot exist, and binding it would raise.
MAX_ID = 2**63 - 1


def visible_memory(memory_id: object, *, allowed_projects: list[str] | None) -> Memory | None:
    """The memory with this id if a caller limited to `allowed_projects` (and the globals; None: every project) may
    see it, else None. Another project's memory is None exactly like a missing one: an answer that differed would
    tell an agent which ids exist elsewhere. `memory_id` is taken as sent: anything but a whole number from 1 to
    MAX_ID (as an int or as digits) finds nothing."""
    number = _memory_id(memory_id)
    if number is None:
        return None
    return filter_memories(allowed_projects=allowed_projects).filter(pk=number).first()


def _memory_id(value: object) -> int | None:
    if isinstance(value, str) and value.isascii() and value.isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if 0 < value <= MAX_ID else None
