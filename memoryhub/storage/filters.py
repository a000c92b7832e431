"""The one memory filter's SQL (search, the API's list, the tools, the dashboard), for either store: the stores
differ only in how a tag is found in the JSON list and how they spell "true", which they pass in."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime

from django.db import connection
from django.db.models import BooleanField
from django.db.models.expressions import RawSQL


def tag_filter(condition: str, tag: str):
    """An ORM filter from a tag condition over the memory table: `Memory.objects.filter(tag_filter(...))`."""

    return RawSQL(condition, [tag], output_field=BooleanField())


@dataclass(frozen=True, kw_only=True)
class MemoryFilter:
    """Which memories a search may return; each store turns it into its own SQL (`sql.memory_filter_sql`).

    Scope: `project` sees its own memories and the globals (no project: globals only), unless `every_project`;
    `allowed_projects` (a token's projects) narrows either. `status` is one status, several, or None for any."""

    project: str | None = None
    every_project: bool = False
    allowed_projects: Sequence[str] | None = None
    status: str | Sequence[str] | None = None
    category: str | None = None
    tier: str | None = None
    source: str | None = None
    tags: Sequence[str] | None = None
    created_after: datetime | None = None
    created_before: datetime | None = None
    accessed_after: datetime | None = None
    accessed_before: datetime | None = None

    @property
    def narrower(self) -> bool:
        """Whether it filters on more than scope and status (what the in-process vector copy cannot see)."""
        return any(
            value is not None
            for value in (self.category, self.tier, self.source, self.tags, self.created_after,
                          self.created_before, self.accessed_after, self.accessed_before)
        )  # fmt: skip

    def as_arguments(self) -> dict:
        return asdict(self)


def memory_filter(
    *,
    tag_condition: Callable[[str], str],
    everything: str,
    alias: str = "m",
    project: str | None = None,
    every_project: bool = False,
    allowed_projects: Sequence[str] | None = None,
    status: str | Sequence[str] | None = None,
    category: str | None = None,
    tier: str | None = None,
    source: str | None = None,
    tags: Sequence[str] | None = None,
    embed_model: str | None = None,
    created_after=None,
    created_before=None,
    accessed_after=None,
    accessed_before=None,
    include_scope: bool = True,
) -> tuple[str, list]:
    """A WHERE fragment (never empty: at least `everything`, the store's "true") and its parameters for the memory
    table under `alias`; `tag_condition` is the store's SQL for "this JSON list holds the tag".

    Scope: a project sees its own rows and the global ones (project NULL); no project means globals only,
    unless `every_project`. `allowed_projects` (a token's projects) narrows any of these further.
    """
    if not alias.isidentifier():
        raise ValueError(alias)
    a = alias
    clauses: list[str] = []
    params: list = []
    if include_scope and not every_project:
        if project:
            clauses.append(f"({a}.project = %s OR {a}.project IS NULL)")
            params.append(project)
        else:
            clauses.append(f"{a}.project IS NULL")
    if allowed_projects is not None:
        marks = ",".join(["%s"] * len(allowed_projects))
        clauses.append(f"({a}.project IS NULL" + (f" OR {a}.project IN ({marks}))" if marks else ")"))
        params.extend(allowed_projects)
    if status is not None and not isinstance(status, str):
        # Several statuses (active and superseded, for a person asking what was used before).
        clauses.append(f"{a}.status IN ({','.join(['%s'] * len(status))})")
        params.extend(status)
        status = None
    for column, value in (("status", status), ("category", category), ("tier", tier), ("source", source)):
        if value is not None:
            clauses.append(f"{a}.{column} = %s")
            params.append(value)
    if embed_model is not None:
        clauses.append(f"{a}.embed_model = %s")
        params.append(embed_model)
    for tag in tags or ():
        clauses.append(tag_condition(f"{a}.tags"))
        params.append(tag)
    adapt = connection.ops.adapt_datetimefield_value
    for column, op, value in (
        ("created_at", ">=", created_after),
        ("created_at", "<", created_before),
        ("last_accessed_at", ">=", accessed_after),
        ("last_accessed_at", "<", accessed_before),
    ):
        if value is not None:
            clauses.append(f"{a}.{column} {op} %s")
            params.append(adapt(value))
    return (" AND ".join(clauses) or everything), params
