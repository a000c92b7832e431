"""The pgvector tables: writing, reading and KNN over the vectors (HNSW, cosine), the change log, the generation.

The same functions as memoryhub/storage/sqlite/vectors.py. A query's vector travels as a float array cast to
`vector`; many vectors go in by binary COPY and come back as pgvector's binary form (`vector_send`), which numpy
reads as it is: as text, each of 384 numbers per vector is printed by one side and parsed by the other (a
thousand vectors of an import took longer to send than to index).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from django.db import DatabaseError, connection

from memoryhub.storage.portable import LogPosition, RowScope, StoredVector
from memoryhub.storage.postgres.schema import (
    CHANGE_TABLE,
    DEFAULT_DIMENSIONS,
    MEMORY_TABLE,
    STORE_META_TABLE,
    ensure_vec_table,
    existing_vec_dimensions,
    vec_table,
)

# How many graph neighbours HNSW keeps in view per search (pgvector's default is 40). Iterative scans go on
# past a filter that drops most of them, so a project's search still gets k rows (pgvector 0.8).
_EF_SEARCH_MIN = 200

# pgvector's binary form of a vector (what `vector_send` returns and binary COPY reads): the dimension count and an
# unused word (int16 each), then each value as a big-endian float4.
_VECTOR_HEAD = 4
_COPY_SIGNATURE = b"PGCOPY\n\xff\r\n\x00" + bytes(8)  # the binary COPY header: signature, no flags, no extension
_COPY_END = b"\xff\xff"


def to_blob(vector: Sequence[float] | np.ndarray) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


def _as_list(vector: Sequence[float] | np.ndarray) -> list[float]:
    return np.asarray(vector, dtype=np.float32).astype(float).tolist()


def write_vector(memory_id: int, vector: Sequence[float] | np.ndarray) -> None:
    values = _as_list(vector)
    dims = len(values)
    existing = existing_vec_dimensions()
    if dims not in existing:
        ensure_vec_table(dims)
    with connection.cursor() as cursor:
        for other in existing:
            if other != dims:
                cursor.execute(f"DELETE FROM {vec_table(other)} WHERE memory_id = %s", [memory_id])
        cursor.execute(
            f"""INSERT INTO {vec_table(dims)}(memory_id, embedding) VALUES (%s, %s::real[]::vector)
                ON CONFLICT (memory_id) DO UPDATE SET embedding = EXCLUDED.embedding""",
            [memory_id, values],
        )
    log_changes([memory_id])


def delete_vectors(memory_ids: Sequence[int]) -> None:
    with connection.cursor() as cursor:
        for dims in existing_vec_dimensions():
            cursor.execute(f"DELETE FROM {vec_table(dims)} WHERE memory_id = ANY(%s)", [[int(i) for i in memory_ids]])
    log_changes(memory_ids)


def _vector(sent: bytes) -> np.ndarray:
    """A vector from pgvector's binary form (`vector_send`), as float32."""
    return np.frombuffer(sent, dtype=">f4", offset=_VECTOR_HEAD).astype(np.float32)


def _copy_rows(pairs: Sequence[tuple[int, np.ndarray]], dims: int) -> bytes:
    """Binary COPY data for (memory_id, vector) rows: per row, two fields (a bigint, a vector), each after its
    length, every number big-endian."""
    row = np.dtype([("fields", ">i2"), ("id_size", ">i4"), ("id", ">i8"), ("vector_size", ">i4"),
                    ("dims", ">i2"), ("unused", ">i2"), ("values", ">f4", (dims,))])  # fmt: skip
    rows = np.zeros(len(pairs), dtype=row)
    rows["fields"], rows["id_size"], rows["vector_size"], rows["dims"] = 2, 8, _VECTOR_HEAD + 4 * dims, dims
    rows["id"] = [int(mid) for mid, _ in pairs]
    rows["values"] = np.vstack([np.asarray(vector, dtype=np.float32) for _, vector in pairs])
    return _COPY_SIGNATURE + rows.tobytes() + _COPY_END


def read_vectors(memory_ids: Sequence[int], dimensions: int = DEFAULT_DIMENSIONS) -> dict[int, np.ndarray]:
    if not memory_ids:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT memory_id, vector_send(embedding) FROM {vec_table(dimensions)} WHERE memory_id = ANY(%s)",
            [[int(i) for i in memory_ids]],
        )
        return {int(mid): _vector(sent) for mid, sent in cursor.fetchall()}


# The HNSW settings each pooled connection was last given in autocommit: the session keeps them, so a search sends
# them only when they change (one round trip fewer per search). Inside a transaction they are sent every time, and
# forgotten: a rollback would take them back.
_session_settings: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()


