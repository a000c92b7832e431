"""A change log the triggers fill, and the store's generation: the in-process vector copy follows the store by
position (the last entry it applied), not by clock (see memoryhub/storage/vector_index.py)."""

from django.db import migrations

from memoryhub.storage import sql


class Migration(migrations.Migration):
    dependencies = [("memoryhub", "0004_proposal_stale_status")]
    operations = [migrations.RunSQL(sql.CHANGE_LOG_UP, reverse_sql=sql.CHANGE_LOG_DOWN)]
