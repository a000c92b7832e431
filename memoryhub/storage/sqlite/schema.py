"""Table names and the DDL still run live: the vec0 table of a new vector size. The FTS5 indexes, their triggers and the
change log were made by migrations 0002, 0003 and 0005, which carry their own statements."""

from __future__ import annotations

from django.db import connection

from memoryhub.storage.portable import (  # noqa: F401 - re-exported with the other names
    CHANGE_TABLE,
    DEFAULT_DIMENSIONS,
    GLOBAL_SCOPE_TOKEN,
    MEMORY_TABLE,
    STORE_META_TABLE,
    scope_token,
    vec_dimensions,
    vec_table,
)

FTS_TABLE = "memory_fts"  # porter + unicode61: English words, stems


TRIGRAM_TABLE = "memory_fts_trigram"  # substrings: `user` finds `getUserId`, file names, error fragments


# External-content FTS5: the text lives once, in the memory table; triggers keep the index in step, and the
# 'delete' command must be given the old values or the index keeps ghosts of them.
#
# The word index also holds each row's scope as one token (column `scope`, weight 0: it never scores): FTS5
# then intersects a query's words with the scope's doclist, so a project's search scores only the rows it
# may see instead of scoring every match in the store and dropping the rest in a join. The view supplies the
# token to FTS5 when it reads the content back ('rebuild', 'integrity-check').
FTS_SOURCE_VIEW = "memory_fts_source"


# bm25 column weights: content, tags, scope (never scores).
FTS_RANK = f"bm25({FTS_TABLE}, 1.0, 0.5, 0.0)"


def vec_create_statements(dimensions: int) -> list[str]:
    table = vec_table(dimensions)
    return [
        # Float vectors for exact distances, and a 1-bit copy for a fast first pass over large stores.
        f"""CREATE VIRTUAL TABLE IF NOT EXISTS {table} USING vec0(
            memory_id integer primary key,
            embedding float[{int(dimensions)}] distance_metric=cosine,
            embedding_bits bit[{int(dimensions)}])""",
        # Vectors are computed in Python and written by the domain; the database removes them when the row goes.
        f"""CREATE TRIGGER IF NOT EXISTS {table}_ad AFTER DELETE ON {MEMORY_TABLE} BEGIN
            DELETE FROM {table} WHERE memory_id = old.id;
        END""",
        # Text changed behind the domain's back (QuerySet.update, raw SQL): the vector no longer describes it.
        # Drop it and mark the row for `reembed` rather than leave a vector that answers for other words.
        f"""CREATE TRIGGER IF NOT EXISTS {table}_au AFTER UPDATE OF content ON {MEMORY_TABLE}
            WHEN old.content IS NOT new.content BEGIN
            DELETE FROM {table} WHERE memory_id = new.id;
            UPDATE {MEMORY_TABLE} SET embed_model = '' WHERE id = new.id;
        END""",
    ]


def vec_drop_statements(dimensions: int) -> list[str]:
    table = vec_table(dimensions)
    return [f"DROP TRIGGER IF EXISTS {table}_au", f"DROP TRIGGER IF EXISTS {table}_ad", f"DROP TABLE IF EXISTS {table}"]


def existing_vec_dimensions() -> list[int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'memory_vec_[0-9]*'")
        return vec_dimensions(row[0] for row in cursor.fetchall())


def ensure_vec_table(dimensions: int) -> None:
    if dimensions in existing_vec_dimensions():
        return
    with connection.cursor() as cursor:
        for statement in vec_create_statements(dimensions):
            cursor.execute(statement)


# The change log (migration 0005): which memory rows may have changed, in the order they did. The in-process
# vector copy remembers the highest `seq` it applied and re-reads only the rows named after it, so its freshness
# depends on neither a clock nor the connection asking. Triggers log what changes on the memory table; the
# functions writing vec0 rows log those themselves (SQLite cannot put a trigger on a virtual table).
# `tag` is random: a copy that applied entries of a transaction later rolled back finds its position's tag gone
# (AUTOINCREMENT hands the same seq out again) and rebuilds. `generation` (a meta row) is replaced by whatever
# swaps the vectors wholesale (a restore, `reembed --all`): every copy of the old one rebuilds.