def _nearest(cursor, k: int, session: Any, lasting: bool) -> None:
    """The HNSW settings for k results on `session` (a psycopg connection), unless it holds them already;
    `lasting`: the session is in autocommit, so they outlive this statement."""
    ef_search = str(max(_EF_SEARCH_MIN, int(k)))
    if lasting and _session_settings.get(session) == ef_search:
        return
    cursor.execute(
        "SELECT set_config('hnsw.ef_search', %s, false), set_config('hnsw.iterative_scan', 'relaxed_order', false)",
        [ef_search],
    )
    if lasting:
        _session_settings[session] = ef_search
    else:
        _session_settings.pop(session, None)


def knn(vector: np.ndarray, k: int) -> list[tuple[int, float]]:
    """The k nearest by cosine distance (HNSW): [(memory_id, distance)], nearest first."""
    return knn_where(vector, k)


def knn_where(
    vector: np.ndarray, k: int, where_sql: str = "TRUE", where_params: Sequence = ()
) -> list[tuple[int, float]]:
    """The k nearest rows passing `where_sql` (memory table alias `m`), nearest first. HNSW with iterative scans
    keeps walking the graph until k rows pass; a narrow filter makes the planner rank its own rows exactly."""
    with connection.cursor() as cursor:
        return _knn_where(cursor, connection.connection, connection.get_autocommit(), vector, k, where_sql,
                          where_params)  # fmt: skip


# How long a search waits for a pooled connection of its own for the vector side: none. A connection free right now
# is used; otherwise the search's own thread ranks the vectors after its keyword side, as it would without one.
_BORROW_TIMEOUT = 0.001


def knn_where_beside(
    vector: np.ndarray, k: int, where_sql: str = "TRUE", where_params: Sequence = ()
) -> list[tuple[int, float]] | None:
    """`knn_where` on another connection of the pool than this thread's, borrowed only if one is free at once and
    handed back at once: a search ranks its vectors there while its own connection runs the keyword side. None
    when no connection is free (then nothing ran), or without a pool. Never waits for one: the threads holding
    the pool's connections may be searches waiting for this very answer."""
    from psycopg_pool import PoolClosed, PoolTimeout

    pool = getattr(connection, "pool", None)
    if pool is None:
        return None
    try:
        session = pool.getconn(timeout=_BORROW_TIMEOUT)
    except (PoolTimeout, PoolClosed):
        return None
    try:
        with session.cursor() as cursor:
            return _knn_where(cursor, session, session.autocommit, vector, k, where_sql, where_params)
    finally:
        if not session.autocommit:
            session.rollback()  # a read only: nothing to keep, and the pool takes it back idle
        pool.putconn(session)


def _knn_where(
    cursor, session: Any, lasting: bool, vector: np.ndarray, k: int, where_sql: str, where_params: Sequence
) -> list[tuple[int, float]]:
    values = _as_list(vector)
    table = vec_table(len(values))
    _nearest(cursor, k, session, lasting)
    cursor.execute(
        f"""SELECT v.memory_id, v.embedding <=> %s::real[]::vector AS d
            FROM {table} v JOIN {MEMORY_TABLE} m ON m.id = v.memory_id
            WHERE {where_sql} ORDER BY d LIMIT %s""",
        [values, *where_params, int(k)],
    )
    rows = [(int(r[0]), float(r[1])) for r in cursor.fetchall()]
    if len(rows) < k:
        # The index walk stops at its scan limit; in an index full of dead entries (rows deleted or rolled back
        # and not yet vacuumed) it can stop before reaching the few rows a narrow filter allows. Fewer than k
        # rows means the filter allows few: rank exactly those (OFFSET 0 keeps the planner off the index).
        cursor.execute(
            f"""SELECT memory_id, d FROM (
                    SELECT v.memory_id, v.embedding <=> %s::real[]::vector AS d
                    FROM {table} v JOIN {MEMORY_TABLE} m ON m.id = v.memory_id
                    WHERE {where_sql} OFFSET 0) exact
                ORDER BY d, memory_id LIMIT %s""",
            [values, *where_params, int(k)],
        )
        rows = [(int(r[0]), float(r[1])) for r in cursor.fetchall()]
    return sorted(rows, key=lambda r: (r[1], r[0]))  # relaxed order: HNSW may hand them back slightly out of order


def knn_among(vector: np.ndarray, k: int, memory_ids: Sequence[int]) -> list[tuple[int, float]]:
    """Exact cosine KNN restricted to these ids (read by primary key, no index approximation)."""
    if not memory_ids:
        return []
    values = _as_list(vector)
    with connection.cursor() as cursor:
        cursor.execute(
            f"""SELECT memory_id, d FROM (
                    SELECT memory_id, embedding <=> %s::real[]::vector AS d FROM {vec_table(len(values))}
                    WHERE memory_id = ANY(%s) OFFSET 0) exact
                ORDER BY d, memory_id LIMIT %s""",
            [values, [int(i) for i in memory_ids], int(k)],
        )
        return [(int(r[0]), float(r[1])) for r in cursor.fetchall()]


