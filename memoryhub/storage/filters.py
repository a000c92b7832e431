"""The one memory filter's SQL (search, the API's list, the tools, the dashboard), for either store: the stores
differ only in how a tag is found in the JSON list and how they spell "true", which they pass in."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import connection
from django.db.models import BooleanField
from django.db.models.expressions import RawSQL
from django.utils import timezone


def tag_filter(condition: str, tag: str):
    """An ORM filter from a tag condition over the memory table: `Memory.objects.filter(tag_filter(...))`."""

    return RawSQL(condition, [tag], output_field=BooleanField())


@dataclass(frozen=True, kw_only=True)
class MemoryFilter:
    """Which memories a search may return; each store turns it into its own SQL (`sql.memory_filter_sql`).

    Scope has one meaning everywhere: `visible_from` is the project a search is made from, which sees its own
    memories and the globals (None: the globals only); `globals_too=False` leaves the globals out (a person
    filtering the dashboard by one project); `every_project` sees them all. `allowed_projects` (a token's
    projects) narrows any of these. `status` is one status, several, or None for any."""

    visible_from: str | None = None
    globals_too: bool = True
    every_project: bool = False
    allowed_projects: Sequence[str] | None = None
    status: str | Sequence[str] | None = "active"
    category: str | None = None
    tier: str | None = None
    source: str | None = None
    tags: Sequence[str] | None = None
    created_after: datetime | None = None
    created_before: datetime | None = None
    accessed_after: datetime | None = None
    accessed_before: datetime | None = None
    # The memories true at that moment (valid_from <= as_of < valid_to, not expired by then); None: now.
    as_of: datetime | None = None
    # Past `expires_at`: False leaves them out (search, recall, tools), True keeps only them, None either.
    expired: bool | None = False

    def scopes(self) -> list[str | None] | None:
        """The projects seen (None inside the list: the globals), or None for every project."""
        if self.every_project:
            return None
        if not self.visible_from:
            return [None]
        return [self.visible_from, None] if self.globals_too else [self.visible_from]

    @property
    def narrower(self) -> bool:
        """Whether it filters on more than scope and status (what the in-process vector copy cannot see)."""
        return any(
            value is not None
            for value in (self.category, self.tier, self.source, self.tags, self.created_after,
                          self.created_before, self.accessed_after, self.accessed_before, self.as_of)
        )  # fmt: skip


def time_clauses(as_of: datetime | None, expired: bool | None, a: str) -> list[tuple[str, list[datetime]]]:
    """The filter's conditions on time, with their moments: true at `as_of` (begun, not ended, not expired by then),
    else expired or not now. The rule `MemoryQuerySet.true_at` and `unexpired` say in the ORM."""
    if as_of is not None:
        return [
            (f"{a}.valid_from <= %s", [as_of]),
            (f"({a}.valid_to IS NULL OR {a}.valid_to > %s)", [as_of]),
            (f"({a}.expires_at IS NULL OR {a}.expires_at > %s)", [as_of]),
        ]
    if expired is None:
        return []
    now = timezone.now()
    if expired:
        return [(f"{a}.expires_at <= %s", [now])]
    return [(f"({a}.expires_at IS NULL OR {a}.expires_at > %s)", [now])]


def _scope_clause(scopes: list[str | None], a: str) -> tuple[str, list]:
    projects = [p for p in scopes if p is not None]
    parts = [f"{a}.project = %s"] * len(projects) + ([f"{a}.project IS NULL"] if None in scopes else [])
    return "(" + " OR ".join(parts) + ")", projects


def memory_filter(
    value: MemoryFilter,
    *,
    tag_condition: Callable[[str], str],
    everything: str,
    alias: str = "m",
    embed_model: str | None = None,
    include_scope: bool = True,
) -> tuple[str, list]:
    """A WHERE fragment (never empty: at least `everything`, the store's "true") and its parameters for the memory
    table under `alias`; `tag_condition` is the store's SQL for "this JSON list holds the tag". The scope is
    `value.scopes()`; `allowed_projects` narrows it further."""
    if not alias.isidentifier():
        raise ValueError(alias)
    a = alias
    clauses: list[str] = []
    params: list = []
    scopes = value.scopes()
    if include_scope and scopes is not None:
        clause, projects = _scope_clause(scopes, a)
        clauses.append(clause)
        params.extend(projects)
    if value.allowed_projects is not None:
        marks = ",".join(["%s"] * len(value.allowed_projects))
        clauses.append(f"({a}.project IS NULL" + (f" OR {a}.project IN ({marks}))" if marks else ")"))
        params.extend(value.allowed_projects)
    status = value.status
    if status is not None and not isinstance(status, str):
        # Several statuses (active and superseded, for a person asking what was used before).
        clauses.append(f"{a}.status IN ({','.join(['%s'] * len(status))})")
        params.extend(status)
        status = None
    for column, one in (("status", status), ("category", value.category), ("tier", value.tier),
                        ("source", value.source)):  # fmt: skip
        if one is not None:
            clauses.append(f"{a}.{column} = %s")
            params.append(one)
    if embed_model is not None:
        clauses.append(f"{a}.embed_model = %s")
        params.append(embed_model)
    for tag in value.tags or ():
        clauses.append(tag_condition(f"{a}.tags"))
        params.append(tag)
    adapt = connection.ops.adapt_datetimefield_value
    for column, op, moment in (
        ("created_at", ">=", value.created_after),
        ("created_at", "<", value.created_before),
        ("last_accessed_at", ">=", value.accessed_after),
        ("last_accessed_at", "<", value.accessed_before),
    ):
        if moment is not None:
            clauses.append(f"{a}.{column} {op} %s")
            params.append(adapt(moment))
    for clause, moments in time_clauses(value.as_of, value.expired, a):
        clauses.append(clause)
        params.extend(adapt(moment) for moment in moments)
    return (" AND ".join(clauses) or everything), params
