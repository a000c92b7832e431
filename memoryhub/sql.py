"""Every raw SQL statement of MemoryHub: FTS5 and sqlite-vec tables, their triggers and queries.

Always parameters, never text from a user spliced into SQL. Table names are built only from integers
(vector dimensions) and constants here.
"""

from __future__ import annotations

from collections.abc import Sequence

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
#
# The word index also holds each row's scope as one token (column `scope`, weight 0: it never scores): FTS5
# then intersects a query's words with the scope's doclist, so a project's search scores only the rows it
# may see instead of scoring every match in the store and dropping the rest in a join. The view supplies the
# token to FTS5 when it reads the content back ('rebuild', 'integrity-check').
FTS_SOURCE_VIEW = "memory_fts_source"
GLOBAL_SCOPE_TOKEN = "scopeglobal"


def _scope_sql(project_column: str) -> str:
    token = f"'scopep' || lower(hex({project_column}))"
    return f"CASE WHEN {project_column} IS NULL THEN '{GLOBAL_SCOPE_TOKEN}' ELSE {token} END"


def scope_token(project: str | None) -> str:
    """The token `_scope_sql` stores for this project (hex of its UTF-8: one token whatever the name holds)."""
    return GLOBAL_SCOPE_TOKEN if project is None else "scopep" + project.encode().hex()


def _fts_triggers(scoped: bool) -> list[str]:
    cols, new, old = ("content, tags, scope", "new.content, new.tags, " + _scope_sql("new.project"),
                      "old.content, old.tags, " + _scope_sql("old.project")) if scoped else (
                      "content, tags", "new.content, new.tags", "old.content, old.tags")  # fmt: skip
    watched = "content, tags, project" if scoped else "content, tags"
    return [
        f"""CREATE TRIGGER memory_fts_ai AFTER INSERT ON {MEMORY_TABLE} BEGIN
            INSERT INTO {FTS_TABLE}(rowid, {cols}) VALUES (new.id, {new});
            INSERT INTO {TRIGRAM_TABLE}(rowid, content) VALUES (new.id, new.content);
        END""",
        f"""CREATE TRIGGER memory_fts_ad AFTER DELETE ON {MEMORY_TABLE} BEGIN
            INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, {cols}) VALUES ('delete', old.id, {old});
            INSERT INTO {TRIGRAM_TABLE}({TRIGRAM_TABLE}, rowid, content) VALUES ('delete', old.id, old.content);
        END""",
        f"""CREATE TRIGGER memory_fts_au AFTER UPDATE OF {watched} ON {MEMORY_TABLE} BEGIN
            INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, {cols}) VALUES ('delete', old.id, {old});
            INSERT INTO {FTS_TABLE}(rowid, {cols}) VALUES (new.id, {new});
            INSERT INTO {TRIGRAM_TABLE}({TRIGRAM_TABLE}, rowid, content) VALUES ('delete', old.id, old.content);
            INSERT INTO {TRIGRAM_TABLE}(rowid, content) VALUES (new.id, new.content);
        END""",
    ]


_DROP_FTS_TRIGGERS = [f"DROP TRIGGER IF EXISTS memory_fts_{s}" for s in ("au", "ad", "ai")]
_PORTER = "tokenize='porter unicode61 remove_diacritics 2'"

# Migration 0002 (kept as it was: the schema history replays it), then 0003 adds the scope column.
FTS_CREATE_V1 = [
    f"""CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5(
        content, tags, content='{MEMORY_TABLE}', content_rowid='id', {_PORTER})""",
    f"""CREATE VIRTUAL TABLE {TRIGRAM_TABLE} USING fts5(
        content, content='{MEMORY_TABLE}', content_rowid='id', tokenize='trigram')""",
    *_fts_triggers(scoped=False),
]
FTS_DROP_V1 = [*_DROP_FTS_TRIGGERS, f"DROP TABLE IF EXISTS {TRIGRAM_TABLE}", f"DROP TABLE IF EXISTS {FTS_TABLE}"]
FTS_SCOPE_UP = [
    *_DROP_FTS_TRIGGERS,
    f"DROP TABLE IF EXISTS {FTS_TABLE}",
    f"""CREATE VIEW {FTS_SOURCE_VIEW} AS
        SELECT id, content, tags, {_scope_sql("project")} AS scope FROM {MEMORY_TABLE}""",
    f"""CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5(
        content, tags, scope, content='{FTS_SOURCE_VIEW}', content_rowid='id', {_PORTER})""",
    *_fts_triggers(scoped=True),
    f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('rebuild')",
]
FTS_SCOPE_DOWN = [
    *_DROP_FTS_TRIGGERS,
    f"DROP TABLE IF EXISTS {FTS_TABLE}",
    f"DROP VIEW IF EXISTS {FTS_SOURCE_VIEW}",
    FTS_CREATE_V1[0],
    *_fts_triggers(scoped=False),
    f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('rebuild')",
]
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


