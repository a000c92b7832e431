"""A memory's nearest neighbours by meaning, whatever their project or status: what a person curating one memory
wants beside it (likely twins to merge, facts it contradicts)."""

from __future__ import annotations

from memoryhub.embeddings import get_embedder
from memoryhub.models import Memory
from memoryhub.storage import sql


def nearest_memories(memory: Memory, k: int = 8) -> list[tuple[Memory, float]]:
    """The `k` memories nearest to this one by vector, with their cosine similarity, nearest first."""
    if not memory.embed_model:
        return []
    vector = sql.read_vectors([memory.pk], get_embedder().dimensions).get(memory.pk)
    if vector is None:
        return []
    neighbours = [(pk, distance) for pk, distance in sql.knn(vector, k + 1) if pk != memory.pk][:k]
    by_id = Memory.objects.in_bulk([pk for pk, _ in neighbours])
    return [(by_id[pk], round(1.0 - distance, 3)) for pk, distance in neighbours if pk in by_id]