def knn_binary_rescored_among(vector: np.ndarray, k: int, candidates: int) -> list[tuple[int, float]]:
    """SQLite's two-pass KNN for large stores; the HNSW index is that first pass here."""
    return knn(vector, k)


def insert_new_vectors(pairs: Sequence[tuple[int, np.ndarray]]) -> None:
    """Vectors of rows that have none yet, in one binary COPY."""
    if not pairs:
        return
    dims = int(np.asarray(pairs[0][1]).size)
    ensure_vec_table(dims)
    data = _copy_rows(pairs, dims)
    with connection.cursor() as cursor:
        with cursor.copy(f"COPY {vec_table(dims)} (memory_id, embedding) FROM STDIN (FORMAT BINARY)") as copy:
            copy.write(data)
    log_changes([mid for mid, _ in pairs])


def quantize_binary(vector: np.ndarray) -> bytes:
    """A 1-bit code per dimension (positive: 1), least significant bit first, as sqlite-vec packs it."""
    return np.packbits(np.asarray(vector, dtype=np.float32) > 0, bitorder="little").tobytes()


def _every_row_or(
    select: str, id_column: str, memory_ids: Sequence[int] | None, batch: int, *, order_by: str = ""
) -> Iterator[tuple]:
    """What `select` (a statement a WHERE can follow) reads from every row (in `order_by`'s order, if given) or from
    the rows of these ids only, `batch` rows at a time."""
    with connection.cursor() as cursor:
        if memory_ids is None:
            cursor.execute(f"{select} ORDER BY {order_by}" if order_by else select)
        else:
            cursor.execute(f"{select} WHERE {id_column} = ANY(%s)", [[int(i) for i in memory_ids]])
        while rows := cursor.fetchmany(batch):
            yield from rows


def iter_vectors(dimensions: int, memory_ids: Sequence[int] | None = None, batch: int = 5000) -> Iterator[StoredVector]:
    """(memory_id, float32 vector, bits) for every row of the vector table, or for these ids only."""
    select = f"SELECT memory_id, vector_send(embedding) FROM {vec_table(dimensions)}"
    for mid, sent in _every_row_or(select, "memory_id", memory_ids, batch, order_by="memory_id"):
        vector = _vector(sent)
        yield StoredVector(int(mid), vector, quantize_binary(vector))


def memory_scopes(memory_ids: Sequence[int] | None = None) -> Iterator[RowScope]:
    """(id, project, status, embed_model) of every memory row, or of these ids."""
    select = f"SELECT id, project, status, embed_model FROM {MEMORY_TABLE}"
    yield from (RowScope(*row) for row in _every_row_or(select, "id", memory_ids, 5000))


def log_changes(memory_ids: Sequence[int]) -> None:
    """Note in the change log that these rows' vectors changed (the memory table's trigger notes the rest)."""
    if memory_ids:
        with connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {CHANGE_TABLE}(memory_id) SELECT unnest(%s::bigint[])", [[int(i) for i in memory_ids]]
            )


def change_position(seq: int) -> LogPosition | None:
    """(generation, highest seq, tag of entry `seq` or None, lowest seq still logged), as on SQLite, and the
    horizon of this statement's snapshot: the oldest transaction still running and the next to start. Writers
    run side by side here, so a seq below the highest can still appear; the transaction holding it started
    before the next to start, and once the oldest still running is past that, it has ended."""
    with connection.cursor() as cursor:
        try:
            cursor.execute(
                f"""SELECT (SELECT value FROM {STORE_META_TABLE} WHERE key = 'generation'),
                           (SELECT max(seq) FROM {CHANGE_TABLE}),
                           (SELECT tag FROM {CHANGE_TABLE} WHERE seq = %s),
                           (SELECT min(seq) FROM {CHANGE_TABLE}),
                           pg_snapshot_xmin(pg_current_snapshot())::text::bigint,
                           pg_snapshot_xmax(pg_current_snapshot())::text::bigint""",
                [int(seq)],
            )
        except DatabaseError:
            return None
        generation, high, tag, low, oldest, next_xid = cursor.fetchone()
    high = 0 if high is None else int(high)
    return LogPosition(
        str(generation or ""), high, None if tag is None else int(tag), int(high + 1 if low is None else low),
        (int(oldest), int(next_xid)),
    )  # fmt: skip


def renew_generation(conn: Any = None) -> None:
    """Give the store a new generation (a restore or `reembed --all` replaced its vectors wholesale)."""
    statement = (
        f"UPDATE {STORE_META_TABLE} SET value = md5(random()::text || clock_timestamp()::text) WHERE key = 'generation'"
    )
    cursor = (conn or connection).cursor()
    try:
        cursor.execute(statement)
    finally:
        cursor.close()