def fts_match(match_expression: str, limit: int, table: str = FTS_TABLE) -> list[tuple[int, float]]:
    """BM25 over the FTS index for an already-safe MATCH expression: [(memory_id, bm25)], best first.

    bm25() is lower-is-better; the content column weighs more than tags.
    """
    if table not in (FTS_TABLE, TRIGRAM_TABLE):
        raise ValueError(table)
    rank = FTS_RANK if table == FTS_TABLE else f"bm25({table})"
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


# --- Checks and repairs (memoryhub/checks.py, memoryhub/backup.py) --------------------------------------------
# These take any DB-API connection (`conn`), so the same checks run on the live store through Django and on a
# plain connection to a backup file that is about to be restored. None takes parameters from a user.
def _on(conn):
    return conn if conn is not None else connection


def schema_names(conn=None) -> set[str]:
    cursor = _on(conn).cursor()
    try:
        cursor.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger')")
        return {row[0] for row in cursor.fetchall()}
    finally:
        cursor.close()


def integrity_messages(conn=None) -> list[str]:
    """PRAGMA integrity_check: ['ok'] when the file is sound (FTS5 tables check their own shadow tables too)."""
    cursor = _on(conn).cursor()
    try:
        cursor.execute("PRAGMA integrity_check")
        return [str(r[0]) for r in cursor.fetchall()]
    finally:
        cursor.close()


def fts_check_table(table: str, conn=None) -> None:
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


def index_ids(conn=None) -> dict[str, set[int]]:
    """Ids held by the rows and by each index, read from the indexes themselves (docsize, vec0 rowids)."""
    names = schema_names(conn)
    vectors: set[int] = set()
    for name in sorted(names):
        suffix = name.removeprefix("memory_vec_")
        if name.startswith("memory_vec_") and suffix.isdigit():
            vectors |= _id_set(conn, f"SELECT memory_id FROM {vec_table(int(suffix))}")
    return {
        "rows": _id_set(conn, f"SELECT id FROM {MEMORY_TABLE}"),
        "embedded_rows": _id_set(conn, f"SELECT id FROM {MEMORY_TABLE} WHERE embed_model != ''"),
        "fts": _id_set(conn, f"SELECT id FROM {FTS_TABLE}_docsize"),
        "trigram": _id_set(conn, f"SELECT id FROM {TRIGRAM_TABLE}_docsize"),
        "vectors": vectors,
    }


def set_journal_mode(conn, mode: str) -> None:
    """A backup file is made self-contained (DELETE: no -wal beside it); the live store stays in WAL."""
    if mode not in ("DELETE", "WAL"):
        raise ValueError(mode)
    cursor = conn.cursor()
    try:
        cursor.execute(f"PRAGMA journal_mode={mode}")
        cursor.fetchall()
    finally:
        cursor.close()


def page_size(conn) -> int:
    cursor = conn.cursor()
    try:
        cursor.execute("PRAGMA page_size")
        return int(cursor.fetchone()[0])
    finally:
        cursor.close()


# --- Search (memoryhub/search.py) ------------------------------------------------------------------------------
# Filters are applied inside the candidate queries (a JOIN on the memory row), so a narrow filter never starves
# the keyword results; the vector side widens its pool instead (vec0 has no column filters on this schema).
# Memory-mapped reads: vec0 reads vectors from blobs several pages long, and FTS5 doclists likewise; mapping the
# file avoids copying every page through SQLite's page cache (exact KNN ~35% faster, point lookups ~5x).
MMAP_BYTES = 1 << 30


def prepare_reads() -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"PRAGMA mmap_size={MMAP_BYTES}")
        cursor.fetchall()


