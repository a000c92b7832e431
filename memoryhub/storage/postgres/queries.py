"""Search and bookkeeping queries on PostgreSQL: the same functions as memoryhub/storage/sqlite/queries.py.

Keyword queries arrive as the domain's typed tree (memoryhub/storage/keyword.py) and are rendered by `keyword`; the
word index is the memory row's generated tsvector column, the trigram index a pg_trgm GIN index on its content.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from django.db import connection
from django.db.models.expressions import RawSQL

from memoryhub.storage.filters import MemoryFilter, memory_filter, tag_filter
from memoryhub.storage.keyword import Query
from memoryhub.storage.portable import FusionRow
from memoryhub.storage.postgres.keyword import condition, score
from memoryhub.storage.postgres.schema import CHANGE_TABLE, FTS_TABLE, MEMORY_TABLE, TRIGRAM_TABLE

# pgvector ranks under any WHERE by itself (HNSW with iterative scans): search needs no in-process vector copy.
FILTERED_KNN = True

# A lock number per purpose, so the gate's lock never waits on a sweep's: the first argument of the two-key
# advisory lock. The second is a hash of the key inside that purpose (a project, say).
_ADVISORY_CLASS = 0x4D48  # "MH"


def serialize_writes(key: str) -> None:
    """Make writers of `key` take turns until the transaction ends, across every server process and machine.

    A transaction-scoped advisory lock on the hash of the key: two agents storing the same fact in the same
    project at the same moment run the twin check one after the other, so the second finds the first's row.
    Must be called inside `transaction.atomic()` (outside one the lock would end with the statement)."""
    if not connection.in_atomic_block:
        raise RuntimeError("serialize_writes needs a transaction")
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", [_ADVISORY_CLASS, key])


def _fts_parts(query: Query, table: str) -> tuple[str, list, str, list]:
    if table not in (FTS_TABLE, TRIGRAM_TABLE):
        raise ValueError(table)
    trigram = table == TRIGRAM_TABLE
    where, where_params = condition(query, "m", trigram)
    rank, rank_params = score(query, "m", trigram)
    return where, where_params, rank, rank_params


def fts_match(query: Query, limit: int, table: str = FTS_TABLE) -> list[tuple[int, float]]:
    """Rows matching a keyword query, best first: [(memory_id, score)], lower is better (as FTS5's bm25)."""
    return fts_search(query, limit, table=table)


def tag_condition(column: str) -> str:
    """SQL true when the JSON list in `column` holds the tag given as the one parameter: a whole tag, compared
    without regard to case (PostgreSQL's lower() folds every letter, not only A-Z as SQLite's does)."""
    return f"EXISTS (SELECT 1 FROM jsonb_array_elements_text({column}) AS t(value) WHERE lower(t.value) = lower(%s))"


def has_tag(tag: str) -> RawSQL:
    """`tag_condition` as an ORM filter over the memory table: `Memory.objects.filter(has_tag("x"))`."""
    return tag_filter(tag_condition(f'"{MEMORY_TABLE}"."tags"'), tag)


def memory_filter_sql(memory_filter_value: MemoryFilter, *, include_scope: bool = True) -> tuple[str, list]:
    """A WHERE fragment (never empty: at least `TRUE`) and its parameters; the rules are in
    memoryhub/storage/filters.py."""
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
    """Rows matching the keyword query and passing `where_sql` (alias `m`), from `min_rowid` on if given:
    [(memory_id, score)], best (lowest) first."""
    condition, condition_params, rank, rank_params = _fts_parts(query, table)
    bound, bound_params = ("", []) if min_rowid is None else ("AND m.id >= %s", [int(min_rowid)])
    with connection.cursor() as cursor:
        cursor.execute(
            f"""SELECT m.id, {rank} AS score FROM {MEMORY_TABLE} m
                WHERE ({condition}) {bound} AND {where_sql}
                ORDER BY score, m.id LIMIT %s""",
            [*rank_params, *condition_params, *bound_params, *where_params, int(limit)],
        )
        return [(int(r[0]), float(r[1])) for r in cursor.fetchall()]


def fts_nth_newest(query: Query, n: int) -> int | None:
    """The id of the n-th newest row matching the keyword query, None when fewer match (no scoring)."""
    condition, params, _, _ = _fts_parts(query, FTS_TABLE)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT m.id FROM {MEMORY_TABLE} m WHERE {condition} ORDER BY m.id DESC LIMIT 1 OFFSET %s",
            [*params, max(0, int(n) - 1)],
        )
        row = cursor.fetchone()
        return None if row is None else int(row[0])


def filter_memory_ids(memory_ids: Sequence[int], where_sql: str = "TRUE", where_params: Sequence = ()) -> set[int]:
    """Which of these ids pass the filter."""
    if not memory_ids:
        return set()
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT m.id FROM {MEMORY_TABLE} m WHERE m.id = ANY(%s) AND {where_sql}",
            [[int(i) for i in memory_ids], *where_params],
        )
        return {int(r[0]) for r in cursor.fetchall()}


# SQLite's synchronous levels as PostgreSQL's `synchronous_commit`: bookkeeping (use counts, usage records) commits
# with NORMAL, which on SQLite waits for no fsync; here a commit then returns before its WAL is flushed (within a
# fraction of a second), so a search's bookkeeping does not wait for the disk. A crash of the database server can
# lose the last moments' counts, never a memory: every other write keeps the server's own setting.
_COMMIT_WAITS_FOR_DISK = {"OFF": False, "NORMAL": False, "FULL": True, "EXTRA": True}


