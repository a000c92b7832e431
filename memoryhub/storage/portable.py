"""What both storage implementations share word for word: the table names, the scope token, and the few
statements that read the same on SQLite and PostgreSQL. Each implementation imports these; the rest of its SQL
is its own."""

from __future__ import annotations

from django.db import connection

MEMORY_TABLE = "memoryhub_memory"
DEFAULT_DIMENSIONS = 384
GLOBAL_SCOPE_TOKEN = "scopeglobal"
# The change log and the store's generation (see memoryhub/storage/sqlite/schema.py for why they exist).
CHANGE_TABLE = "memory_changes"
STORE_META_TABLE = "memory_store_meta"


def vec_table(dimensions: int) -> str:
    return f"memory_vec_{int(dimensions)}"


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


def changed_ids(after: int, upto: int) -> tuple[list[int], int | None]:
    """(the memory ids the change log names in (after, upto], the tag of entry `upto`)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT memory_id, seq, tag FROM {CHANGE_TABLE} WHERE seq > %s AND seq <= %s", [int(after), int(upto)]
        )
        rows = cursor.fetchall()
    tag = next((int(r[2]) for r in rows if int(r[1]) == int(upto)), None)
    return sorted({int(r[0]) for r in rows}), tag
