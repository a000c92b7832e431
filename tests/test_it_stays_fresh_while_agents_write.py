"""The in-process vector copy follows the store by position: a row written, moved, archived, edited or deleted is
seen as it now is by the very next search on another thread, and a restore made by another process is seen
by a running server's next search. The stores here are above the exact-KNN limit, so the copy answers."""

from __future__ import annotations

import threading

import httpx
import numpy as np
import pytest
from django.db import connection, transaction

from memoryhub.embeddings import get_embedder
from memoryhub.memories.backup import backup_database
from memoryhub.memories.lifecycle import archive_memory
from memoryhub.memories.store import create_memory, delete_memory, import_memories, update_memory
from memoryhub.models import Memory
from memoryhub.retrieval.search import MemoryFilter, search_memories
from memoryhub.storage import sql, vector_index
from memoryhub.writes.exports import import_items
from tests.live_server import LiveServer, create_token, manage, migrated_store

GARDEN = [f"Water the tomato bed number {n} before nine in the morning" for n in range(30)]


def on_another_thread(work):
    """Run `work` on a new thread (its own database connection) and return what it returned."""
    out: dict = {}

    def run() -> None:
        try:
            out["value"] = work()
        except BaseException as exc:  # noqa: BLE001 - handed back to the test's thread
            out["error"] = exc
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout=120)
    if "error" in out:
        raise out["error"]
    return out["value"]


def semantic(query: str, project: str, status: str = "active") -> list[int]:
    # Freshness, not relevance: every row the copy holds in scope may answer, so no floor.
    hits = search_memories(
        query=query,
        mode="semantic",
        k=50,
        reinforce_results=False,
        min_score=0,
        within=MemoryFilter(visible_from=project, status=status),
    )
    # The copy answered, not vec0 (SQLite) or the HNSW index (PostgreSQL).
    assert all(h.explain["knn"] == "quantized" for h in hits)
    return [h.memory.pk for h in hits]


@pytest.mark.django_db(transaction=True)
def test_the_next_search_on_another_thread_sees_each_write_as_it_now_is(tuned, monkeypatch):
    monkeypatch.setattr(vector_index, "EXACT_KNN_MAX", 5)
    tuned(knn_filter_ids_max=0)
    import_memories(items=[{"content": text, "project": "p"} for text in GARDEN], source="test")
    query = "when does the zebra crossing sensor reboot"
    assert on_another_thread(lambda: semantic(query, project="p"))  # the copy is built, before the writes

    written = create_memory(content="The zebra crossing sensor reboots at midnight", project="p")
    assert on_another_thread(lambda: semantic(query, project="p"))[0] == written.pk

    update_memory(memory=written, changes={"project": "q"})  # moved
    assert written.pk not in on_another_thread(lambda: semantic(query, project="p"))
    assert on_another_thread(lambda: semantic(query, project="q")) == [written.pk]

    archive_memory(memory=Memory.objects.get(pk=written.pk), actor="test")
    assert on_another_thread(lambda: semantic(query, project="q")) == []
    assert on_another_thread(lambda: semantic(query, project="q", status="archived")) == [written.pk]

    edited = update_memory(
        memory=Memory.objects.get(pk=written.pk),
        changes={"content": "The llama feeder opens at dawn", "status": "active", "project": "p"},
    )
    assert on_another_thread(lambda: semantic("when does the llama feeder open", project="p"))[0] == edited.pk

    delete_memory(memory=Memory.objects.get(pk=written.pk))
    assert written.pk not in on_another_thread(lambda: semantic("when does the llama feeder open", project="p"))
    model = get_embedder()
    view = vector_index.view(model.model_id, model.dimensions)
    # Deleted rows leave the copy's answers at once, not only the SQL that checks them afterwards.
    assert written.pk not in view.ids[view.statuses >= 0].tolist()
    assert len(view.ids[view.statuses >= 0]) == len(GARDEN)


