"""The word index learns each row's scope (project or global) as a zero-weight token, so a project's keyword
search intersects with its scope inside FTS5 instead of scoring the whole store's matches. Rebuilt in place.
Nothing to do on PostgreSQL, where the project column already does that.

Its statements are its own, written out per database as they were when it was made: storage's code may change, a
past migration does not. Its reverse puts back the word index as 0002 made it (_frozen_sql.py)."""

from django.db import migrations

from ._frozen_sql import WORD_INDEX_0002, WORD_INDEX_TRIGGERS_0002, run_per_database

SQLITE_UP = [
    "DROP TRIGGER IF EXISTS memory_fts_au",
    "DROP TRIGGER IF EXISTS memory_fts_ad",
    "DROP TRIGGER IF EXISTS memory_fts_ai",
    "DROP TABLE IF EXISTS memory_fts",
    """CREATE VIEW memory_fts_source AS
        SELECT id, content, tags, CASE WHEN project IS NULL THEN 'scopeglobal' ELSE 'scopep' || lower(hex(project)) END AS scope FROM memoryhub_memory""",
    """CREATE VIRTUAL TABLE memory_fts USING fts5(
        content, tags, scope, content='memory_fts_source', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')""",
    """CREATE TRIGGER memory_fts_ai AFTER INSERT ON memoryhub_memory BEGIN
            INSERT INTO memory_fts(rowid, content, tags, scope) VALUES (new.id, new.content, new.tags, CASE WHEN new.project IS NULL THEN 'scopeglobal' ELSE 'scopep' || lower(hex(new.project)) END);
            INSERT INTO memory_fts_trigram(rowid, content) VALUES (new.id, new.content);
        END""",
    """CREATE TRIGGER memory_fts_ad AFTER DELETE ON memoryhub_memory BEGIN
            INSERT INTO memory_fts(memory_fts, rowid, content, tags, scope) VALUES ('delete', old.id, old.content, old.tags, CASE WHEN old.project IS NULL THEN 'scopeglobal' ELSE 'scopep' || lower(hex(old.project)) END);
            INSERT INTO memory_fts_trigram(memory_fts_trigram, rowid, content) VALUES ('delete', old.id, old.content);
        END""",
    """CREATE TRIGGER memory_fts_au AFTER UPDATE OF content, tags, project ON memoryhub_memory BEGIN
            INSERT INTO memory_fts(memory_fts, rowid, content, tags, scope) VALUES ('delete', old.id, old.content, old.tags, CASE WHEN old.project IS NULL THEN 'scopeglobal' ELSE 'scopep' || lower(hex(old.project)) END);
            INSERT INTO memory_fts(rowid, content, tags, scope) VALUES (new.id, new.content, new.tags, CASE WHEN new.project IS NULL THEN 'scopeglobal' ELSE 'scopep' || lower(hex(new.project)) END);
            INSERT INTO memory_fts_trigram(memory_fts_trigram, rowid, content) VALUES ('delete', old.id, old.content);
            INSERT INTO memory_fts_trigram(rowid, content) VALUES (new.id, new.content);
        END""",
    "INSERT INTO memory_fts(memory_fts) VALUES ('rebuild')",
]

SQLITE_DOWN = [
    "DROP TRIGGER IF EXISTS memory_fts_au",
    "DROP TRIGGER IF EXISTS memory_fts_ad",
    "DROP TRIGGER IF EXISTS memory_fts_ai",
    "DROP TABLE IF EXISTS memory_fts",
    "DROP VIEW IF EXISTS memory_fts_source",
    WORD_INDEX_0002,
    *WORD_INDEX_TRIGGERS_0002,
    "INSERT INTO memory_fts(memory_fts) VALUES ('rebuild')",
]

POSTGRESQL_UP: list[str] = []

POSTGRESQL_DOWN: list[str] = []


class Migration(migrations.Migration):
    dependencies = [("memoryhub", "0002_search_indexes")]
    operations = [run_per_database(sqlite=(SQLITE_UP, SQLITE_DOWN), postgresql=(POSTGRESQL_UP, POSTGRESQL_DOWN))]
