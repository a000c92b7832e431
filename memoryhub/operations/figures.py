"""The store's figures a metrics scrape reads (runtime/metrics.py asks at each scrape): memories by status and the
database's size. Read at the scrape rather than counted as they change, so they are right whichever process, command
or restore changed the store."""

from __future__ import annotations

from typing import Any

from django.db.models import Count

from memoryhub.models import Memory, Status
from memoryhub.storage import sql


def store_figures() -> dict[str, Any]:
    counted = dict(Memory.objects.values_list("status").annotate(n=Count("id")).values_list("status", "n"))
    # Every status named, a zero included: a dashboard's series should not vanish when a status empties.
    return {
        "memories": {status: counted.get(status, 0) for status in Status.values} | counted,
        "database_bytes": sql.database_bytes(),
    }
