"""The vec0 tables: writing, reading and exact KNN over the vectors (the store of record for the vector copy)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from django.db import DatabaseError, connection

from memoryhub.storage.portable import LogPosition, RowScope, StoredVector
from memoryhub.storage.sqlite.schema import (
    CHANGE_TABLE,
    DEFAULT_DIMENSIONS,
    MEMORY_TABLE,
    STORE_META_TABLE,
    ensure_vec_table,
    existing_vec_dimensions,
    vec_table,
)


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
    log_changes([memory_id])


def delete_vectors(memory_ids: Sequence[int]) -> None:
    with connection.cursor() as cursor:
        for dims in existing_vec_dimensions():
            cursor.executemany(f"DELETE FROM {vec_table(dims)} WHERE memory_id = %s", [[i] for i in memory_ids])
    log_changes(memory_ids)


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


def knn_among(vector: np.ndarray, k: int, memory_ids: Sequence[int]) -> list[tuple[int, float]]:
    """Exact cosine KNN restricted to these ids (vec0 filters the scan by rowid): for narrow filters."""
    if not memory_ids:
        return []
    blob = to_blob(vector)
    marks = ",".join(["%s"] * len(memory_ids))
    with connection.cursor() as cursor:
        if len(memory_ids) <= 64:
            # Point lookups for a handful; vec0 0.1.9 also answers a KNN with `memory_id IN (one id)` with nothing.
            cursor.execute(
                f"""SELECT memory_id, vec_distance_cosine(embedding, %s) AS d FROM {vec_table(len(blob) // 4)}
                    WHERE memory_id IN ({marks}) ORDER BY d, memory_id LIMIT %s""",
                [blob, *[int(i) for i in memory_ids], int(k)],
            )
            return [(int(r[0]), float(r[1])) for r in cursor.fetchall()]
        cursor.execute(
            f"""SELECT memory_id, distance FROM {vec_table(len(blob) // 4)}
                WHERE embedding MATCH %s AND k = %s AND memory_id IN ({marks})""",
            [blob, int(k), *[int(i) for i in memory_ids]],
        )
        return [(int(r[0]), float(r[1])) for r in cursor.fetchall()]


def knn_binary_rescored_among(vector: np.ndarray, k: int, candidates: int) -> list[tuple[int, float]]:
    """Hamming KNN on the 1-bit vectors for `candidates` rows, then exact cosine on those only.

    Like `knn_binary_rescored`, but the rescore is a KNN restricted to the candidate ids, which vec0 answers
    without a per-row point lookup (about 3x faster than joining the candidates back)."""
    blob = to_blob(vector)
    table = vec_table(len(blob) // 4)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT memory_id FROM {table} WHERE embedding_bits MATCH vec_quantize_binary(%s) AND k = %s",
            [blob, int(candidates)],
        )
        coarse = [int(r[0]) for r in cursor.fetchall()]
    return knn_among(vector, k, coarse)


def insert_new_vectors(pairs: Sequence[tuple[int, np.ndarray]]) -> None:
    """Vectors of rows that have none yet (a freshly built benchmark store), in one executemany.

    `write_vector` deletes before it inserts and looks the tables up per row; for 100k new rows that is minutes.
    """
    if not pairs:
        return
    dims = len(to_blob(pairs[0][1])) // 4
    ensure_vec_table(dims)
    with connection.cursor() as cursor:
        cursor.executemany(
            f"INSERT INTO {vec_table(dims)}(memory_id, embedding, embedding_bits) "
            "VALUES (%s, %s, vec_quantize_binary(%s))",
            [[int(mid), to_blob(v), to_blob(v)] for mid, v in pairs],
        )
    log_changes([mid for mid, _ in pairs])


def quantize_binary(vector: np.ndarray) -> bytes:
    """The query's bits exactly as vec0 stores `embedding_bits` (same function, same bit order)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT vec_quantize_binary(%s)", [to_blob(vector)])
        return bytes(cursor.fetchone()[0])


def _every_row_or(select: str, id_column: str, memory_ids: Sequence[int] | None, batch: int) -> Iterator[tuple]:
    """What `select` (a statement a WHERE can follow) reads from every row, `batch` rows at a time (never a million
    tuples at once), or from the rows of these ids only, 500 ids to a statement."""
    with connection.cursor() as cursor:
        if memory_ids is None:
            cursor.execute(select)
            while rows := cursor.fetchmany(batch):
                yield from rows
            return
        for start in range(0, len(memory_ids), 500):
            chunk = [int(i) for i in memory_ids[start : start + 500]]
            cursor.execute(f"{select} WHERE {id_column} IN ({','.join(['%s'] * len(chunk))})", chunk)
            yield from cursor.fetchall()


def iter_vectors(dimensions: int, memory_ids: Sequence[int] | None = None, batch: int = 5000) -> Iterator[StoredVector]:
    """(memory_id, float32 vector, bits) for every row of the vec table, or for these ids only."""
    select = f"SELECT memory_id, embedding, embedding_bits FROM {vec_table(dimensions)}"
    for mid, blob, bits in _every_row_or(select, "memory_id", memory_ids, batch):
        yield StoredVector(int(mid), np.frombuffer(blob, dtype=np.float32), bytes(bits))


def memory_scopes(memory_ids: Sequence[int] | None = None) -> Iterator[RowScope]:
    """(id, project, status, embed_model) of every memory row, or of these ids."""
    select = f"SELECT id, project, status, embed_model FROM {MEMORY_TABLE}"
    yield from (RowScope(*row) for row in _every_row_or(select, "id", memory_ids, 5000))


def log_changes(memory_ids: Sequence[int]) -> None:
    """Note in the change log that these rows' vectors changed (the memory table's triggers note the rest)."""
    if memory_ids:
        with connection.cursor() as cursor:
            cursor.executemany(f"INSERT INTO {CHANGE_TABLE}(memory_id) VALUES (%s)", [[int(i)] for i in memory_ids])


def change_position(seq: int) -> LogPosition | None:
    """(the store's generation, the highest seq in the change log, the tag of entry `seq` (None if it is gone),
    the lowest seq still logged), read in one statement so the four agree; None on a store without the log. One
    writer at a time: the log is in commit order, so it has no horizon."""
    with connection.cursor() as cursor:
        try:
            cursor.execute(
                f"""SELECT (SELECT value FROM {STORE_META_TABLE} WHERE key = 'generation'),
                           (SELECT max(seq) FROM {CHANGE_TABLE}),
                           (SELECT tag FROM {CHANGE_TABLE} WHERE seq = %s),
                           (SELECT min(seq) FROM {CHANGE_TABLE}),
                           (SELECT seq FROM sqlite_sequence WHERE name = '{CHANGE_TABLE}')""",
                [int(seq)],
            )
        except DatabaseError:
            return None  # a store from before migration 0004 (a restore of an old backup, not yet migrated)
        generation, high, tag, low, counter = cursor.fetchone()
    # An empty log (everything pruned) still has its counter: the next entry comes after it.
    high = int(counter or 0) if high is None else int(high)
    tag = None if tag is None else int(tag)
    return LogPosition(str(generation or ""), high, tag, int(high + 1 if low is None else low))


def renew_generation(conn: Any = None) -> None:
    """Give the store a new generation: every process's vector copy of it rebuilds on its next search. `conn`: a
    driver connection (a restore stages its file through one); by default Django's."""
    statement = f"UPDATE {STORE_META_TABLE} SET value = lower(hex(randomblob(16))) WHERE key = 'generation'"
    if conn is not None:
        try:
            conn.execute(statement)
            conn.commit()
        except conn.Error:
            pass  # a backup from before the change log: the copies notice the missing log instead
        return
    with connection.cursor() as cursor:
        cursor.execute(statement)
