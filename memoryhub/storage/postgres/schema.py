"""Table names and the DDL still run live on PostgreSQL: the vector table of a new vector size (pgvector, HNSW). The
word index (a generated tsvector column with GIN), the trigram index (pg_trgm) and the change log were made by
migrations 0002 and 0005, which carry their own statements; the names here mirror memoryhub/storage/sqlite/schema.py.
"""

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

# No separate FTS tables here: the word index is a column of the memory row, kept by the database itself
# (a generated column can never disagree with the text). The names stay so callers can ask for "the word
# index" or "the trigram index" on either store.
FTS_TABLE = "memory_fts"
TRIGRAM_TABLE = "memory_fts_trigram"
WORDS_COLUMN = "search_words"

# SQLite's porter tokenizer stems English words and drops none: a copy of PostgreSQL's English configuration
# with a Snowball stemmer that has no stopword list does the same ("to be or not to be" is still searchable).
TEXT_CONFIG = "memoryhub_english"


# Kept for the same names on both stores; PostgreSQL filters by the project column itself.
FTS_SOURCE_VIEW = "memory_fts_source"

# The content column weighs more than tags (as bm25's column weights on SQLite).
FTS_RANK = f"ts_rank(m.{WORDS_COLUMN}, q, 1)"


def vec_create_statements(dimensions: int) -> list[str]:
    table = vec_table(dimensions)
    return [
        "CREATE EXTENSION IF NOT EXISTS vector",
        # No foreign key: Django's test flush TRUNCATEs the memory table, which a reference would refuse. The
        # triggers below remove a row's vector with the row, as on SQLite.
        f"""CREATE TABLE IF NOT EXISTS {table} (
            memory_id bigint PRIMARY KEY,
            embedding vector({int(dimensions)}) NOT NULL)""",
        # HNSW over cosine distance, for what the in-process copy does not answer (migration 0012 says why it is
        # this light): recall@10 0.985 against exact search at 10k vectors (bench_search measures it).
        f"CREATE INDEX IF NOT EXISTS {table}_hnsw ON {table} USING hnsw (embedding vector_cosine_ops) WITH (m = 8)",
        f"""CREATE OR REPLACE FUNCTION {table}_forget() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
            IF TG_OP = 'TRUNCATE' THEN
                TRUNCATE {table};
                RETURN NULL;
            END IF;
            IF TG_OP = 'DELETE' THEN
                DELETE FROM {table} WHERE memory_id = OLD.id;
                RETURN OLD;
            END IF;
            -- Text changed behind the domain's back: the vector no longer describes it; `reembed` will.
            IF NEW.content IS DISTINCT FROM OLD.content THEN
                DELETE FROM {table} WHERE memory_id = NEW.id;
                NEW.embed_model := '';
            END IF;
            RETURN NEW;
        END $$""",
        f"""CREATE OR REPLACE TRIGGER {table}_ad AFTER DELETE ON {MEMORY_TABLE}
            FOR EACH ROW EXECUTE FUNCTION {table}_forget()""",
        f"""CREATE OR REPLACE TRIGGER {table}_au BEFORE UPDATE OF content ON {MEMORY_TABLE}
            FOR EACH ROW EXECUTE FUNCTION {table}_forget()""",
        f"""CREATE OR REPLACE TRIGGER {table}_at AFTER TRUNCATE ON {MEMORY_TABLE}
            FOR EACH STATEMENT EXECUTE FUNCTION {table}_forget()""",
    ]


def vec_drop_statements(dimensions: int) -> list[str]:
    table = vec_table(dimensions)
    return [
        *(f"DROP TRIGGER IF EXISTS {table}_{s} ON {MEMORY_TABLE}" for s in ("at", "au", "ad")),
        f"DROP FUNCTION IF EXISTS {table}_forget()",
        f"DROP TABLE IF EXISTS {table}",
    ]


def existing_vec_dimensions() -> list[int]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE 'memory\\_vec\\_%%'"
        )
        return vec_dimensions(row[0] for row in cursor.fetchall())


def ensure_vec_table(dimensions: int) -> None:
    with connection.cursor() as cursor:
        # One catalog lookup by name (an import asks before every batch), not a scan of pg_tables.
        cursor.execute("SELECT to_regclass(format('%%I.%%I', current_schema(), %s))", [vec_table(dimensions)])
        if cursor.fetchone()[0] is not None:
            return
    with connection.cursor() as cursor:
        for statement in vec_create_statements(dimensions):
            cursor.execute(statement)
