"""An import that grows the store by a large share has PostgreSQL read its planner statistics again at once, so
the next search is planned for the store it searches, not for the smaller one autovacuum last measured; smaller
writes leave it to autovacuum. SQLite keeps no statistics that could fall behind."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, transaction

from memoryhub.models import Memory
from memoryhub.storage import sql

pytestmark = pytest.mark.django_db(transaction=True)


def _items(count: int, first: int = 0) -> list[dict]:
    return [{"content": f"Service {i:03d} of the fleet listens on port {9000 + i}.", "project": "alpha"}
            for i in range(first, first + count)]  # fmt: skip


def _planned_rows() -> dict[str, float]:
    """The row count the planner believes of the memory table and the vector table."""
    tables = [sql.MEMORY_TABLE, sql.vec_table(384)]
    with connection.cursor() as cursor:
        cursor.execute("SELECT relname, reltuples FROM pg_class WHERE relname = ANY(%s)", [tables])
        return {name: float(rows) for name, rows in cursor.fetchall()}


@pytest.mark.postgresql_only
def test_an_import_that_grows_the_store_by_a_large_share_is_planned_by_its_new_size(claude):
    assert claude.post("memories/import", {"memories": _items(150)}).status_code == 201
    assert _planned_rows() == {sql.MEMORY_TABLE: 150.0, sql.vec_table(384): 150.0}

    # 120 more is more than a fifth of 150: read again.
    assert claude.post("memories/import", {"memories": _items(120, first=150)}).status_code == 201
    assert _planned_rows() == {sql.MEMORY_TABLE: 270.0, sql.vec_table(384): 270.0}


@pytest.mark.postgresql_only
def test_a_small_import_leaves_the_statistics_to_autovacuum(claude):
    assert claude.post("memories/import", {"memories": _items(600)}).status_code == 201
    assert claude.post("memories/import", {"memories": _items(99, first=600)}).status_code == 201  # under 100 rows
    assert _planned_rows()[sql.MEMORY_TABLE] == 600.0
    assert sql.refresh_statistics(119) is False  # 100 rows or more, but under a fifth of 600
    assert _planned_rows()[sql.MEMORY_TABLE] == 600.0
    assert sql.refresh_statistics(120) is True
    assert _planned_rows()[sql.MEMORY_TABLE] == 699.0


@pytest.mark.postgresql_only
def test_a_table_autovacuum_holds_is_skipped_not_waited_for_and_the_import_stands(claude):
    held, done = threading.Event(), threading.Event()

    def hold_as_autovacuum_does() -> None:
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(f"LOCK TABLE {sql.MEMORY_TABLE} IN SHARE UPDATE EXCLUSIVE MODE")
                held.set()
                done.wait(timeout=60)
        finally:
            connection.close()

    holder = threading.Thread(target=hold_as_autovacuum_does)
    holder.start()
    try:
        assert held.wait(timeout=30)
        assert claude.post("memories/import", {"memories": _items(150)}).status_code == 201
        planned = _planned_rows()
    finally:
        done.set()
        holder.join(timeout=60)
    assert planned[sql.MEMORY_TABLE] != 150.0  # skipped while held
    assert planned[sql.vec_table(384)] == 150.0  # the other table was read
    assert Memory.objects.filter(project="alpha").count() == 150


@pytest.mark.sqlite_only
def test_sqlite_keeps_no_planner_statistics_to_fall_behind(claude):
    assert claude.post("memories/import", {"memories": _items(150)}).status_code == 201
    assert sql.refresh_statistics(150) is False
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM sqlite_master WHERE name LIKE 'sqlite_stat%'")
        assert cursor.fetchone()[0] == 0
