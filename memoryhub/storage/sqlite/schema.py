"""Table names and the DDL: the FTS5 indexes, the vec0 tables, their triggers (the migrations run these)."""

from __future__ import annotations

from django.db import connection

from memoryhub.storage.portable import (  # noqa: F401 - re-exported with the other names
    CHANGE_TABLE,
    DEFAULT_DIMENSIONS,
    GLOBAL_SCOPE_TOKEN,
    MEMORY_TABLE,
    STORE_META_TABLE,
    scope_token,
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


def _scope_sql(project_column: str) -> str:
    token = f"'scopep' || lower(hex({project_column}))"
    return f"CASE WHEN {project_column} IS NULL THEN '{GLOBAL_SCOPE_TOKEN}' ELSE {token} END"


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


# The change log (migration 0004): which memory rows may have changed, in the order they did. The in-process
# vector copy remembers the highest `seq` it applied and re-reads only the rows named after it, so its freshness
# depends on neither a clock nor the connection asking. Triggers log what changes on the memory table; the
# functions writing vec0 rows log those themselves (SQLite cannot put a trigger on a virtual table).
# `tag` is random: a copy that applied entries of a transaction later rolled back finds its position's tag gone
# (AUTOINCREMENT hands the same seq out again) and rebuilds. `generation` (a meta row) is replaced by whatever
# swaps the vectors wholesale (a restore, `reembed --all`): every copy of the old one rebuilds.


# Entries older than a day go, a thousand at a time, on every thousandth entry (deleting twice as fast as
# entries come keeps the log bounded whatever the write rate). A copy whose position was pruned rebuilds.
CHANGE_LOG_SECONDS = 86_400


def _log_entry(row: str) -> str:
    return f"INSERT INTO {CHANGE_TABLE}(memory_id) VALUES ({row}.id);"


CHANGE_LOG_UP = [
    f"""CREATE TABLE {CHANGE_TABLE} (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        memory_id INTEGER NOT NULL,
        tag INTEGER NOT NULL DEFAULT (random()),
        at INTEGER NOT NULL DEFAULT (unixepoch()))""",
    f"CREATE TABLE {STORE_META_TABLE} (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    f"INSERT INTO {STORE_META_TABLE}(key, value) VALUES ('generation', lower(hex(randomblob(16))))",
    f"CREATE TRIGGER {CHANGE_TABLE}_ai AFTER INSERT ON {MEMORY_TABLE} BEGIN {_log_entry('new')} END",
    f"CREATE TRIGGER {CHANGE_TABLE}_ad AFTER DELETE ON {MEMORY_TABLE} BEGIN {_log_entry('old')} END",
    f"""CREATE TRIGGER {CHANGE_TABLE}_au AFTER UPDATE OF content, project, status, embed_model ON {MEMORY_TABLE}
        WHEN old.content IS NOT new.content OR old.project IS NOT new.project OR old.status IS NOT new.status
          OR old.embed_model IS NOT new.embed_model
        BEGIN {_log_entry("new")} END""",
    f"""CREATE TRIGGER {CHANGE_TABLE}_prune AFTER INSERT ON {CHANGE_TABLE} WHEN new.seq % 1000 = 0 BEGIN
        DELETE FROM {CHANGE_TABLE} WHERE seq IN (SELECT seq FROM {CHANGE_TABLE} ORDER BY seq LIMIT 2000)
            AND at < new.at - {CHANGE_LOG_SECONDS};
    END""",
]


CHANGE_LOG_DOWN = [
    *(f"DROP TRIGGER IF EXISTS {CHANGE_TABLE}_{s}" for s in ("prune", "au", "ad", "ai")),
    f"DROP TABLE IF EXISTS {STORE_META_TABLE}",
    f"DROP TABLE IF EXISTS {CHANGE_TABLE}",
]

# Migration 0006's two memory columns, added and dropped in place: Django's own AddField/RemoveField would rebuild
# the memory table, dropping its FTS and change-log triggers (and the view over it stops the rebuild).
SUPERSESSION_UP = [
    f"""ALTER TABLE {MEMORY_TABLE} ADD COLUMN superseded_by_id bigint NULL
        REFERENCES {MEMORY_TABLE} (id) DEFERRABLE INITIALLY DEFERRED""",
    f"CREATE INDEX memoryhub_memory_superseded_by_id ON {MEMORY_TABLE} (superseded_by_id)",
    f"ALTER TABLE {MEMORY_TABLE} ADD COLUMN valid_from datetime NULL",
]
SUPERSESSION_DOWN = [
    "DROP INDEX IF EXISTS memoryhub_memory_superseded_by_id",
    f"ALTER TABLE {MEMORY_TABLE} DROP COLUMN valid_from",
    f"ALTER TABLE {MEMORY_TABLE} DROP COLUMN superseded_by_id",
]
