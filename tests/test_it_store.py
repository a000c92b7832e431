"""The store: rows, FTS entries and vectors stay in step, on the real extensions and the real model."""

from __future__ import annotations

import numpy as np
import pytest
from django.core.exceptions import ValidationError
from django.db import connection

from memoryhub.embeddings import EmbeddingError, get_embedder
from memoryhub.memories.store import (
    create_memory,
    delete_memory,
    import_memories,
    reembed,
    update_memory,
)
from memoryhub.models import Memory, MemoryEvent
from memoryhub.storage import keyword, sql

pytestmark = pytest.mark.django_db


def assert_in_sync() -> None:
    ids = set(Memory.objects.values_list("pk", flat=True))
    embedded = set(Memory.objects.exclude(embed_model="").values_list("pk", flat=True))
    assert sql.fts_ids() == ids
    assert sql.vector_ids() == embedded
    sql.fts_integrity_check()


def keyword_ids(word: str) -> set[int]:
    return {mid for mid, _ in sql.fts_match(keyword.Term(word), 100)}


def test_it_creates_a_row_with_its_fts_entry_and_vector():
    memory = create_memory(content="The API uses cursor pagination for lists", project="alpha", source="claude")
    assert memory.embed_model == get_embedder().model_id
    assert keyword_ids("pagination") == {memory.pk}
    assert sql.vector_ids() == {memory.pk}
    assert_in_sync()
    assert MemoryEvent.objects.get(memory_id=memory.pk).action == "created"


def test_it_keeps_fts_and_vector_in_step_on_update():
    memory = create_memory(content="Deploys run through GitHub Actions", project="alpha")
    old_vector = sql.read_vectors([memory.pk])[memory.pk]
    update_memory(memory=memory, changes={"content": "Deploys run through a Jenkins pipeline"}, actor="me")
    memory.refresh_from_db()
    assert keyword_ids("jenkins") == {memory.pk}
    assert keyword_ids("github") == set()
    new_vector = sql.read_vectors([memory.pk])[memory.pk]
    assert not np.allclose(old_vector, new_vector)
    assert memory.embed_model == get_embedder().model_id
    assert_in_sync()
    event = MemoryEvent.objects.filter(memory_id=memory.pk).last()
    assert event.before == {"content": "Deploys run through GitHub Actions"}


def test_a_queryset_update_keeps_fts_current_and_marks_the_vector_stale():
    memory = create_memory(content="Tests use pytest with xdist", project="alpha")
    Memory.objects.filter(pk=memory.pk).update(content="Tests use unittest only")
    memory.refresh_from_db()
    assert keyword_ids("unittest") == {memory.pk}
    assert keyword_ids("xdist") == set()
    # The vector described the old words: it is gone and the row waits for `reembed`.
    assert memory.embed_model == ""
    assert sql.vector_ids() == set()
    assert_in_sync()
    assert reembed() == 1
    memory.refresh_from_db()
    assert memory.embed_model == get_embedder().model_id
    assert_in_sync()


def test_a_tags_update_reaches_the_keyword_index():
    memory = create_memory(content="Use ruff for linting", tags=["python"])
    Memory.objects.filter(pk=memory.pk).update(tags=["tooling"])
    assert keyword_ids("tooling") == {memory.pk}
    assert keyword_ids("python") == set()
    assert_in_sync()


def test_bulk_import_writes_every_row_with_its_vector():
    ids = import_memories(
        items=[{"content": f"Service {n} listens on port {8000 + n}"} for n in range(70)], source="import"
    )
    assert len(ids) == 70
    assert ids == sorted(ids)
    assert_in_sync()


def test_bulk_create_through_the_orm_reaches_the_keyword_index():
    Memory.objects.bulk_create([Memory(content=f"bulk created fact number {n}") for n in range(5)])
    assert len(keyword_ids("bulk")) == 5
    assert_in_sync()


