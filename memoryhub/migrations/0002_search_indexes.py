"""FTS5 (keyword) and vec0 (vector) tables beside the memory rows, with the triggers that keep them in step; on
PostgreSQL, the generated tsvector column with GIN, pg_trgm's index, and the pgvector table with HNSW.

Its statements are its own, written out per database as they were when it was made: storage's code may change, a
past migration does not. The word index's table and triggers stand in _frozen_sql.py, frozen too, where 0003's
reverse finds them."""

from django.db import migrations

from ._frozen_sql import WORD_INDEX_0002, WORD_INDEX_TRIGGERS_0002, run_per_database

SQLITE_UP = [
    WORD_INDEX_0002,
    """CREATE VIRTUAL TABLE memory_fts_trigram USING fts5(
        content, content='memoryhub_memory', content_rowid='id', tokenize='trigram')""",
    *WORD_INDEX_TRIGGERS_0002,
    """CREATE VIRTUAL TABLE IF NOT EXISTS memory_vec_384 USING vec0(
            memory_id integer primary key,
            embedding float[384] distance_metric=cosine,
            embedding_bits bit[384])""",
    """CREATE TRIGGER IF NOT EXISTS memory_vec_384_ad AFTER DELETE ON memoryhub_memory BEGIN
            DELETE FROM memory_vec_384 WHERE memory_id = old.id;
        END""",
    """CREATE TRIGGER IF NOT EXISTS memory_vec_384_au AFTER UPDATE OF content ON memoryhub_memory
            WHEN old.content IS NOT new.content BEGIN
            DELETE FROM memory_vec_384 WHERE memory_id = new.id;
            UPDATE memoryhub_memory SET embed_model = '' WHERE id = new.id;
        END""",
]

SQLITE_DOWN = [
    "DROP TRIGGER IF EXISTS memory_vec_384_au",
    "DROP TRIGGER IF EXISTS memory_vec_384_ad",
    "DROP TABLE IF EXISTS memory_vec_384",
    "DROP TRIGGER IF EXISTS memory_fts_au",
    "DROP TRIGGER IF EXISTS memory_fts_ad",
    "DROP TRIGGER IF EXISTS memory_fts_ai",
    "DROP TABLE IF EXISTS memory_fts_trigram",
    "DROP TABLE IF EXISTS memory_fts",
]

POSTGRESQL_UP = [
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    """DO $$ BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_ts_dict WHERE dictname = 'memoryhub_english_stem') THEN
            CREATE TEXT SEARCH DICTIONARY memoryhub_english_stem (TEMPLATE = snowball, Language = english);
        END IF;
        IF NOT EXISTS (SELECT 1 FROM pg_ts_config WHERE cfgname = 'memoryhub_english') THEN
            CREATE TEXT SEARCH CONFIGURATION memoryhub_english (COPY = english);
            ALTER TEXT SEARCH CONFIGURATION memoryhub_english
                ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part
                WITH memoryhub_english_stem;
        END IF;
    END $$""",
    "ALTER TABLE memoryhub_memory ADD COLUMN search_words tsvector GENERATED ALWAYS AS (setweight(to_tsvector('memoryhub_english'::regconfig, regexp_replace(coalesce(content, ''), '[[:punct:]]+', ' ', 'g')), 'A') || setweight(to_tsvector('memoryhub_english'::regconfig, regexp_replace(coalesce(tags, '[]'::jsonb)::text, '[[:punct:]]+', ' ', 'g')), 'B')) STORED",
    "CREATE INDEX memory_words_gin ON memoryhub_memory USING gin (search_words)",
    "CREATE INDEX memory_content_trgm ON memoryhub_memory USING gin (content gin_trgm_ops)",
    "CREATE EXTENSION IF NOT EXISTS vector",
    """CREATE TABLE IF NOT EXISTS memory_vec_384 (
            memory_id bigint PRIMARY KEY,
            embedding vector(384) NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS memory_vec_384_hnsw ON memory_vec_384 USING hnsw (embedding vector_cosine_ops)",
    """CREATE OR REPLACE FUNCTION memory_vec_384_forget() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
            IF TG_OP = 'TRUNCATE' THEN
                TRUNCATE memory_vec_384;
                RETURN NULL;
            END IF;
            IF TG_OP = 'DELETE' THEN
                DELETE FROM memory_vec_384 WHERE memory_id = OLD.id;
                RETURN OLD;
            END IF;
            -- Text changed behind the domain's back: the vector no longer describes it; `reembed` will.
            IF NEW.content IS DISTINCT FROM OLD.content THEN
                DELETE FROM memory_vec_384 WHERE memory_id = NEW.id;
                NEW.embed_model := '';
            END IF;
            RETURN NEW;
        END $$""",
    """CREATE OR REPLACE TRIGGER memory_vec_384_ad AFTER DELETE ON memoryhub_memory
            FOR EACH ROW EXECUTE FUNCTION memory_vec_384_forget()""",
    """CREATE OR REPLACE TRIGGER memory_vec_384_au BEFORE UPDATE OF content ON memoryhub_memory
            FOR EACH ROW EXECUTE FUNCTION memory_vec_384_forget()""",
    """CREATE OR REPLACE TRIGGER memory_vec_384_at AFTER TRUNCATE ON memoryhub_memory
            FOR EACH STATEMENT EXECUTE FUNCTION memory_vec_384_forget()""",
]

POSTGRESQL_DOWN = [
    "DROP TRIGGER IF EXISTS memory_vec_384_at ON memoryhub_memory",
    "DROP TRIGGER IF EXISTS memory_vec_384_au ON memoryhub_memory",
    "DROP TRIGGER IF EXISTS memory_vec_384_ad ON memoryhub_memory",
    "DROP FUNCTION IF EXISTS memory_vec_384_forget()",
    "DROP TABLE IF EXISTS memory_vec_384",
    "DROP INDEX IF EXISTS memory_content_trgm",
    "DROP INDEX IF EXISTS memory_words_gin",
    "ALTER TABLE memoryhub_memory DROP COLUMN IF EXISTS search_words",
]


class Migration(migrations.Migration):
    dependencies = [("memoryhub", "0001_initial")]
    operations = [run_per_database(sqlite=(SQLITE_UP, SQLITE_DOWN), postgresql=(POSTGRESQL_UP, POSTGRESQL_DOWN))]