def memory_filter_sql(
    *,
    alias: str = "m",
    project: str | None = None,
    every_project: bool = False,
    allowed_projects: Sequence[str] | None = None,
    status: str | None = None,
    category: str | None = None,
    tier: str | None = None,
    source: str | None = None,
    tags: Sequence[str] | None = None,
    embed_model: str | None = None,
    created_after=None,
    created_before=None,
    accessed_after=None,
    accessed_before=None,
    include_scope: bool = True,
) -> tuple[str, list]:
    """A WHERE fragment (never empty: at least `1`) and its parameters for the memory table under `alias`.

    Scope: a project sees its own rows and the global ones (project NULL); no project means globals only,
    unless `every_project`. `allowed_projects` (a token's projects) narrows any of these further.
    """
    if not alias.isidentifier():
        raise ValueError(alias)
    a = alias
    clauses: list[str] = []
    params: list = []
    if include_scope and not every_project:
        if project:
            clauses.append(f"({a}.project = %s OR {a}.project IS NULL)")
            params.append(project)
        else:
            clauses.append(f"{a}.project IS NULL")
    if allowed_projects is not None:
        marks = ",".join(["%s"] * len(allowed_projects))
        clauses.append(f"({a}.project IS NULL" + (f" OR {a}.project IN ({marks}))" if marks else ")"))
        params.extend(allowed_projects)
    for column, value in (("status", status), ("category", category), ("tier", tier), ("source", source)):
        if value is not None:
            clauses.append(f"{a}.{column} = %s")
            params.append(value)
    if embed_model is not None:
        clauses.append(f"{a}.embed_model = %s")
        params.append(embed_model)
    for tag in tags or ():
        clauses.append(f"EXISTS (SELECT 1 FROM json_each({a}.tags) WHERE json_each.value = %s)")
        params.append(tag)
    adapt = connection.ops.adapt_datetimefield_value
    for column, op, value in (
        ("created_at", ">=", created_after),
        ("created_at", "<", created_before),
        ("last_accessed_at", ">=", accessed_after),
        ("last_accessed_at", "<", accessed_before),
    ):
        if value is not None:
            clauses.append(f"{a}.{column} {op} %s")
            params.append(adapt(value))
    return (" AND ".join(clauses) or "1"), params


def fts_search(
    match_expression: str,
    limit: int,
    where_sql: str = "1",
    where_params: Sequence = (),
    table: str = FTS_TABLE,
    min_rowid: int | None = None,
) -> list[tuple[int, float]]:
    """BM25 over an FTS index for a safe MATCH expression, restricted to memory rows passing `where_sql` (alias
    `m`) and, given `min_rowid`, to rows from that id on: [(memory_id, bm25)], best (most negative) first.

    CROSS JOIN fixes the order: the MATCH runs once and each hit looks up its row. With a plain JOIN the planner
    may walk the memory rows (by a status index) and run the MATCH once per row: seconds instead of milliseconds.
    A rowid bound is handed to FTS5 itself, which then starts its doclists there and scores nothing older.
    """
    if table not in (FTS_TABLE, TRIGRAM_TABLE):
        raise ValueError(table)
    rank = FTS_RANK if table == FTS_TABLE else f"bm25({table})"
    bound, bound_params = ("", []) if min_rowid is None else (f"AND {table}.rowid >= %s", [int(min_rowid)])
    with connection.cursor() as cursor:
        cursor.execute(
            f"""SELECT {table}.rowid, {rank} AS score
                FROM {table} CROSS JOIN {MEMORY_TABLE} m ON m.id = {table}.rowid
                WHERE {table} MATCH %s {bound} AND {where_sql}
                ORDER BY score, {table}.rowid LIMIT %s""",
            [match_expression, *bound_params, *where_params, int(limit)],
        )
        return [(int(r[0]), float(r[1])) for r in cursor.fetchall()]


def fts_nth_newest(match_expression: str, n: int) -> int | None:
    """The id of the n-th newest row of the word index matching the expression, None when fewer match.

    Walks the doclists newest first and stops at the n-th: no scoring, no row lookups, well under a
    millisecond for a few thousand. How keyword search tells a common word from a rare one, and where it
    stops scoring when every word of a query is common."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s ORDER BY rowid DESC LIMIT 1 OFFSET %s",
            [match_expression, max(0, int(n) - 1)],
        )
        row = cursor.fetchone()
        return None if row is None else int(row[0])


def scope_alternatives(*, project: str | None, every_project: bool) -> list[tuple[str, list]]:
    """The scope as separate conditions whose union it is, each one a range of the (project, status) index.

    `project = ? OR project IS NULL` reads well but the planner then walks the status index over the whole
    table (200 ms at 100k rows); counting or listing each side separately stays on the project index."""
    if every_project:
        return [("1", [])]
    if project:
        return [("m.project = %s", [project]), ("m.project IS NULL", [])]
    return [("m.project IS NULL", [])]


def count_scoped(scopes: list[tuple[str, list]], where_sql: str = "1", where_params: Sequence = ()) -> int:
    return sum(count_memories(f"{scope} AND {where_sql}", [*params, *where_params]) for scope, params in scopes)


def ids_scoped(scopes: list[tuple[str, list]], where_sql: str, where_params: Sequence, limit: int) -> list[int]:
    out: list[int] = []
    for scope, params in scopes:
        out.extend(memory_ids_where(f"{scope} AND {where_sql}", [*params, *where_params], limit=limit - len(out)))
        if len(out) >= limit:
            break
    return out


def filter_memory_ids(memory_ids: Sequence[int], where_sql: str = "1", where_params: Sequence = ()) -> set[int]:
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


def count_memories(where_sql: str = "1", where_params: Sequence = ()) -> int:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM {MEMORY_TABLE} m WHERE {where_sql}", list(where_params))
        return int(cursor.fetchone()[0])


def memory_ids_where(where_sql: str = "1", where_params: Sequence = (), limit: int = 10_000) -> list[int]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT m.id FROM {MEMORY_TABLE} m WHERE {where_sql} LIMIT %s", [*where_params, int(limit)])
        return [int(r[0]) for r in cursor.fetchall()]


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


_SYNCHRONOUS = {"0": "OFF", "1": "NORMAL", "2": "FULL", "3": "EXTRA"}


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


def quantize_binary(vector: np.ndarray) -> bytes:
    """The query's bits exactly as vec0 stores `embedding_bits` (same function, same bit order)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT vec_quantize_binary(%s)", [to_blob(vector)])
        return bytes(cursor.fetchone()[0])


