"""PostgreSQL: each vector table's HNSW index rebuilt with the build settings new tables get (m 12, ef_construction
40 instead of pgvector's 16 and 64), so that placing a new vector in the graph costs the server less CPU while the
model embeds (docs/performance.md). SQLite has no such index: nothing to do there.

Its statements are its own, frozen as they were when it was made: storage's code may change, a past migration does
not. Rebuilding reads every vector once: seconds at 10k memories, minutes at a million."""

from django.db import migrations

_TABLES = """SELECT tablename FROM pg_tables
             WHERE schemaname = current_schema() AND tablename ~ '^memory_vec_[0-9]+$'"""


def _rebuild(build: str):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        with schema_editor.connection.cursor() as cursor:
            cursor.execute(_TABLES)
            tables = [row[0] for row in cursor.fetchall()]
        for table in tables:
            schema_editor.execute(f"DROP INDEX IF EXISTS {table}_hnsw", params=None)
            schema_editor.execute(
                f"CREATE INDEX {table}_hnsw ON {table} USING hnsw (embedding vector_cosine_ops) {build}", params=None
            )

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("memoryhub", "0011_hooks"),
    ]

    operations = [
        migrations.RunPython(_rebuild("WITH (m = 12, ef_construction = 40)"), _rebuild("")),
    ]
