"""Migrations go back to zero and forward again, extensions and all."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import connection


def table_names() -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger')")
        return {row[0] for row in cursor.fetchall()}


@pytest.mark.django_db(transaction=True)
def test_it_migrates_to_zero_and_back():
    assert {"memory_fts", "memory_fts_trigram", "memory_vec_384", "memory_fts_ai"} <= table_names()
    call_command("migrate", "memoryhub", "zero", verbosity=0)
    assert not {"memory_fts", "memory_vec_384", "memoryhub_memory"} & table_names()
    call_command("migrate", verbosity=0)
    assert {"memory_fts", "memory_fts_trigram", "memory_vec_384", "memoryhub_memory"} <= table_names()
