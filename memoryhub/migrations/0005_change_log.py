"""A change log the triggers fill, and the store's generation: the in-process vector copy follows the store by
position (the last entry it applied), not by clock (see memoryhub/storage/vector_index.py).

Its statements are its own, written out per database as they were when it was made: storage's code may change, a
past migration does not."""

from django.db import migrations

from ._frozen_sql import run_per_database

SQLITE_UP = [
    """CREATE TABLE memory_changes (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        memory_id INTEGER NOT NULL,
        tag INTEGER NOT NULL DEFAULT (random()),
        at INTEGER NOT NULL DEFAULT (unixepoch()))""",
    "CREATE TABLE memory_store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "INSERT INTO memory_store_meta(key, value) VALUES ('generation', lower(hex(randomblob(16))))",
    "CREATE TRIGGER memory_changes_ai AFTER INSERT ON memoryhub_memory BEGIN INSERT INTO memory_changes(memory_id) VALUES (new.id); END",
    "CREATE TRIGGER memory_changes_ad AFTER DELETE ON memoryhub_memory BEGIN INSERT INTO memory_changes(memory_id) VALUES (old.id); END",
    """CREATE TRIGGER memory_changes_au AFTER UPDATE OF content, project, status, embed_model ON memoryhub_memory
        WHEN old.content IS NOT new.content OR old.project IS NOT new.project OR old.status IS NOT new.status
          OR old.embed_model IS NOT new.embed_model
        BEGIN INSERT INTO memory_changes(memory_id) VALUES (new.id); END""",
    """CREATE TRIGGER memory_changes_prune AFTER INSERT ON memory_changes WHEN new.seq % 1000 = 0 BEGIN
        DELETE FROM memory_changes WHERE seq IN (SELECT seq FROM memory_changes ORDER BY seq LIMIT 2000)
            AND at < new.at - 86400;
    END""",
]

SQLITE_DOWN = [
    "DROP TRIGGER IF EXISTS memory_changes_prune",
    "DROP TRIGGER IF EXISTS memory_changes_au",
    "DROP TRIGGER IF EXISTS memory_changes_ad",
    "DROP TRIGGER IF EXISTS memory_changes_ai",
    "DROP TABLE IF EXISTS memory_store_meta",
    "DROP TABLE IF EXISTS memory_changes",
]

POSTGRESQL_UP = [
    """CREATE TABLE memory_changes (
        seq bigserial PRIMARY KEY,
        memory_id bigint NOT NULL,
        tag bigint NOT NULL DEFAULT (floor(random() * 9007199254740991))::bigint,
        at bigint NOT NULL DEFAULT (extract(epoch FROM now()))::bigint)""",
    "CREATE TABLE memory_store_meta (key text PRIMARY KEY, value text NOT NULL)",
    "INSERT INTO memory_store_meta(key, value) VALUES ('generation', md5(random()::text || clock_timestamp()::text))",
    """CREATE OR REPLACE FUNCTION memory_changes_log() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        IF TG_OP = 'DELETE' THEN
            INSERT INTO memory_changes(memory_id) VALUES (OLD.id);
            RETURN OLD;
        END IF;
        IF TG_OP = 'INSERT' OR NEW.content IS DISTINCT FROM OLD.content OR NEW.project IS DISTINCT FROM OLD.project
           OR NEW.status IS DISTINCT FROM OLD.status OR NEW.embed_model IS DISTINCT FROM OLD.embed_model THEN
            INSERT INTO memory_changes(memory_id) VALUES (NEW.id);
        END IF;
        RETURN NEW;
    END $$""",
    """CREATE TRIGGER memory_changes_aiud AFTER INSERT OR DELETE OR UPDATE ON memoryhub_memory
        FOR EACH ROW EXECUTE FUNCTION memory_changes_log()""",
    """CREATE OR REPLACE FUNCTION memory_changes_prune() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        IF NEW.seq % 1000 = 0 THEN
            DELETE FROM memory_changes WHERE seq IN (SELECT seq FROM memory_changes ORDER BY seq LIMIT 2000)
                AND at < NEW.at - 86400;
        END IF;
        RETURN NULL;
    END $$""",
    """CREATE TRIGGER memory_changes_prune AFTER INSERT ON memory_changes
        FOR EACH ROW EXECUTE FUNCTION memory_changes_prune()""",
]

POSTGRESQL_DOWN = [
    "DROP TRIGGER IF EXISTS memory_changes_aiud ON memoryhub_memory",
    "DROP TABLE IF EXISTS memory_store_meta",
    "DROP TABLE IF EXISTS memory_changes",
    "DROP FUNCTION IF EXISTS memory_changes_log()",
    "DROP FUNCTION IF EXISTS memory_changes_prune()",
]


class Migration(migrations.Migration):
    dependencies = [("memoryhub", "0004_proposal_stale_status")]
    operations = [run_per_database(sqlite=(SQLITE_UP, SQLITE_DOWN), postgresql=(POSTGRESQL_UP, POSTGRESQL_DOWN))]
