"""What both storage implementations share word for word: the table names, the scope token, the conditions the
search plans with, and the statements that read the same on SQLite and PostgreSQL. Each implementation offers these
under its own names (its `__init__`); the rest of its SQL is its own.

A condition is a `Condition`: SQL over the memory table under alias `m` and its parameters, built only here and in
the implementations (never from a user's text). `EVERYTHING` is the condition every row passes: `TRUE`, which both
databases read (SQLite since 3.23 takes it as 1)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import NamedTuple

import numpy as np
from django.db import connection
from django.db.models import Model
from django.db.models.sql import InsertQuery

MEMORY_TABLE = "memoryhub_memory"
DEFAULT_DIMENSIONS = 384
GLOBAL_SCOPE_TOKEN = "scopeglobal"
# The change log and the store's generation (see memoryhub/storage/sqlite/schema.py for why they exist).
CHANGE_TABLE = "memory_changes"
STORE_META_TABLE = "memory_store_meta"
PROPOSAL_TABLE = "memoryhub_proposal"
EVENT_TABLE = "memoryhub_memoryevent"
VEC_PREFIX = "memory_vec_"  # one vector table per dimension count: memory_vec_384


def vec_table(dimensions: int) -> str:
    return f"{VEC_PREFIX}{int(dimensions)}"


def vec_dimensions(table_names: Iterable[str]) -> list[int]:
    """The dimensions of the vector tables among these table names (`vec_table`'s names; a vec0 table's own shadow
    tables, `memory_vec_384_chunks` and the like, are not vector tables), smallest first."""
    suffixes = (name.removeprefix(VEC_PREFIX) for name in table_names if name.startswith(VEC_PREFIX))
    return sorted({int(suffix) for suffix in suffixes if suffix.isdigit()})


def scope_token(project: str | None) -> str:
    """One token per scope (hex of the project's UTF-8: one token whatever the name holds): SQLite's word index
    stores it beside each row's words, PostgreSQL's query translation decodes it back into a project."""
    return GLOBAL_SCOPE_TOKEN if project is None else "scopep" + project.encode().hex()


def count_vectors(dimensions: int = DEFAULT_DIMENSIONS) -> int:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM {vec_table(dimensions)}")
        return int(cursor.fetchone()[0])


def vector_ids(dimensions: int = DEFAULT_DIMENSIONS) -> set[int]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT memory_id FROM {vec_table(dimensions)}")
        return {int(r[0]) for r in cursor.fetchall()}


class LogPosition(NamedTuple):
    """Where the change log stands, read in one statement so the parts agree (`change_position`)."""

    generation: str
    high: int  # the highest seq logged
    tag: int | None  # the tag of the entry asked about (None: it is gone, or was never seen)
    low: int  # the lowest seq still logged
    # PostgreSQL: (the oldest transaction still running, the next to start) as this statement saw them. There a
    # seq below `high` can still appear (a transaction that took it commits after one that took a later one);
    # None where the log is written in commit order (SQLite has one writer).
    horizon: tuple[int, int] | None = None


def changed_entries(after: int, upto: int, also: Sequence[int] = ()) -> list[tuple[int, int, int]]:
    """(seq, memory id, tag) of the change log's entries in (after, upto], and of those whose seq is in `also`
    (500 to a statement: well under either database's limit of bound parameters)."""
    select = f"SELECT seq, memory_id, tag FROM {CHANGE_TABLE} WHERE"
    wanted = sorted({int(s) for s in also})
    rows = []
    with connection.cursor() as cursor:
        cursor.execute(f"{select} seq > %s AND seq <= %s", [int(after), int(upto)])
        rows += cursor.fetchall()
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            cursor.execute(f"{select} seq IN ({','.join(['%s'] * len(chunk))})", chunk)
            rows += cursor.fetchall()
    return [(int(seq), int(mid), int(tag)) for seq, mid, tag in rows]


def logged_seqs(low: int, high: int) -> list[int]:
    """Every seq the change log holds from `low` to `high`."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT seq FROM {CHANGE_TABLE} WHERE seq >= %s AND seq <= %s", [int(low), int(high)])
        return [int(r[0]) for r in cursor.fetchall()]


class FusionRow(NamedTuple):
    """What ranking needs of a candidate; the decay clock is read from the three moments (aware, UTC). `metadata`:
    the decoded metadata when the row has any, else None (what it leaves implicit counts as its words)."""

    id: int
    content: str
    importance: float
    confirmed: bool
    category: str
    tier: str
    last_accessed_at: datetime | None
    updated_at: datetime | None
    created_at: datetime | None
    metadata: object = None


class StoredVector(NamedTuple):
    """A row of the vector table: the float vector and its binary quantization."""

    id: int
    vector: np.ndarray
    binary: bytes


class RowScope(NamedTuple):
    """Where a memory row sits, as the in-process vector copy filters: its project, status and model."""

    id: int
    project: str | None
    status: str
    embed_model: str


class Condition(NamedTuple):
    """A filter on the memory table (alias `m`) and its parameters."""

    sql: str
    params: list


EVERYTHING = "TRUE"


def both(first: Condition | tuple[str, Sequence], second: Condition | tuple[str, Sequence]) -> Condition:
    """Rows passing both conditions."""
    return Condition(f"{first[0]} AND {second[0]}", [*first[1], *second[1]])


def of_model(model_id: str) -> Condition:
    """Rows whose vector is the given model's (another model's distances mean nothing)."""
    return Condition("m.embed_model = %s", [model_id])


def of_status(status: str) -> Condition:
    return Condition("m.status = %s", [status])


def exact_scope(project: str | None) -> Condition:
    """Exactly one scope: a project's own rows, or (no project) the globals."""
    return Condition("m.project = %s", [project]) if project else Condition("m.project IS NULL", [])


def scope_alternatives(scopes: list[str | None] | None) -> list[Condition]:
    """The scope (these projects, None inside for the globals; None for every project) as separate conditions
    whose union it is, each one a range of the (project, status) index.

    `project = ? OR project IS NULL` reads well but the planner then walks the status index over the whole
    table (200 ms at 100k rows on SQLite); counting or listing each side separately stays on the project index."""
    if scopes is None:
        return [Condition(EVERYTHING, [])]
    return [exact_scope(project) for project in scopes]


def count_memories(where_sql: str = EVERYTHING, where_params: Sequence = ()) -> int:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM {MEMORY_TABLE} m WHERE {where_sql}", list(where_params))
        return int(cursor.fetchone()[0])


def memory_ids_where(where_sql: str = EVERYTHING, where_params: Sequence = (), limit: int = 10_000) -> list[int]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT m.id FROM {MEMORY_TABLE} m WHERE {where_sql} LIMIT %s", [*where_params, int(limit)])
        return [int(r[0]) for r in cursor.fetchall()]


def count_scoped(scopes: list[Condition], where_sql: str = EVERYTHING, where_params: Sequence = ()) -> int:
    return sum(count_memories(*both(scope, (where_sql, where_params))) for scope in scopes)


def ids_scoped(scopes: list[Condition], where_sql: str, where_params: Sequence, limit: int) -> list[int]:
    out: list[int] = []
    for scope in scopes:
        out.extend(memory_ids_where(*both(scope, (where_sql, where_params)), limit=limit - len(out)))
        if len(out) >= limit:
            break
    return out


# --- Read on every search: raw, because the ORM built each query in more time than the database answered it --


def proposal_sources(kind: str, status: str) -> list[list[int]]:
    """The source memory ids of every proposal of this kind and status (search asks for the pending conflicts)."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT sources FROM {PROPOSAL_TABLE} WHERE kind = %s AND status = %s", [kind, status])
        rows = cursor.fetchall()
    # SQLite hands the JSON back as text; a driver may have decoded it already.
    return [[int(i) for i in (json.loads(r[0]) if isinstance(r[0], str | bytes) else r[0])] for r in rows]


def superseded_among(memory_ids: Sequence[int]) -> list[tuple[int, int]]:
    """(id, successor id) of every memory that one of these memories superseded, by id."""
    out: list[tuple[int, int]] = []
    with connection.cursor() as cursor:
        for start in range(0, len(memory_ids), 500):
            chunk = [int(i) for i in memory_ids[start : start + 500]]
            marks = ",".join(["%s"] * len(chunk))
            cursor.execute(
                f"SELECT id, superseded_by_id FROM {MEMORY_TABLE} WHERE superseded_by_id IN ({marks})", chunk
            )
            out.extend((int(r[0]), int(r[1])) for r in cursor.fetchall())
    return sorted(out)


def reinforce_rows(memory_ids: Sequence[int], now: datetime, step: float, *, times: int = 1) -> None:
    """Count `times` uses of these memories: as many more accesses, last accessed `now`, importance up by `step`
    each time (at most 1). Written after every agent's search: the ORM's UPDATE cost the bookkeeping thread three
    times the statement, and that thread shares the interpreter with the next search."""
    if not memory_ids:
        return
    chunk = [int(i) for i in memory_ids]
    marks = ",".join(["%s"] * len(chunk))
    boost = float(step) * times
    with connection.cursor() as cursor:
        cursor.execute(
            f"""UPDATE {MEMORY_TABLE} SET access_count = access_count + %s, last_accessed_at = %s,
                    importance = CASE WHEN importance + %s < 1.0 THEN importance + %s ELSE 1.0 END
                WHERE id IN ({marks})""",
            [int(times), connection.ops.adapt_datetimefield_value(now), boost, boost, *chunk],
        )


class RowInserts(NamedTuple):
    """New rows of one model as the statements that insert them (`prepare_row_inserts`), each handing back the
    new ids in order."""

    statements: list[tuple[str, tuple]]


def prepare_row_inserts(rows: Sequence[Model]) -> RowInserts:
    """The multi-row INSERTs that `bulk_create` would run for these new rows (no id yet), compiled now: an import
    compiles its rows while the model still embeds their texts, and its transaction then only runs them
    (`insert_prepared`). The ORM compiles them for this connection's database, as `bulk_create` does."""
    if not rows:
        return RowInserts([])
    opts = rows[0]._meta
    fields = [field for field in opts.concrete_fields if not field.generated and field is not opts.pk]
    for row in rows:
        row._prepare_related_fields_for_save(operation_name="bulk_create")
    size = max(connection.ops.bulk_batch_size(fields, rows), 1)
    statements: list[tuple[str, tuple]] = []
    for start in range(0, len(rows), size):
        query = InsertQuery(type(rows[0]))
        query.insert_values(fields, rows[start : start + size])
        compiler = query.get_compiler(using=connection.alias)
        compiler.returning_fields = [opts.pk]
        statements += [(statement, tuple(params)) for statement, params in compiler.as_sql()]
    return RowInserts(statements)


def insert_plain_events(memory_ids: Sequence[int], *, action: str, actor: str, at: datetime) -> None:
    """One history event per memory (the MemoryEvent rows `bulk_create` would write, with no before, after or
    note), in one statement run for every id: an import of a thousand memories spent longer having the ORM compile
    their events than writing them, inside its transaction."""
    with connection.cursor() as cursor:
        cursor.executemany(
            f"""INSERT INTO {EVENT_TABLE} (memory_id, action, actor, before, after, note, created_at)
                VALUES (%s, %s, %s, NULL, NULL, '', %s)""",
            [(int(memory_id), action, actor, connection.ops.adapt_datetimefield_value(at)) for memory_id in memory_ids],
        )


def insert_prepared(inserts: RowInserts) -> list[int]:
    """Run `prepare_row_inserts`' statements; the new ids, in the rows' order."""
    ids: list[int] = []
    with connection.cursor() as cursor:
        for statement, params in inserts.statements:
            cursor.execute(statement, params)
            ids += [int(row[0]) for row in cursor.fetchall()]
    return ids
