"""The benchmarks that run a server (`bench ingest`, `bench webhooks`) write to a store of their own, never to the
configured one: a file in a scratch folder, or on PostgreSQL a database of its own on the same server, dropped
afterwards, so every run starts as empty as the last."""

from __future__ import annotations

import os
from urllib.parse import urlsplit

import pytest

from bench.measure import scratch_store
from memoryhub.storage.side_databases import database_exists

pytestmark = pytest.mark.django_db

COUNT = (
    "from memoryhub.models import ApiToken, Memory; "
    "print(Memory.objects.count(), ApiToken.objects.filter(name='bench-check').count())"
)


def test_the_store_is_migrated_empty_and_answers_its_token(tmp_path):
    with scratch_store(tmp_path, "bench-check") as store:
        counted = store.manage("shell", "-v", "0", "-c", COUNT)
        checked = store.manage("check", "--store-only")
    assert counted.stdout.split() == ["0", "1"], counted.stderr  # no memory, the one token
    assert checked.returncode == 0, checked.stderr
    assert store.headers["Authorization"].startswith("Bearer ")
    assert store.env["MEMORYHUB_DB"] == str(tmp_path / "store.sqlite3")
    assert store.env["MEMORYHUB_AUTO_BACKUP"] == "0"


@pytest.mark.skipif(not os.environ.get("MEMORYHUB_DATABASE_URL"), reason="PostgreSQL pass of the suite only")
def test_on_postgresql_it_is_a_database_of_its_own_dropped_afterwards(tmp_path):
    configured = urlsplit(os.environ["MEMORYHUB_DATABASE_URL"]).path
    with scratch_store(tmp_path, "bench-check") as store:
        url = urlsplit(store.env["MEMORYHUB_DATABASE_URL"])
        name = url.path.lstrip("/")
        assert url.path != configured and name.startswith("memoryhub_scratch_")
        assert database_exists(name)
        assert store.manage("shell", "-v", "0", "-c", COUNT).stdout.split() == ["0", "1"]
    assert not database_exists(name)
