"""Checks and repairs on PostgreSQL: the same functions as memoryhub/storage/sqlite/checks.py.

The word index is a generated column and the trigram index an ordinary index, so neither can disagree with the
rows: their checks and rebuilds have nothing to do. What can disagree is the vector table (a row written by
something that did not embed it), which `index_ids` reads as on SQLite.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import DatabaseError, connection, transaction

from memoryhub.storage.portable import MEMORY_TABLE, vec_dimensions, vec_table
from memoryhub.storage.postgres.probe import vector_extension_problem
from memoryhub.storage.postgres.schema import WORDS_COLUMN, existing_vec_dimensions

logger = logging.getLogger(__name__)

# A write that grows the memory table by this share of its rows at the last ANALYZE (or more), and by at least
# `_REFRESH_ROWS`, has the planner's statistics read again right away (`refresh_statistics`).
_REFRESH_SHARE = 0.2
_REFRESH_ROWS = 100


def _on(conn):
    return conn if conn is not None else connection


def _rows(conn, statement: str, params=()) -> list[tuple]:
    cursor = _on(conn).cursor()
    try:
        cursor.execute(statement, list(params))
        return cursor.fetchall()
    finally:
        cursor.close()


def fts_integrity_check() -> None:
    """Nothing can drift: the word column is generated from the row by the database itself."""


def fts_rebuild() -> None:
    """Nothing to rebuild (see `fts_integrity_check`); REINDEX is the operator's tool for a corrupt index."""


def vacuum() -> None:
    """Rewrite the tables without dead row versions, so deleted bytes leave the live files (scrub). Runs outside a
    transaction, as VACUUM must."""
    with connection.cursor() as cursor:
        cursor.execute("VACUUM (FULL, ANALYZE)")


def refresh_statistics(grown_by: int) -> bool:
    """ANALYZE the memory and vector tables when a write just grew them by a large share (an import); True if it
    did. Until autovacuum's own ANALYZE comes round (up to a minute later, by its schedule), the planner reads a
    10k-row table by the statistics of the empty one it was: hybrid searches right after a 10k import ran at p95
    1.35-2.1x their time at rest, and 0.75-1.0x with this. An ANALYZE samples at most 30,000 rows (about 80 ms
    at 10k), so it is asked only when the table's statistics are this far behind, not for every write."""
    if grown_by < _REFRESH_ROWS:
        return False
    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples FROM pg_class WHERE oid = %s::regclass", [MEMORY_TABLE])
        row = cursor.fetchone()
    known = -1.0 if row is None else float(row[0])  # -1: never analysed
    if known >= 0 and grown_by < _REFRESH_SHARE * known:
        return False
    tables = [MEMORY_TABLE, *(vec_table(d) for d in existing_vec_dimensions())]
    # The write it follows is done: a table autovacuum holds is skipped rather than waited for (it is measuring it
    # anyway), and a failure here is logged, never the write's (the savepoint keeps a caller's transaction usable).
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(f"ANALYZE (SKIP_LOCKED) {', '.join(tables)}")
    except DatabaseError:
        logger.warning("could not refresh the planner's statistics after a large write", exc_info=True)
        return False
    return True


def fts_ids() -> set[int]:
    return {int(r[0]) for r in _rows(None, f"SELECT id FROM {MEMORY_TABLE} WHERE {WORDS_COLUMN} IS NOT NULL")}


def schema_names(conn: Any = None) -> set[str]:
    """Tables, views and triggers of the current schema."""
    rows = _rows(
        conn,
        """SELECT tablename FROM pg_tables WHERE schemaname = current_schema()
           UNION SELECT viewname FROM pg_views WHERE schemaname = current_schema()
           UNION SELECT tgname FROM pg_trigger WHERE NOT tgisinternal""",
    )
    return {str(r[0]) for r in rows}


def integrity_messages(conn: Any = None) -> list[str]:
    """['ok'] when every index of the store is valid (an index left invalid by a failed build says so)."""
    rows = _rows(
        conn,
        """SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
           JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = current_schema() AND NOT i.indisvalid""",
    )
    return [f"index {r[0]} is invalid: REINDEX it" for r in rows] or ["ok"]


def fts_check_table(table: str, conn: Any = None) -> None:
    """Nothing can drift (see `fts_integrity_check`)."""


def index_ids(conn: Any = None) -> dict[str, set[int]]:
    """Ids held by the rows and by each index."""
    names = schema_names(conn)
    vectors: set[int] = set()
    for dimensions in vec_dimensions(names):
        vectors |= {int(r[0]) for r in _rows(conn, f"SELECT memory_id FROM {vec_table(dimensions)}")}
    rows = {int(r[0]) for r in _rows(conn, f"SELECT id FROM {MEMORY_TABLE}")}
    return {
        "rows": rows,
        "embedded_rows": {int(r[0]) for r in _rows(conn, f"SELECT id FROM {MEMORY_TABLE} WHERE embed_model != ''")},
        "fts": {int(r[0]) for r in _rows(conn, f"SELECT id FROM {MEMORY_TABLE} WHERE {WORDS_COLUMN} IS NOT NULL")},
        "trigram": rows,
        "vectors": vectors,
    }


def set_journal_mode(conn: Any, mode: str) -> None:
    """SQLite's journal modes have no PostgreSQL counterpart (the server keeps its own WAL)."""
    if mode not in ("DELETE", "WAL"):
        raise ValueError(mode)


def extension_problem() -> str | None:
    """None when pgvector builds and searches an HNSW index on this server, else one line saying what to do."""
    return vector_extension_problem(**connection.get_connection_params())


def database_bytes() -> int:
    """The database's size on disk, every table and index of it."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_database_size(current_database())")
        return int(cursor.fetchone()[0])


def page_size(conn: Any) -> int:
    return int(_rows(conn, "SELECT current_setting('block_size')")[0][0])
