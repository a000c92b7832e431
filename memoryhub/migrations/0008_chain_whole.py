"""The supersession chain kept whole: each proposal remembers its sources as they were when it was made (a source
changed since makes it stale), and Django never nulls a successor's link when it is deleted (DO_NOTHING: the
table's deferred foreign key refuses a delete that left a memory pointing at nothing)."""

from django.db import migrations, models

from ._frozen_fields import memory_link


class Migration(migrations.Migration):
    dependencies = [
        ("memoryhub", "0007_knowledge_updates"),
    ]

    operations = [
        migrations.AddField(
            model_name="proposal",
            name="source_marks",
            field=models.JSONField(blank=True, default=dict),
        ),
        # on_delete lives in Django, not in the table: the state alone changes (no rebuild of the memory table,
        # which would drop its FTS and change-log triggers).
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="memory",
                    name="superseded_by",
                    field=memory_link("supersedes_set", on_delete=models.DO_NOTHING),
                ),
            ],
        ),
    ]