def synchronous() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('synchronous_commit')")
        return "NORMAL" if cursor.fetchone()[0] == "off" else "FULL"


def set_synchronous(mode: str) -> None:
    if mode not in _COMMIT_WAITS_FOR_DISK:
        raise ValueError(mode)
    with connection.cursor() as cursor:
        # FULL returns to the server's own setting (an operator's `remote_apply` stays remote_apply).
        cursor.execute("RESET synchronous_commit" if _COMMIT_WAITS_FOR_DISK[mode] else "SET synchronous_commit = off")


def change_token() -> tuple[int, int]:
    """Changes since we last looked: the change log's newest position (every write to a memory row or its
    vector adds an entry, committed or about to be in this transaction)."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT coalesce(max(seq), 0) FROM {CHANGE_TABLE}")
        return int(cursor.fetchone()[0]), 0


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROS = "(extract(epoch FROM {0}) * 1000000)::int8"


def fusion_rows(memory_ids: Sequence[int]) -> list[FusionRow]:
    """(id, content, importance, confirmed, category, tier, last_accessed_at, updated_at, created_at, metadata) per
    id; metadata decoded where a row has any, else None. (Django has psycopg hand jsonb over as text.)"""
    if not memory_ids:
        return []

    def moment(micros: int | None) -> datetime | None:
        return None if micros is None else _EPOCH + timedelta(microseconds=micros)

    # The moments travel as whole microseconds since the epoch: Django's loader for timestamptz is Python, and
    # parsing ~180 of them a search cost more than the statement (exact to the microsecond, as the column).
    with connection.cursor() as cursor:
        cursor.execute(
            f"""SELECT id, content, importance, confirmed, category, tier,
                       {_MICROS.format("last_accessed_at")}, {_MICROS.format("updated_at")},
                       {_MICROS.format("created_at")},
                       CASE WHEN metadata = '{{}}'::jsonb THEN NULL ELSE metadata END
                FROM {MEMORY_TABLE} WHERE id = ANY(%s)""",
            [[int(i) for i in memory_ids]],
        )
        rows = cursor.fetchall()
    return [
        FusionRow(int(mid), content, float(importance), bool(confirmed), category, tier,
                  moment(accessed), moment(updated), moment(created),
                  json.loads(metadata) if isinstance(metadata, str) else metadata)
        for mid, content, importance, confirmed, category, tier, accessed, updated, created, metadata in rows
    ]  # fmt: skip


# A conversation stored turn by turn: the session a memory belongs to, when its metadata names one.
_SESSION = "coalesce({0}.metadata ->> 'session', {0}.metadata ->> 'session_id')"


def _next_in_project(
    memory_ids: Sequence[int], same_conversation: str, where_sql: str, where_params: Sequence
) -> dict[int, int]:
    """For each of these memories, the memory written right after it in the same project, when the two stand in
    `same_conversation` (a condition on `q`, the memory, and `m`, the next one) and `m` passes the filter."""
    if not memory_ids:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            f"""SELECT q.id, m.id FROM {MEMORY_TABLE} q JOIN {MEMORY_TABLE} m ON m.id = (
                    SELECT n.id FROM {MEMORY_TABLE} n WHERE n.project IS NOT DISTINCT FROM q.project AND n.id > q.id
                    ORDER BY n.id LIMIT 1)
                WHERE q.id = ANY(%s) AND {same_conversation} AND {where_sql}""",
            [[int(i) for i in memory_ids], *where_params],
        )
        return {int(q): int(m) for q, m in cursor.fetchall()}


def next_in_session(memory_ids: Sequence[int], where_sql: str = "TRUE", where_params: Sequence = ()) -> dict[int, int]:
    """For each of these memories that belongs to a session: the memory written right after it in the same project,
    when that one is of the same session and passes the filter (alias `m`): {id: next id}."""
    session_q, session_m = _SESSION.format("q"), _SESSION.format("m")
    same_session = f"{session_q} IS NOT NULL AND {session_m} = {session_q}"
    return _next_in_project(memory_ids, same_session, where_sql, where_params)


def next_in_project(memory_ids: Sequence[int], where_sql: str = "TRUE", where_params: Sequence = ()) -> dict[int, int]:
    """For each of these memories that belongs to no session: the memory written right after it in the same project,
    when that one belongs to no session either and passes the filter (alias `m`): {id: next id}."""
    session_q, session_m = _SESSION.format("q"), _SESSION.format("m")
    return _next_in_project(memory_ids, f"{session_q} IS NULL AND {session_m} IS NULL", where_sql, where_params)


def memory_metadata(memory_ids: Sequence[int]) -> dict[int, object]:
    """The decoded metadata of the rows that have any, by id. (Django has psycopg hand jsonb over as text, for
    JSONField to decode.)"""

    if not memory_ids:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id, metadata FROM {MEMORY_TABLE} WHERE id = ANY(%s) AND metadata <> '{{}}'::jsonb",
            [[int(i) for i in memory_ids]],
        )
        rows = cursor.fetchall()
    return {int(mid): json.loads(m) if isinstance(m, str) else m for mid, m in rows}