def test_delete_and_bulk_delete_remove_fts_entries_and_vectors():
    memories = [create_memory(content=f"Fact {n} about the payment service retries") for n in range(4)]
    delete_memory(memory=memories[0], actor="me")
    assert_in_sync()
    # Several rows in one statement: the triggers run per row.
    Memory.objects.filter(pk__in=[m.pk for m in memories[1:3]]).delete()
    assert_in_sync()
    assert set(Memory.objects.values_list("pk", flat=True)) == {memories[3].pk}
    assert_in_sync()
    Memory.objects.all().delete()
    assert_in_sync()
    assert sql.vector_ids() == set()
    assert MemoryEvent.objects.filter(action="deleted").count() == 1  # only the service writes history


def test_a_failing_embedder_leaves_no_row(failing_embedder):
    with pytest.raises(EmbeddingError):
        create_memory(content="This should never be stored")
    with pytest.raises(EmbeddingError):
        import_memories(items=[{"content": "Nor this"}])
    assert Memory.objects.count() == 0
    assert sql.fts_ids() == set()
    assert MemoryEvent.objects.count() == 0


def test_a_failing_vector_write_rolls_back_the_row(monkeypatch):
    def explode(memory_id, vector):
        raise RuntimeError("disk full")

    monkeypatch.setattr(sql, "write_vector", explode)
    with pytest.raises(RuntimeError):
        create_memory(content="Half-written rows must not exist")
    assert Memory.objects.count() == 0
    assert sql.fts_ids() == set()


def test_it_refuses_bad_fields_naming_each():
    with pytest.raises(ValidationError) as caught:
        create_memory(content="  ", category="opinion", importance=2.0, tags=["ok", 3])
    assert set(caught.value.message_dict) == {"content", "category", "importance", "tags"}
    assert Memory.objects.count() == 0


def test_texts_that_mean_the_same_embed_closer_than_unrelated_ones(real_embedder):
    a, b, c = real_embedder.embed(
        [
            "The database migrations must run before the server starts",
            "Apply the schema migrations first, then boot the server",
            "My favourite colour for the editor theme is dark green",
        ]
    )
    assert float(a @ b) > float(a @ c) + 0.2


@pytest.mark.sqlite_only  # the extension loading
def test_sqlite_vec_is_loaded_on_the_connection():
    with connection.cursor() as cursor:
        cursor.execute("select vec_version()")
        assert cursor.fetchone()[0].startswith("v")


def test_a_bad_item_in_an_import_is_named_and_nothing_is_written():
    with pytest.raises(ValidationError) as caught:
        import_memories(items=[{"content": "A fine fact about ports"}, {"content": ""}, "not an object"])
    assert set(caught.value.message_dict) == {"memories.1.content", "memories.2"}
    assert Memory.objects.count() == 0


def test_an_access_count_too_large_for_sqlite_is_a_named_error():
    with pytest.raises(ValidationError) as caught:
        import_memories(items=[{"content": "A fact with a huge count", "access_count": 2**63}])
    assert set(caught.value.message_dict) == {"memories.0.access_count"}
    assert Memory.objects.count() == 0


def test_inserts_compiled_before_the_transaction_write_every_field_and_hand_back_the_ids_in_order():
    rows = [Memory(content=f"Bed {n} is watered at {n} o'clock", project="garden" if n % 2 else None, tags=[f"t{n}"],
                   importance=0.5, embed_model="m") for n in range(100)]  # fmt: skip
    inserts = sql.prepare_row_inserts(rows)  # compiled only: nothing is written yet
    assert not Memory.objects.exists()
    ids = sql.insert_prepared(inserts)
    stored = {m.pk: m for m in Memory.objects.filter(pk__in=ids)}
    assert ids == sorted(ids) and len(set(ids)) == 100
    assert [(stored[i].content, stored[i].project, stored[i].tags) for i in ids] == [
        (r.content, r.project, r.tags) for r in rows
    ]
    assert sql.insert_prepared(sql.prepare_row_inserts([])) == []
