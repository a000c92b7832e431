"""A store dump (the path `copy_store` and PostgreSQL backups take) keeps every value as it was, to the microsecond."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime

import pytest

from memoryhub.memories.store import create_memory
from memoryhub.memories.transfer import dump_store
from memoryhub.models import Memory

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_time_on_a_whole_millisecond_keeps_its_microseconds():
    memory = create_memory(content="The deploy key lives in Vault under ops/deploy.", project="shopfront", source="t")
    moment = datetime(2026, 12, 3, 13, 24, 20, 412, tzinfo=UTC)  # .000412: a millisecond cut would make it .000
    Memory.objects.filter(pk=memory.pk).update(created_at=moment)

    out = io.StringIO()
    dump_store(out)

    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    dumped = next(r["row"] for r in rows if r.get("kind") == "memoryhub.Memory")
    assert datetime.fromisoformat(dumped["created_at"]) == moment