@pytest.mark.django_db(transaction=True)
def test_an_import_brings_the_copy_up_to_date_so_the_next_search_reads_nothing(tuned, monkeypatch):
    monkeypatch.setattr(vector_index, "EXACT_KNN_MAX", 5)
    tuned(knn_filter_ids_max=0)
    import_items(items=[{"content": text, "project": "p"} for text in GARDEN[:10]], source="test")
    query = "when does the zebra crossing sensor reboot"
    assert on_another_thread(lambda: semantic(query, project="p"))  # the copy is built
    read: list[int | str] = []  # the rows the copy read from the database, "all" for a rebuild
    rebuild, apply = vector_index._rebuild, vector_index._apply

    def rebuilding(copy, model_id):
        read.append("all")
        return rebuild(copy, model_id)

    def applying(copy, ids, model_id):
        read.extend(ids)
        return apply(copy, ids, model_id)

    monkeypatch.setattr(vector_index, "_rebuild", rebuilding)
    monkeypatch.setattr(vector_index, "_apply", applying)

    more = import_items(items=[{"content": text, "project": "p"} for text in GARDEN[10:]], source="test")
    assert sorted(read) == sorted(more)  # the import read its own rows into the copy
    read.clear()
    assert on_another_thread(lambda: semantic(query, project="p"))  # on PostgreSQL too
    assert read == []


def copied_vector(memory_id: int) -> np.ndarray:
    model = get_embedder()
    view = vector_index.view(model.model_id, model.dimensions)
    at = int(np.searchsorted(view.ids, memory_id))
    assert view.ids[at] == memory_id and view.statuses[at] >= 0
    return view.codes[at].astype(np.float32) * (1.0 if view.scales is None else view.scales[at])


@pytest.mark.sqlite_only  # the in-process copy; PostgreSQL has none
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("int8", [False, True])
def test_a_write_the_copy_saw_and_that_was_rolled_back_leaves_no_trace(monkeypatch, int8):
    monkeypatch.setattr(vector_index, "EXACT_KNN_MAX", 5)
    monkeypatch.setattr(vector_index, "COPY_INT8_ABOVE", 0 if int8 else 1_000_000)
    import_memories(items=[{"content": text, "project": "p"} for text in GARDEN], source="test")
    with pytest.raises(RuntimeError), transaction.atomic():
        ghost = create_memory(content="The zebra crossing sensor reboots at midnight", project="p")
        assert semantic("zebra crossing sensor", project="p")[0] == ghost.pk  # the copy applied it, uncommitted
        raise RuntimeError("the request failed after its search")
    # SQLite hands the same row id and the same change log positions out again.
    real = create_memory(content="The llama feeder opens at dawn", project="p")
    stored = sql.read_vectors([real.pk])[real.pk]
    copied = on_another_thread(lambda: copied_vector(real.pk))
    assert float(np.dot(copied, stored)) > 0.995
    assert on_another_thread(lambda: semantic("llama feeder opens", project="p"))[0] == real.pk


@pytest.mark.sqlite_only  # `restore` replaces the SQLite file; PostgreSQL is restored with pg_restore
def test_a_restore_by_another_process_is_what_the_servers_next_search_ranks(store_template, tmp_path):
    db = migrated_store(store_template, tmp_path / "live")
    token = create_token(db, "agent-1")
    boot = (
        "from dataclasses import replace; from memoryhub.retrieval import tuning; "
        "from memoryhub.storage import vector_index; vector_index.EXACT_KNN_MAX = 5; "
        "tuning.DEFAULTS = replace(tuning.DEFAULTS, knn_filter_ids_max=0)"
    )
    with (
        LiveServer(db, threads=4, boot=boot) as server,
        httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=120) as http,
    ):

        def search(query: str, project: str, **extra) -> list[int]:
            body = {"query": query, "project": project, "mode": "semantic", "k": 50, **extra}
            answer = http.post("/api/v1/search", json=body).json()
            assert all(r["explain"]["knn"] == "quantized" for r in answer["results"])
            return [r["id"] for r in answer["results"]]

        items = [{"content": text, "project": "p"} for text in GARDEN]
        items += [
            {"content": "The zebra crossing sensor reboots at midnight", "project": "p"},
            {"content": "The llama feeder opens at dawn", "project": "p"},
        ]
        made = http.post("/api/v1/memories/import", json={"memories": items})
        assert made.status_code in (200, 201), made.text
        *_, zebra, llama = made.json()["ids"]
        assert search("zebra crossing sensor", "p")[0] == zebra
        backup = backup_database(reason="before the mistake", dest_dir=tmp_path / "made", source=str(db))

        assert http.delete(f"/api/v1/memories/{zebra}").status_code in (200, 204)
        assert http.patch(f"/api/v1/memories/{llama}", json={"project": "q"}).status_code == 200
        assert zebra not in search("zebra crossing sensor", "p")
        assert llama not in search("llama feeder", "p")
        assert search("llama feeder", "q") == [llama]  # the server's copy follows the move

        manage(db, "restore", "--no-input", str(backup))  # another process replaces the store under the server
        assert search("zebra crossing sensor", "p")[0] == zebra
        assert search("llama feeder", "p")[0] == llama
        assert llama not in search("llama feeder", "q")


