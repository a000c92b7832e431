"""No write holds SQLite's write lock while a text is embedded or the vector copy is rebuilt: a remote embedder
taking seconds, or a copy of a large store being read, would hold every other writer for as long."""

from __future__ import annotations

import pytest
from django.db import connection

from memoryhub import embeddings
from memoryhub.consolidation.proposals import accept_proposal, merge_memories, run_consolidation
from memoryhub.memories.store import create_memory, import_memories, update_memory
from memoryhub.storage import sql, vector_index
from memoryhub.writes.gate import gate_write, promote_gate_entry

pytestmark = pytest.mark.django_db(transaction=True)


class Watching:
    """The real embedder, noting whether a transaction was open on this thread each time it is asked."""

    def __init__(self, inner):
        self.inner, self.model_id, self.dimensions = inner, inner.model_id, inner.dimensions
        self.in_transaction: list[bool] = []

    def embed(self, texts):
        self.in_transaction.append(connection.in_atomic_block)
        return self.inner.embed(texts)


@pytest.fixture
def watching(monkeypatch, settings):
    monkeypatch.setattr(vector_index, "EXACT_KNN_MAX", 5)  # the gate's duplicate check reads the in-process copy
    settings.MEMORYHUB_AUTO_BACKUP = False
    previous = embeddings.get_embedder()
    watcher = Watching(previous)
    embeddings.set_embedder(watcher)
    rebuilds: list[bool] = []
    rebuild = vector_index._rebuild

    def noting(copy, model_id):
        rebuilds.append(connection.in_atomic_block)
        return rebuild(copy, model_id)

    monkeypatch.setattr(vector_index, "_rebuild", noting)
    yield watcher, rebuilds
    embeddings.set_embedder(previous)


def test_gate_merge_accept_and_promote_embed_before_their_transaction(watching):
    watcher, rebuilds = watching
    import_memories(items=[{"content": f"Tomato bed {n} is watered at {n} o'clock"} for n in range(12)], source="t")
    stored = gate_write(content="The payments service listens on port 8443 behind nginx", project="alpha")
    assert stored.outcome == "created"
    twin = gate_write(content="The payments service listens on port 8443 behind nginx", project="alpha")
    assert twin.outcome == "duplicate"
    promoted = promote_gate_entry(entry=twin.log_entry, actor="person")
    merged = merge_memories(memory_ids=[stored.memory.pk, promoted.pk], content="payments: port 8443", actor="p")
    first = create_memory(content="payments-api listens on port 9443.", project="beta")
    create_memory(content="Port 9443 is where payments-api listens, behind the proxy.", project="beta")
    (proposal,) = run_consolidation(project="beta", actor="person", llm=False)
    accepted = accept_proposal(proposal=proposal, actor="person")
    update_memory(memory=first, changes={"content": "payments-api listens on port 9444."})
    assert merged.pk and accepted.pk
    assert watcher.in_transaction and not any(watcher.in_transaction)
    if sql.FILTERED_KNN:
        assert rebuilds == []  # the database ranks vectors itself: there is no copy to build
    else:
        assert rebuilds and not any(rebuilds)  # the copy was built, and never under the write lock
