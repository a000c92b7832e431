"""Migrations go back to zero and forward again, extensions and all, on either store."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from memoryhub.storage import sql

# What the search migrations make: FTS5 tables and their triggers on SQLite; the vector table and the triggers
# that keep it and the change log in step on PostgreSQL (whose word index is a column of the memory table).
MADE = (
    {"memory_fts", "memory_fts_trigram", "memory_vec_384", "memory_fts_ai", "memory_changes"}
    if sql.VENDOR == "sqlite"
    else {"memory_vec_384", "memory_vec_384_au", "memory_changes", "memory_changes_aiud"}
)


@pytest.mark.django_db(transaction=True)
def test_it_migrates_to_zero_and_back():
    assert MADE <= sql.schema_names()
    call_command("migrate", "memoryhub", "zero", verbosity=0)
    assert not (MADE | {"memoryhub_memory"}) & sql.schema_names()
    call_command("migrate", verbosity=0)
    assert MADE | {"memoryhub_memory"} <= sql.schema_names()


@pytest.mark.django_db(transaction=True)
def test_every_login_made_before_roles_becomes_a_hub_admin():
    from django.contrib.auth import get_user_model

    call_command("migrate", "memoryhub", "0005_change_log", verbosity=0)
    User = get_user_model()
    User.objects.create_user("early", password="x-long-enough-password")
    User.objects.create_user("earlier", password="x-long-enough-password", is_staff=True)
    from memoryhub.models import MemoryEvent

    MemoryEvent.objects.create(memory_id=1, action="edited", actor="ui:early")
    MemoryEvent.objects.create(memory_id=1, action="created", actor="claude")
    call_command("migrate", verbosity=0)
    # Dashboard changes were signed "ui:<username>"; now by the username alone, old ones included.
    assert list(MemoryEvent.objects.order_by("id").values_list("actor", flat=True)) == ["early", "claude"]
    assert list(User.objects.order_by("username").values_list("username", "is_superuser")) == [
        ("earlier", True),
        ("early", True),
    ]
    # A login made afterwards is an ordinary person until it is given a role or made an admin.
    assert not User.objects.create_user("later").is_superuser


@pytest.mark.django_db(transaction=True)
def test_a_store_from_before_knowledge_updates_keeps_its_indexes_and_gets_dates():
    from memoryhub.models import Memory
    from memoryhub.retrieval.search import MemoryFilter, search_memories
    from memoryhub.writes.gate import gate_write

    old = gate_write(content="The shopfront API listens on port 8000.", project="shop").memory
    call_command("migrate", "memoryhub", "0005", verbosity=0)  # the columns go, the memory row stays
    call_command("migrate", verbosity=0)
    assert MADE <= sql.schema_names()  # added in place: no rebuild dropped a trigger
    old = Memory.objects.get(pk=old.pk)
    assert (old.valid_from, old.superseded_by_id) == (old.created_at, None)
    assert [
        h.memory.pk
        for h in search_memories(query="shopfront API port", within=MemoryFilter(visible_from="shop"), min_score=0)
    ] == [old.pk]
    assert gate_write(content="The shopfront API now listens on port 9000.", project="shop").supersedes == [old.pk]