def iter_vectors(dimensions: int, memory_ids: Sequence[int] | None = None, batch: int = 5000):
    """(memory_id, float32 vector, bits) for every row of the vec table, or for these ids only."""
    table = vec_table(dimensions)
    with connection.cursor() as cursor:
        if memory_ids is None:
            cursor.execute(f"SELECT memory_id, embedding, embedding_bits FROM {table}")
            while rows := cursor.fetchmany(batch):
                yield from ((int(r[0]), np.frombuffer(r[1], dtype=np.float32), bytes(r[2])) for r in rows)
            return
        for start in range(0, len(memory_ids), 500):
            chunk = [int(i) for i in memory_ids[start : start + 500]]
            marks = ",".join(["%s"] * len(chunk))
            cursor.execute(
                f"SELECT memory_id, embedding, embedding_bits FROM {table} WHERE memory_id IN ({marks})", chunk
            )
            yield from ((int(r[0]), np.frombuffer(r[1], dtype=np.float32), bytes(r[2])) for r in cursor.fetchall())


def memory_scopes(memory_ids: Sequence[int] | None = None):
    """(id, project, status, embed_model) of every memory row, or of these ids."""
    with connection.cursor() as cursor:
        if memory_ids is None:
            cursor.execute(f"SELECT id, project, status, embed_model FROM {MEMORY_TABLE}")
            yield from cursor.fetchall()
            return
        for start in range(0, len(memory_ids), 500):
            chunk = [int(i) for i in memory_ids[start : start + 500]]
            marks = ",".join(["%s"] * len(chunk))
            cursor.execute(f"SELECT id, project, status, embed_model FROM {MEMORY_TABLE} WHERE id IN ({marks})", chunk)
            yield from cursor.fetchall()


def memory_ids_changed_since(*, after_id: int, updated_since, embed_model: str) -> tuple[list[int], list[int]]:
    """(ids above `after_id` with vectors of `embed_model`, ids at or below it with a history event since
    `updated_since`). Events, not updated_at: that column has no index, the events' created_at has, and every
    domain write that can change a vector records one (reinforcing, the common write, records none)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id FROM {MEMORY_TABLE} WHERE id > %s AND embed_model = %s ORDER BY id", [after_id, embed_model]
        )
        new = [int(r[0]) for r in cursor.fetchall()]
        cursor.execute(
            "SELECT DISTINCT memory_id FROM memoryhub_memoryevent WHERE created_at >= %s AND memory_id <= %s",
            [connection.ops.adapt_datetimefield_value(updated_since), after_id],
        )
        return new, [int(r[0]) for r in cursor.fetchall()]


def fusion_rows(memory_ids: Sequence[int]):
    """(id, content, importance, confirmed, category, tier, last referenced) per id, for ranking candidates.

    Raw rather than the ORM: building model instances for ~100 candidates per search cost more than the query."""
    from datetime import UTC, datetime

    out = []
    with connection.cursor() as cursor:
        for start in range(0, len(memory_ids), 500):
            chunk = [int(i) for i in memory_ids[start : start + 500]]
            marks = ",".join(["%s"] * len(chunk))
            cursor.execute(
                f"""SELECT id, content, importance, confirmed, category, tier,
                           COALESCE(last_accessed_at, updated_at, created_at)
                    FROM {MEMORY_TABLE} WHERE id IN ({marks})""",
                chunk,
            )
            for mid, content, importance, confirmed, category, tier, referenced in cursor.fetchall():
                moment = datetime.fromisoformat(referenced).replace(tzinfo=UTC)
                out.append((int(mid), content, float(importance), bool(confirmed), category, tier, moment))
    return out