@pytest.mark.postgresql_only  # writers side by side: an earlier seq can commit after a later one
@pytest.mark.django_db(transaction=True)
def test_a_write_that_commits_after_a_later_one_is_seen_once_it_commits(tuned, monkeypatch):
    monkeypatch.setattr(vector_index, "EXACT_KNN_MAX", 5)
    tuned(knn_filter_ids_max=0)
    import_memories(items=[{"content": text, "project": "p"} for text in GARDEN], source="test")
    zebra, llama = "when does the zebra crossing sensor reboot", "when does the llama feeder open"
    assert on_another_thread(lambda: semantic(zebra, project="p"))  # the copy is built, before the writes
    written, release = threading.Event(), threading.Event()
    slow: dict = {}

    def slow_writer() -> None:
        try:
            with transaction.atomic():
                slow["pk"] = create_memory(content="The zebra crossing sensor reboots at midnight", project="p").pk
                written.set()  # its change log entry is taken, not committed
                release.wait(60)
        finally:
            connection.close()

    thread = threading.Thread(target=slow_writer)
    thread.start()
    assert written.wait(60)
    fast = create_memory(content="The llama feeder opens at dawn", project="p")  # a later entry, committed first
    assert on_another_thread(lambda: semantic(llama, project="p"))[0] == fast.pk  # the copy is past the slow entry
    assert slow["pk"] not in on_another_thread(lambda: semantic(zebra, project="p"))
    release.set()
    thread.join(60)
    assert on_another_thread(lambda: semantic(zebra, project="p"))[0] == slow["pk"]
    model = get_embedder()
    vector_index.view(model.model_id, model.dimensions)  # brought up to date once more
    assert all(not copy.gaps for copy in vector_index._copies.values())  # its transaction ended: nothing left to read


@pytest.mark.postgresql_only  # a rolled back write leaves a hole in the change log's seqs there
@pytest.mark.django_db(transaction=True)
def test_a_rolled_back_write_leaves_no_hole_the_copy_waits_on(tuned, monkeypatch):
    monkeypatch.setattr(vector_index, "EXACT_KNN_MAX", 5)
    tuned(knn_filter_ids_max=0)
    import_memories(items=[{"content": text, "project": "p"} for text in GARDEN], source="test")
    assert on_another_thread(lambda: semantic("zebra crossing sensor", project="p"))
    with pytest.raises(RuntimeError), transaction.atomic():
        create_memory(content="The zebra crossing sensor reboots at midnight", project="p")
        raise RuntimeError("the request failed")
    real = create_memory(content="The llama feeder opens at dawn", project="p")
    assert on_another_thread(lambda: semantic("when does the llama feeder open", project="p"))[0] == real.pk
    assert "zebra" not in " ".join(Memory.objects.values_list("content", flat=True))
    assert all(not copy.gaps for copy in vector_index._copies.values())  # nothing running could still fill it
