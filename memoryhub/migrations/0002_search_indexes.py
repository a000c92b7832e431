"""FTS5 (keyword) and vec0 (vector) tables beside the memory rows, with the triggers that keep them in step."""

from django.db import migrations

from memoryhub.storage import sql

migrations_ops = [
    migrations.RunSQL(sql.FTS_CREATE_V1, reverse_sql=sql.FTS_DROP_V1),
    migrations.RunSQL(
        sql.vec_create_statements(sql.DEFAULT_DIMENSIONS),
        reverse_sql=sql.vec_drop_statements(sql.DEFAULT_DIMENSIONS),
    ),
]


class Migration(migrations.Migration):
    dependencies = [("memoryhub", "0001_initial")]
    operations = migrations_ops
