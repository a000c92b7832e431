"""What a new memory might repeat: the gate's twin lookup, handed down at start-up.

The lookup is search's (`retrieval.search.similar_in_scope`, same planning as a search, so a long text stays fast on
a large store). Retrieval sits above this package, so `MemoryhubConfig.ready` hands it down here instead of the gate
importing it upward, as it hands the LLM's second opinion to `update_gate`.
"""

from __future__ import annotations

from typing import Protocol

from memoryhub.models import Status


class TwinLookup(Protocol):
    def __call__(
        self, *, content: str, vector, model_id: str, project: str | None, limit: int = 50, status: str = Status.ACTIVE
    ) -> tuple[list[int], dict[int, float]]: ...


_lookup: TwinLookup | None = None


def register_twin_lookup(lookup: TwinLookup | None) -> None:
    global _lookup
    _lookup = lookup


def similar_in_scope(
    *, content: str, vector, model_id: str, project: str | None, limit: int = 50, status: str = Status.ACTIVE
) -> tuple[list[int], dict[int, float]]:
    """Among the memories of exactly this scope with this status: ids sharing the most words (BM25), and the
    nearest in meaning with their cosine similarity."""
    if _lookup is None:
        raise RuntimeError("no twin lookup registered: MemoryhubConfig.ready hands search's to the gate")
    return _lookup(content=content, vector=vector, model_id=model_id, project=project, limit=limit, status=status)
