"""Trust: a memory may be held for a person's review (status quarantined, with `held_reason`), and a token may be
untrusted (its writes are held). `held_reason` is nullable so SQLite adds it in place: a NOT NULL column rebuilds the
memory table, dropping its FTS and change-log triggers. The status's new choice changes no column."""

from django.db import migrations, models

from ._frozen_fields import indexed_choice


class Migration(migrations.Migration):
    dependencies = [
        ("memoryhub", "0009_time"),
    ]

    operations = [
        migrations.AddField(
            model_name="apitoken",
            name="untrusted",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="memory",
            name="held_reason",
            field=models.TextField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name="memory",
            name="status",
            field=indexed_choice("active", "archived", "superseded", "quarantined", default="active"),
        ),
    ]
