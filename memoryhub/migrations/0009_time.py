"""Time travels with facts: when a fact stopped being true (`valid_to`), when a memory expires (`expires_at`) and
when someone last checked it (`verified_at`).

Its statements are its own, written out per database as they were when it was made: storage's code may change, a
past migration does not. The columns are added in place (Django's own operations would rebuild the SQLite memory
table, dropping its FTS and change-log triggers)."""

import django.utils.timezone
from django.db import migrations, models

COLUMNS = ("valid_to", "expires_at", "verified_at")
TYPES = {"sqlite": "datetime", "postgresql": "timestamp with time zone"}

# A superseded memory stopped being true when its successor became true; a memory was last checked when it was last
# edited (or made), as far as anyone knows.
FILL = [
    """UPDATE memoryhub_memory SET valid_to = (
           SELECT COALESCE(s.valid_from, s.created_at) FROM memoryhub_memory s
           WHERE s.id = memoryhub_memory.superseded_by_id)
       WHERE superseded_by_id IS NOT NULL""",
    "UPDATE memoryhub_memory SET verified_at = COALESCE(updated_at, created_at) WHERE verified_at IS NULL",
]


def up(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    for column in COLUMNS:
        schema_editor.execute(f"ALTER TABLE memoryhub_memory ADD COLUMN {column} {TYPES[vendor]} NULL", params=None)
    for statement in FILL:
        schema_editor.execute(statement, params=None)


def down(apps, schema_editor):
    for column in reversed(COLUMNS):
        schema_editor.execute(f"ALTER TABLE memoryhub_memory DROP COLUMN {column}", params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("memoryhub", "0008_chain_whole"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(up, down)],
            state_operations=[
                migrations.AddField(
                    model_name="memory",
                    name="valid_to",
                    field=models.DateTimeField(blank=True, null=True),
                ),
                migrations.AddField(
                    model_name="memory",
                    name="expires_at",
                    field=models.DateTimeField(blank=True, null=True),
                ),
                migrations.AddField(
                    model_name="memory",
                    name="verified_at",
                    field=models.DateTimeField(blank=True, default=django.utils.timezone.now, null=True),
                ),
            ],
        ),
    ]
