"""Checks and repairs of the indexes against the rows (memoryhub/checks.py, memoryhub/backup.py)."""

from __future__ import annotations

from typing import Any

from django.db import DatabaseError, connection

from memoryhub.storage.portable import MEMORY_TABLE, vec_dimensions, vec_table
from memoryhub.storage.sqlite.schema import FTS_TABLE, TRIGRAM_TABLE


def fts_integrity_check() -> None:
    """Raises (DatabaseError) when an FTS index disagrees with the memory rows."""
    with connection.cursor() as cursor:
        for table in (FTS_TABLE, TRIGRAM_TABLE):
            cursor.execute(f"INSERT INTO {table}({table}, rank) VALUES ('integrity-check', 1)")


def fts_rebuild() -> None:
    with connection.cursor() as cursor:
        for table in (FTS_TABLE, TRIGRAM_TABLE):
            cursor.execute(f"INSERT INTO {table}({table}) VALUES ('rebuild')")


def vacuum() -> None:
    """Rewrite the database without free pages and empty the WAL, so deleted bytes leave the files (scrub)."""
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        cursor.execute("VACUUM")
        cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def refresh_statistics(grown_by: int) -> bool:
    """Nothing to refresh: the store never runs ANALYZE, so the planner keeps no statistics to fall behind (a
    search right after a 10k import runs as fast as at rest). Always False."""
    return False


def fts_ids() -> set[int]:
    """Row ids the keyword index holds (read from the index itself, not the content table)."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id FROM {FTS_TABLE}_docsize")
        return {int(r[0]) for r in cursor.fetchall()}


# --- Checks and repairs (memoryhub/checks.py, memoryhub/backup.py) --------------------------------------------
# These take any DB-API connection (`conn`), so the same checks run on the live store through Django and on a
# plain connection to a backup file that is about to be restored. None takes parameters from a user.
def _on(conn):
    return conn if conn is not None else connection


def schema_names(conn: Any = None) -> set[str]:
    cursor = _on(conn).cursor()
    try:
        cursor.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger')")
        return {row[0] for row in cursor.fetchall()}
    finally:
        cursor.close()


def integrity_messages(conn: Any = None) -> list[str]:
    """PRAGMA integrity_check: ['ok'] when the file is sound (FTS5 tables check their own shadow tables too)."""
    cursor = _on(conn).cursor()
    try:
        cursor.execute("PRAGMA integrity_check")
        return [str(r[0]) for r in cursor.fetchall()]
    finally:
        cursor.close()


def fts_check_table(table: str, conn: Any = None) -> None:
    """FTS5 'integrity-check' against the memory rows (rank=1); raises a DatabaseError when they disagree."""
    if table not in (FTS_TABLE, TRIGRAM_TABLE):
        raise ValueError(table)
    cursor = _on(conn).cursor()
    try:
        cursor.execute(f"INSERT INTO {table}({table}, rank) VALUES ('integrity-check', 1)")
    finally:
        cursor.close()


def _id_set(conn, statement: str) -> set[int]:
    cursor = _on(conn).cursor()
    try:
        cursor.execute(statement)
        return {int(r[0]) for r in cursor.fetchall()}
    finally:
        cursor.close()


def index_ids(conn: Any = None) -> dict[str, set[int]]:
    """Ids held by the rows and by each index, read from the indexes themselves (docsize, vec0 rowids)."""
    names = schema_names(conn)
    vectors: set[int] = set()
    for dimensions in vec_dimensions(names):
        vectors |= _id_set(conn, f"SELECT memory_id FROM {vec_table(dimensions)}")
    return {
        "rows": _id_set(conn, f"SELECT id FROM {MEMORY_TABLE}"),
        "embedded_rows": _id_set(conn, f"SELECT id FROM {MEMORY_TABLE} WHERE embed_model != ''"),
        "fts": _id_set(conn, f"SELECT id FROM {FTS_TABLE}_docsize"),
        "trigram": _id_set(conn, f"SELECT id FROM {TRIGRAM_TABLE}_docsize"),
        "vectors": vectors,
    }


def set_journal_mode(conn: Any, mode: str) -> None:
    """A backup file is made self-contained (DELETE: no -wal beside it); the live store stays in WAL."""
    if mode not in ("DELETE", "WAL"):
        raise ValueError(mode)
    cursor = conn.cursor()
    try:
        cursor.execute(f"PRAGMA journal_mode={mode}")
        cursor.fetchall()
    finally:
        cursor.close()


def page_size(conn: Any) -> int:
    cursor = conn.cursor()
    try:
        cursor.execute("PRAGMA page_size")
        return int(cursor.fetchone()[0])
    finally:
        cursor.close()


def database_bytes() -> int:
    """The store's size on disk: its pages (the write-ahead log not counted: it is folded back at checkpoints)."""
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA page_count")
        pages = int(cursor.fetchone()[0])
        cursor.execute("PRAGMA page_size")
        return pages * int(cursor.fetchone()[0])


def extension_problem() -> str | None:
    """None when sqlite-vec answers on this connection (the backend loads it on every connection), else one line."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT vec_version()")
            cursor.fetchone()
    except DatabaseError as exc:
        return f"sqlite-vec does not answer on this SQLite ({exc}): reinstall with `pip install -r requirements.txt`"
    return None
