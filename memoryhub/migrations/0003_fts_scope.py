"""The word index learns each row's scope (project or global) as a zero-weight token, so a project's keyword
search intersects with its scope inside FTS5 instead of scoring the whole store's matches. Rebuilt in place."""

from django.db import migrations

from memoryhub.storage import sql


class Migration(migrations.Migration):
    dependencies = [("memoryhub", "0002_search_indexes")]
    operations = [migrations.RunSQL(sql.FTS_SCOPE_UP, reverse_sql=sql.FTS_SCOPE_DOWN)]
