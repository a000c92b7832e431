"""What the migrations that write their own SQL share, frozen like them: the way a migration's statements are run on
the database being migrated, and the word index as 0002 made it (0003's reverse puts it back).

It imports nothing of the project's: storage's code may change, a past migration does not. Django does not take it
for a migration (its name starts with an underscore)."""

from django.db import migrations

# The word index's table and triggers as 0002_search_indexes made them.
WORD_INDEX_0002 = """CREATE VIRTUAL TABLE memory_fts USING fts5(
        content, tags, content='memoryhub_memory', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')"""
WORD_INDEX_TRIGGERS_0002 = [
    """CREATE TRIGGER memory_fts_ai AFTER INSERT ON memoryhub_memory BEGIN
            INSERT INTO memory_fts(rowid, content, tags) VALUES (new.id, new.content, new.tags);
            INSERT INTO memory_fts_trigram(rowid, content) VALUES (new.id, new.content);
        END""",
    """CREATE TRIGGER memory_fts_ad AFTER DELETE ON memoryhub_memory BEGIN
            INSERT INTO memory_fts(memory_fts, rowid, content, tags) VALUES ('delete', old.id, old.content, old.tags);
            INSERT INTO memory_fts_trigram(memory_fts_trigram, rowid, content) VALUES ('delete', old.id, old.content);
        END""",
    """CREATE TRIGGER memory_fts_au AFTER UPDATE OF content, tags ON memoryhub_memory BEGIN
            INSERT INTO memory_fts(memory_fts, rowid, content, tags) VALUES ('delete', old.id, old.content, old.tags);
            INSERT INTO memory_fts(rowid, content, tags) VALUES (new.id, new.content, new.tags);
            INSERT INTO memory_fts_trigram(memory_fts_trigram, rowid, content) VALUES ('delete', old.id, old.content);
            INSERT INTO memory_fts_trigram(rowid, content) VALUES (new.id, new.content);
        END""",
]


def _run(statements: dict[str, list[str]]):
    """The statements written for the database being migrated (by its vendor), run one by one (none are
    parameterised: `%` is a percent sign)."""

    def run(apps, schema_editor):
        for statement in statements[schema_editor.connection.vendor]:
            schema_editor.execute(statement, params=None)

    return run


ForwardAndBack = tuple[list[str], list[str]]  # a migration's statements for one database: forward, then back


def run_per_database(*, sqlite: ForwardAndBack, postgresql: ForwardAndBack) -> migrations.RunPython:
    """The operation that runs a migration's own statements on the database being migrated: for each database, the
    statements forward and the statements back."""
    return migrations.RunPython(
        _run({"sqlite": sqlite[0], "postgresql": postgresql[0]}),
        _run({"sqlite": sqlite[1], "postgresql": postgresql[1]}),
    )
