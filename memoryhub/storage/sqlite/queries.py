"""Search and bookkeeping queries: filters, BM25 over FTS5, scope counts, the rows fusion ranks."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime

from django.db import connection
from django.db.models.expressions import RawSQL

from memoryhub.storage.filters import MemoryFilter, memory_filter, tag_filter
from memoryhub.storage.keyword import Query
from memoryhub.storage.portable import FusionRow
from memoryhub.storage.sqlite.keyword import match_expression
from memoryhub.storage.sqlite.schema import FTS_RANK, FTS_TABLE, MEMORY_TABLE


def fts_match(query: Query, limit: int, table: str = FTS_TABLE) -> list[tuple[int, float]]:
    """BM25 over the FTS index alone (no join on the rows, so an entry whose row is gone still shows: the store
    tests use it to see what the index holds) for a keyword query: [(memory_id, bm25)], best first. bm25() is
    lower-is-better; the content column weighs more than tags.
    """
    expression = match_expression(query, table)
    rank = FTS_RANK if table == FTS_TABLE else f"bm25({table})"
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT rowid, {rank} AS score FROM {table} WHERE {table} MATCH %s ORDER BY score LIMIT %s",
            [expression, int(limit)],
        )
        return [(int(r[0]), float(r[1])) for r in cursor.fetchall()]


# --- Search (memoryhub/retrieval/search.py) ----------------------------------------------------------------
# Filters are applied inside the candidate queries (a JOIN on the memory row), so a narrow filter never starves
# the keyword results; the vector side widens its pool instead (vec0 has no column filters on this schema).
# (The mmap size of every connection is set once, in settings: MEMORYHUB_DB_MMAP_MB.)


def tag_condition(column: str) -> str:
    """SQL true when the JSON list in `column` holds the tag given as the one parameter.

    The one meaning of "filter by tag" (search, the API's list, the tools, the dashboard): a whole tag, not a
    part of one, compared without regard to case. Case is folded by SQLite's lower(), which folds A-Z only:
    other letters compare as written. A tag with several filters must match each (AND).
    """
    return f"EXISTS (SELECT 1 FROM json_each({column}) WHERE lower(json_each.value) = lower(%s))"


def has_tag(tag: str) -> RawSQL:
    """`tag_condition` as an ORM filter over the memory table: `Memory.objects.filter(has_tag("x"))`."""
    return tag_filter(tag_condition(f'"{MEMORY_TABLE}"."tags"'), tag)


def memory_filter_sql(memory_filter_value: MemoryFilter, *, include_scope: bool = True) -> tuple[str, list]:
    """A WHERE fragment (never empty: at least `TRUE`) and its parameters for the memory table under `m` (see
    memoryhub/storage/filters.py). Scope: a project sees its own rows and the global ones (project NULL); no project
    means globals only, unless `every_project`. `allowed_projects` (a token's projects) narrows any of these."""
    return memory_filter(
        memory_filter_value, tag_condition=tag_condition, everything="TRUE", include_scope=include_scope
    )


def fts_search(
    query: Query,
    limit: int,
    where_sql: str = "TRUE",
    where_params: Sequence = (),
    table: str = FTS_TABLE,
    min_rowid: int | None = None,
) -> list[tuple[int, float]]:
    """BM25 over an FTS index for a keyword query, restricted to memory rows passing `where_sql` (alias
    `m`) and, given `min_rowid`, to rows from that id on: [(memory_id, bm25)], best (most negative) first.

    CROSS JOIN fixes the order: the MATCH runs once and each hit looks up its row. With a plain JOIN the planner
    may walk the memory rows (by a status index) and run the MATCH once per row: seconds instead of milliseconds.
    A rowid bound is handed to FTS5 itself, which then starts its doclists there and scores nothing older.
    """
    expression = match_expression(query, table)
    rank = FTS_RANK if table == FTS_TABLE else f"bm25({table})"
    bound, bound_params = ("", []) if min_rowid is None else (f"AND {table}.rowid >= %s", [int(min_rowid)])
    with connection.cursor() as cursor:
        cursor.execute(
            f"""SELECT {table}.rowid, {rank} AS score
                FROM {table} CROSS JOIN {MEMORY_TABLE} m ON m.id = {table}.rowid
                WHERE {table} MATCH %s {bound} AND {where_sql}
                ORDER BY score, {table}.rowid LIMIT %s""",
            [expression, *bound_params, *where_params, int(limit)],
        )
        return [(int(r[0]), float(r[1])) for r in cursor.fetchall()]


def fts_nth_newest(query: Query, n: int) -> int | None:
    """The id of the n-th newest row of the word index matching the query, None when fewer match.

    Walks the doclists newest first and stops at the n-th: no scoring, no row lookups, well under a
    millisecond for a few thousand. How keyword search tells a common word from a rare one, and where it
    stops scoring when every word of a query is common."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s ORDER BY rowid DESC LIMIT 1 OFFSET %s",
            [match_expression(query), max(0, int(n) - 1)],
        )
        row = cursor.fetchone()
        return None if row is None else int(row[0])


def filter_memory_ids(memory_ids: Sequence[int], where_sql: str = "TRUE", where_params: Sequence = ()) -> set[int]:
    """Which of these ids pass the filter."""
    out: set[int] = set()
    with connection.cursor() as cursor:
        for start in range(0, len(memory_ids), 500):
            chunk = [int(i) for i in memory_ids[start : start + 500]]
            marks = ",".join(["%s"] * len(chunk))
            cursor.execute(
                f"SELECT m.id FROM {MEMORY_TABLE} m WHERE m.id IN ({marks}) AND {where_sql}", [*chunk, *where_params]
            )
            out.update(int(r[0]) for r in cursor.fetchall())
    return out


_SYNCHRONOUS = {"0": "OFF", "TRUE": "NORMAL", "2": "FULL", "3": "EXTRA"}


def synchronous() -> str:
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA synchronous")
        return _SYNCHRONOUS.get(str(cursor.fetchone()[0]), "FULL")


def set_synchronous(mode: str) -> None:
    if mode not in _SYNCHRONOUS.values():
        raise ValueError(mode)
    with connection.cursor() as cursor:
        cursor.execute(f"PRAGMA synchronous={mode}")


def change_token() -> tuple[int, int]:
    """Changes since we last looked: data_version moves when another connection commits, total_changes when
    this one writes. Equal tokens mean nothing was written in between."""
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA data_version")
        version = int(cursor.fetchone()[0])
        cursor.execute("SELECT total_changes()")
        return version, int(cursor.fetchone()[0])


def fusion_rows(memory_ids: Sequence[int]) -> list[FusionRow]:
    """(id, content, importance, confirmed, category, tier, last_accessed_at, updated_at, created_at, metadata) per
    id, for ranking candidates; the decay clock is read from the three moments by memoryhub.memories.decay, and the
    metadata is decoded only where a row has any (most have none).

    Raw rather than the ORM: building model instances for ~100 candidates per search cost more than the query."""

    def moment(value: str | datetime | None) -> datetime | None:
        # The driver parses columns declared datetime (naive, in UTC); text is parsed here all the same.
        if value is None:
            return None
        return (value if isinstance(value, datetime) else datetime.fromisoformat(value)).replace(tzinfo=UTC)

    out = []
    with connection.cursor() as cursor:
        for start in range(0, len(memory_ids), 500):
            chunk = [int(i) for i in memory_ids[start : start + 500]]
            marks = ",".join(["%s"] * len(chunk))
            cursor.execute(
                f"""SELECT id, content, importance, confirmed, category, tier,
                           last_accessed_at, updated_at, created_at,
                           CASE WHEN metadata IN ('{{}}', '') THEN NULL ELSE metadata END
                    FROM {MEMORY_TABLE} WHERE id IN ({marks})""",
                chunk,
            )
            for row in cursor.fetchall():
                mid, content, importance, confirmed, category, tier, accessed, updated, created, metadata = row
                out.append(
                    FusionRow(
                        int(mid),
                        content,
                        float(importance),
                        bool(confirmed),
                        category,
                        tier,
                        moment(accessed),
                        moment(updated),
                        moment(created),
                        json.loads(metadata) if isinstance(metadata, str) else metadata,
                    )  # fmt: skip
                )
    return out


# --- Writers on several processes ------------------------------------------------------------------------------

# vec0 ranks all rows or a list of ids; filters are applied by the caller (memoryhub/retrieval/search.py), which
# keeps an in-process vector copy for large stores.
FILTERED_KNN = False


def serialize_writes(key: str) -> None:
    """Make writers of `key` (a scope such as a project's twin check) take turns until the transaction ends.

    Nothing to do on SQLite: transactions begin IMMEDIATE, so the store's one write lock is already held from
    BEGIN, across processes. Must be called inside `transaction.atomic()` (the PostgreSQL form needs it)."""


# A conversation stored turn by turn: the session a memory belongs to, when its metadata names one.
_SESSION = "coalesce(json_extract({0}.metadata, '$.session'), json_extract({0}.metadata, '$.session_id'))"


def _next_in_project(
    memory_ids: Sequence[int], same_conversation: str, where_sql: str, where_params: Sequence
) -> dict[int, int]:
    """For each of these memories, the memory written right after it in the same project (the next id there), when
    the two stand in `same_conversation` (a condition on `q`, the memory, and `m`, the next one) and `m` passes the
    filter. Each look-up is one step along the project index (the ids follow the order memories were written in)."""
    out: dict[int, int] = {}
    with connection.cursor() as cursor:
        for start in range(0, len(memory_ids), 500):
            chunk = [int(i) for i in memory_ids[start : start + 500]]
            marks = ",".join(["%s"] * len(chunk))
            cursor.execute(
                f"""SELECT q.id, m.id FROM {MEMORY_TABLE} q CROSS JOIN {MEMORY_TABLE} m ON m.id = (
                        SELECT n.id FROM {MEMORY_TABLE} n WHERE n.project IS q.project AND n.id > q.id
                        ORDER BY n.id LIMIT 1)
                    WHERE q.id IN ({marks}) AND {same_conversation} AND {where_sql}""",
                [*chunk, *where_params],
            )
            out.update((int(q), int(m)) for q, m in cursor.fetchall())
    return out


def next_in_session(memory_ids: Sequence[int], where_sql: str = "TRUE", where_params: Sequence = ()) -> dict[int, int]:
    """For each of these memories that belongs to a session: the memory written right after it in the same project,
    when that one is of the same session and passes the filter (alias `m`): {id: next id}. How search finds the
    reply to a question stored as a conversation turn."""
    session_q, session_m = _SESSION.format("q"), _SESSION.format("m")
    same_session = f"{session_q} IS NOT NULL AND {session_m} = {session_q}"
    return _next_in_project(memory_ids, same_session, where_sql, where_params)


def next_in_project(memory_ids: Sequence[int], where_sql: str = "TRUE", where_params: Sequence = ()) -> dict[int, int]:
    """For each of these memories that belongs to no session: the memory written right after it in the same project,
    when that one belongs to no session either and passes the filter (alias `m`): {id: next id}. How search finds the
    reply to a question of a conversation stored without session metadata (conversations.py judges from their texts
    whether the two are turns of one)."""
    session_q, session_m = _SESSION.format("q"), _SESSION.format("m")
    return _next_in_project(memory_ids, f"{session_q} IS NULL AND {session_m} IS NULL", where_sql, where_params)


def memory_metadata(memory_ids: Sequence[int]) -> dict[int, object]:
    """The decoded metadata of the rows that have any, by id. Raw for the same reason as fusion_rows: the ORM's
    JSON lookup and model machinery cost more than the query for a search's ~100 candidates."""

    out: dict[int, object] = {}
    with connection.cursor() as cursor:
        for start in range(0, len(memory_ids), 500):
            chunk = [int(i) for i in memory_ids[start : start + 500]]
            marks = ",".join(["%s"] * len(chunk))
            cursor.execute(
                f"SELECT id, metadata FROM {MEMORY_TABLE} WHERE id IN ({marks}) AND metadata NOT IN ('{{}}', '')",
                chunk,
            )
            for mid, metadata in cursor.fetchall():
                out[int(mid)] = json.loads(metadata) if isinstance(metadata, str) else metadata
    return out
