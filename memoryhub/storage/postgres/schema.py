"""Table names and the DDL on PostgreSQL: the word index (a generated tsvector column with GIN), the trigram
index (pg_trgm), the vector tables (pgvector, HNSW), the change log, and the triggers (the migrations run these).

The names and the statement lists mirror memoryhub/storage/sqlite/schema.py, so the same migrations build
either store: a statement list that has nothing to do here is empty.
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
FTS_RANK = f"ts_rank_cd(m.{WORDS_COLUMN}, q, 1)"

CHANGE_LOG_SECONDS = 86_400


# FTS5's unicode61 tokenizer splits at every punctuation mark (`settings_local.py` is three words); PostgreSQL's
# parser would keep a path or a file name as one token. Punctuation becomes a space first, in the index and in
# every query (`keyword.words_of`), so the same words match on both stores.
PUNCTUATION_CLASS = "[[:punct:]]+"


def _words_of(column_sql: str) -> str:
    return f"to_tsvector('{TEXT_CONFIG}'::regconfig, regexp_replace({column_sql}, '{PUNCTUATION_CLASS}', ' ', 'g'))"


def _words_expression() -> str:
    content = _words_of("coalesce(content, '')")
    tags = _words_of("coalesce(tags, '[]'::jsonb)::text")
    return f"setweight({content}, 'A') || setweight({tags}, 'B')"


FTS_CREATE_V1 = [
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    f"""DO $$ BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_ts_dict WHERE dictname = 'memoryhub_english_stem') THEN
            CREATE TEXT SEARCH DICTIONARY memoryhub_english_stem (TEMPLATE = snowball, Language = english);
        END IF;
        IF NOT EXISTS (SELECT 1 FROM pg_ts_config WHERE cfgname = '{TEXT_CONFIG}') THEN
            CREATE TEXT SEARCH CONFIGURATION {TEXT_CONFIG} (COPY = english);
            ALTER TEXT SEARCH CONFIGURATION {TEXT_CONFIG}
                ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part
                WITH memoryhub_english_stem;
        END IF;
    END $$""",
    f"ALTER TABLE {MEMORY_TABLE} ADD COLUMN {WORDS_COLUMN} tsvector GENERATED ALWAYS AS ({_words_expression()}) STORED",
    f"CREATE INDEX memory_words_gin ON {MEMORY_TABLE} USING gin ({WORDS_COLUMN})",
    f"CREATE INDEX memory_content_trgm ON {MEMORY_TABLE} USING gin (content gin_trgm_ops)",
]

FTS_DROP_V1 = [
    "DROP INDEX IF EXISTS memory_content_trgm",
    "DROP INDEX IF EXISTS memory_words_gin",
    f"ALTER TABLE {MEMORY_TABLE} DROP COLUMN IF EXISTS {WORDS_COLUMN}",
]

# SQLite's migration 0003 adds a scope token to its word index; the project column already does that here.
FTS_SCOPE_UP: list[str] = []
FTS_SCOPE_DOWN: list[str] = []


def vec_create_statements(dimensions: int) -> list[str]:
    table = vec_table(dimensions)
    return [
        "CREATE EXTENSION IF NOT EXISTS vector",
        # No foreign key: Django's test flush TRUNCATEs the memory table, which a reference would refuse. The
        # triggers below remove a row's vector with the row, as on SQLite.
        f"""CREATE TABLE IF NOT EXISTS {table} (
            memory_id bigint PRIMARY KEY,
            embedding vector({int(dimensions)}) NOT NULL)""",
        # HNSW over cosine distance: approximate, ~100% recall@10 at this size (bench_search measures it).
        f"CREATE INDEX IF NOT EXISTS {table}_hnsw ON {table} USING hnsw (embedding vector_cosine_ops)",
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
        names = [row[0] for row in cursor.fetchall()]
    return sorted({int(n.split("_")[2]) for n in names if n.split("_")[2].isdigit()})


def ensure_vec_table(dimensions: int) -> None:
    if dimensions in existing_vec_dimensions():
        return
    with connection.cursor() as cursor:
        for statement in vec_create_statements(dimensions):
            cursor.execute(statement)


# The change log, as on SQLite (see memoryhub/storage/sqlite/schema.py): search on PostgreSQL ranks vectors in the
# database and needs no in-process copy, but the log still tells every process what changed (`change_token`).
def _log_function() -> str:
    return f"""CREATE OR REPLACE FUNCTION {CHANGE_TABLE}_log() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        IF TG_OP = 'DELETE' THEN
            INSERT INTO {CHANGE_TABLE}(memory_id) VALUES (OLD.id);
            RETURN OLD;
        END IF;
        IF TG_OP = 'INSERT' OR NEW.content IS DISTINCT FROM OLD.content OR NEW.project IS DISTINCT FROM OLD.project
           OR NEW.status IS DISTINCT FROM OLD.status OR NEW.embed_model IS DISTINCT FROM OLD.embed_model THEN
            INSERT INTO {CHANGE_TABLE}(memory_id) VALUES (NEW.id);
        END IF;
        RETURN NEW;
    END $$"""


CHANGE_LOG_UP = [
    f"""CREATE TABLE {CHANGE_TABLE} (
        seq bigserial PRIMARY KEY,
        memory_id bigint NOT NULL,
        tag bigint NOT NULL DEFAULT (floor(random() * 9007199254740991))::bigint,
        at bigint NOT NULL DEFAULT (extract(epoch FROM now()))::bigint)""",
    f"CREATE TABLE {STORE_META_TABLE} (key text PRIMARY KEY, value text NOT NULL)",
    f"INSERT INTO {STORE_META_TABLE}(key, value) VALUES ('generation', md5(random()::text || clock_timestamp()::text))",
    _log_function(),
    f"""CREATE TRIGGER {CHANGE_TABLE}_aiud AFTER INSERT OR DELETE OR UPDATE ON {MEMORY_TABLE}
        FOR EACH ROW EXECUTE FUNCTION {CHANGE_TABLE}_log()""",
    f"""CREATE OR REPLACE FUNCTION {CHANGE_TABLE}_prune() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        IF NEW.seq % 1000 = 0 THEN
            DELETE FROM {CHANGE_TABLE} WHERE seq IN (SELECT seq FROM {CHANGE_TABLE} ORDER BY seq LIMIT 2000)
                AND at < NEW.at - {CHANGE_LOG_SECONDS};
        END IF;
        RETURN NULL;
    END $$""",
    f"""CREATE TRIGGER {CHANGE_TABLE}_prune AFTER INSERT ON {CHANGE_TABLE}
        FOR EACH ROW EXECUTE FUNCTION {CHANGE_TABLE}_prune()""",
]

CHANGE_LOG_DOWN = [
    f"DROP TRIGGER IF EXISTS {CHANGE_TABLE}_aiud ON {MEMORY_TABLE}",
    f"DROP TABLE IF EXISTS {STORE_META_TABLE}",
    f"DROP TABLE IF EXISTS {CHANGE_TABLE}",
    f"DROP FUNCTION IF EXISTS {CHANGE_TABLE}_log()",
    f"DROP FUNCTION IF EXISTS {CHANGE_TABLE}_prune()",
]

# Migration 0006's two memory columns, the same statements as on SQLite (where Django's own operations would
# rebuild the table and drop its triggers); here dropping a column drops its index and constraint with it.
SUPERSESSION_UP = [
    f"""ALTER TABLE {MEMORY_TABLE} ADD COLUMN superseded_by_id bigint NULL
        REFERENCES {MEMORY_TABLE} (id) DEFERRABLE INITIALLY DEFERRED""",
    f"CREATE INDEX memoryhub_memory_superseded_by_id ON {MEMORY_TABLE} (superseded_by_id)",
    f"ALTER TABLE {MEMORY_TABLE} ADD COLUMN valid_from timestamp with time zone NULL",
]
SUPERSESSION_DOWN = [
    f"ALTER TABLE {MEMORY_TABLE} DROP COLUMN valid_from",
    f"ALTER TABLE {MEMORY_TABLE} DROP COLUMN superseded_by_id",
]
