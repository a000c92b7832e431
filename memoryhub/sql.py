"""Every raw SQL statement of MemoryHub: FTS5 and sqlite-vec tables, their triggers and queries.

Always parameters, never text from a user spliced into SQL. Table names are built only from integers
(vector dimensions) and constants here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from django.db import connection

MEMORY_TABLE = "memoryhub_memory"
FTS_TABLE = "memory_fts"  # porter + unicode61: English words, stems
TRIGRAM_TABLE = "memory_fts_trigram"  # substrings: `user` finds `getUserId`, file names, error fragments
DEFAULT_DIMENSIONS = 384


def vec_table(dimensions: int) -> str:
    return f"memory_vec_{int(dimensions)}"


# External-content FTS5: the text lives once, in the memory table; triggers keep the index in step, and the
# 'delete' command must be given the old values or the index keeps ghosts of them.
FTS_CREATE = [
    f"""CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5(
        content, tags, content='{MEMORY_TABLE}', content_rowid='id',
        tokenize='porter unicode61 remove_diacritics 2')""",
    f"""CREATE VIRTUAL TABLE {TRIGRAM_TABLE} USING fts5(
        content, content='{MEMORY_TABLE}', content_rowid='id', tokenize='trigram')""",
    f"""CREATE TRIGGER memory_fts_ai AFTER INSERT ON {MEMORY_TABLE} BEGIN
        INSERT INTO {FTS_TABLE}(rowid, content, tags) VALUES (new.id, new.content, new.tags);
        INSERT INTO {TRIGRAM_TABLE}(rowid, content) VALUES (new.id, new.content);
    END""",
    f"""CREATE TRIGGER memory_fts_ad AFTER DELETE ON {MEMORY_TABLE} BEGIN
        INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, content, tags) VALUES ('delete', old.id, old.content, old.tags);
        INSERT INTO {TRIGRAM_TABLE}({TRIGRAM_TABLE}, rowid, content) VALUES ('delete', old.id, old.content);
    END""",
    f"""CREATE TRIGGER memory_fts_au AFTER UPDATE OF content, tags ON {MEMORY_TABLE} BEGIN
        INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, content, tags) VALUES ('delete', old.id, old.content, old.tags);
        INSERT INTO {FTS_TABLE}(rowid, content, tags) VALUES (new.id, new.content, new.tags);
        INSERT INTO {TRIGRAM_TABLE}({TRIGRAM_TABLE}, rowid, content) VALUES ('delete', old.id, old.content);
        INSERT INTO {TRIGRAM_TABLE}(rowid, content) VALUES (new.id, new.content);
    END""",
]
FTS_DROP = [
    "DROP TRIGGER IF EXISTS memory_fts_au",
    "DROP TRIGGER IF EXISTS memory_fts_ad",
    "DROP TRIGGER IF EXISTS memory_fts_ai",
    f"DROP TABLE IF EXISTS {TRIGRAM_TABLE}",
    f"DROP TABLE IF EXISTS {FTS_TABLE}",
]


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
        names = [row[0] for row in cursor.fetchall()]
    return sorted({int(n.split("_")[2]) for n in names if n.split("_")[2].isdigit()})


def ensure_vec_table(dimensions: int) -> None:
    if dimensions in existing_vec_dimensions():
        return
    with connection.cursor() as cursor:
        for statement in vec_create_statements(dimensions):
            cursor.execute(statement)


def to_blob(vector: Sequence[float] | np.ndarray) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


def write_vector(memory_id: int, vector: Sequence[float] | np.ndarray) -> None:
    """Delete then insert: vec0's INSERT OR REPLACE is not reliable."""
    blob = to_blob(vector)
    table = vec_table(len(blob) // 4)
    existing = existing_vec_dimensions()
    if len(blob) // 4 not in existing:
        ensure_vec_table(len(blob) // 4)
    with connection.cursor() as cursor:
        for dims in existing:
            cursor.execute(f"DELETE FROM {vec_table(dims)} WHERE memory_id = %s", [memory_id])
        cursor.execute(
            f"INSERT INTO {table}(memory_id, embedding, embedding_bits) VALUES (%s, %s, vec_quantize_binary(%s))",
            [memory_id, blob, blob],
        )


def write_vectors(pairs: Iterable[tuple[int, np.ndarray]]) -> None:
    for memory_id, vector in pairs:
        write_vector(memory_id, vector)


def delete_vectors(memory_ids: Sequence[int]) -> None:
    with connection.cursor() as cursor:
        for dims in existing_vec_dimensions():
            cursor.executemany(f"DELETE FROM {vec_table(dims)} WHERE memory_id = %s", [[i] for i in memory_ids])


def read_vectors(memory_ids: Sequence[int], dimensions: int = DEFAULT_DIMENSIONS) -> dict[int, np.ndarray]:
    if not memory_ids:
        return {}
    out: dict[int, np.ndarray] = {}
    with connection.cursor() as cursor:
        for start in range(0, len(memory_ids), 500):
            chunk = list(memory_ids[start : start + 500])
            marks = ",".join(["%s"] * len(chunk))
            cursor.execute(
                f"SELECT memory_id, embedding FROM {vec_table(dimensions)} WHERE memory_id IN ({marks})", chunk
            )
            for memory_id, blob in cursor.fetchall():
                out[memory_id] = np.frombuffer(blob, dtype=np.float32)
    return out


def knn(vector: np.ndarray, k: int) -> list[tuple[int, float]]:
    """Exact cosine KNN over the float vectors: [(memory_id, distance)], nearest first."""
    blob = to_blob(vector)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT memory_id, distance FROM {vec_table(len(blob) // 4)} WHERE embedding MATCH %s AND k = %s",
            [blob, int(k)],
        )
        return [(int(r[0]), float(r[1])) for r in cursor.fetchall()]


def knn_binary_rescored(vector: np.ndarray, k: int, candidates: int) -> list[tuple[int, float]]:
    """Hamming KNN on the 1-bit vectors for `candidates` rows, then exact cosine on those only."""
    blob = to_blob(vector)
    table = vec_table(len(blob) // 4)
    with connection.cursor() as cursor:
        cursor.execute(
            f"""WITH coarse AS (
                    SELECT memory_id FROM {table}
                    WHERE embedding_bits MATCH vec_quantize_binary(%s) AND k = %s)
                SELECT v.memory_id, vec_distance_cosine(v.embedding, %s) AS d
                FROM {table} v JOIN coarse c ON c.memory_id = v.memory_id
                ORDER BY d LIMIT %s""",
            [blob, int(candidates), blob, int(k)],
        )
        return [(int(r[0]), float(r[1])) for r in cursor.fetchall()]


def fts_match(match_expression: str, limit: int, table: str = FTS_TABLE) -> list[tuple[int, float]]:
    """BM25 over the FTS index for an already-safe MATCH expression: [(memory_id, bm25)], best first.

    bm25() is lower-is-better; the content column weighs more than tags.
    """
    if table not in (FTS_TABLE, TRIGRAM_TABLE):
        raise ValueError(table)
    rank = f"bm25({table}, 1.0, 0.5)" if table == FTS_TABLE else f"bm25({table})"
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT rowid, {rank} AS score FROM {table} WHERE {table} MATCH %s ORDER BY score LIMIT %s",
            [match_expression, int(limit)],
        )
        return [(int(r[0]), float(r[1])) for r in cursor.fetchall()]


def fts_integrity_check() -> None:
    """Raises (DatabaseError) when an FTS index disagrees with the memory rows."""
    with connection.cursor() as cursor:
        for table in (FTS_TABLE, TRIGRAM_TABLE):
            cursor.execute(f"INSERT INTO {table}({table}, rank) VALUES ('integrity-check', 1)")


def fts_rebuild() -> None:
    with connection.cursor() as cursor:
        for table in (FTS_TABLE, TRIGRAM_TABLE):
            cursor.execute(f"INSERT INTO {table}({table}) VALUES ('rebuild')")


def fts_ids() -> set[int]:
    """Row ids the keyword index holds (read from the index itself, not the content table)."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id FROM {FTS_TABLE}_docsize")
        return {int(r[0]) for r in cursor.fetchall()}


def vector_ids(dimensions: int = DEFAULT_DIMENSIONS) -> set[int]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT memory_id FROM {vec_table(dimensions)}")
        return {int(r[0]) for r in cursor.fetchall()}


def integrity_check() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA integrity_check")
        return [r[0] for r in cursor.fetchall()]
