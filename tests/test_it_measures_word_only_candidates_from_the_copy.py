"""A candidate only the word lists found still has its meaning measured; on a large store the vector copy gives
that cosine, and it is the one the stored vector gives."""

from __future__ import annotations

import numpy as np
import pytest

from memoryhub.embeddings import get_embedder
from memoryhub.memories.store import import_memories
from memoryhub.retrieval.search import project_candidates
from memoryhub.storage import sql, vector_index

# The in-process vector copy; PostgreSQL ranks in the database and keeps none.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.sqlite_only]


def test_the_copy_gives_the_stored_vectors_cosine_and_search_uses_it(tuned, monkeypatch):
    monkeypatch.setattr(vector_index, "EXACT_KNN_MAX", 5)  # the copy answers
    texts = [f"Invoice batch {n} is exported to the ledger every night" for n in range(12)]
    texts += ["The garden hose is rolled up after watering", "Deploys wait for the staging smoke tests"]
    ids = import_memories(items=[{"content": t, "project": "p"} for t in texts], source="test")
    embedder = get_embedder()
    query = embedder.embed(["ledger export schedule"])[0]
    view = vector_index.view(embedder.model_id, embedder.dimensions)

    from_copy = view.distances(query, ids)
    stored = sql.read_vectors(ids, embedder.dimensions)
    from_store = {mid: 1.0 - float(vector @ query) / float(np.linalg.norm(vector)) for mid, vector in stored.items()}
    assert from_copy.keys() == from_store.keys() == set(ids)
    assert max(abs(from_copy[mid] - from_store[mid]) for mid in ids) < 1e-5

    # A pool of 5 per list: some candidates come from the words alone, and each is measured, from the copy.
    tuned(search_pool=5)
    monkeypatch.setattr(sql, "read_vectors", None)  # the store's vectors are not read again
    signals = project_candidates("invoice batch exported ledger garden hose", visible_from="p", k=1).signals
    word_only = [s for s in signals.values() if s.vector_rank is None]
    assert word_only
    assert all(s.outside_distance is not None for s in word_only)


def test_an_int8_copy_gives_the_stored_vectors_cosine_within_its_rounding(monkeypatch):
    monkeypatch.setattr(vector_index, "EXACT_KNN_MAX", 5)
    monkeypatch.setattr(vector_index, "COPY_INT8_ABOVE", 0)  # a store of a million keeps int8 codes
    texts = [f"Invoice batch {n} is exported to the ledger every night" for n in range(12)]
    ids = import_memories(items=[{"content": t, "project": "p"} for t in texts], source="test")
    embedder = get_embedder()
    query = embedder.embed(["ledger export schedule"])[0]
    view = vector_index.view(embedder.model_id, embedder.dimensions)
    assert view.scales is not None

    from_copy = view.distances(query, ids)
    stored = sql.read_vectors(ids, embedder.dimensions)
    from_store = {mid: 1.0 - float(vector @ query) / float(np.linalg.norm(vector)) for mid, vector in stored.items()}
    assert from_copy.keys() == from_store.keys() == set(ids)
    assert max(abs(from_copy[mid] - from_store[mid]) for mid in ids) < 0.01
