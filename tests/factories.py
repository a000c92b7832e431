"""Small builders shared by the test suites."""

from __future__ import annotations

from memoryhub.memories.store import create_memory
from memoryhub.models import Memory, Proposal


def remember(content: str, **fields) -> Memory:
    """A memory written by the domain (row, FTS entry and vector), as the agent 'claude' unless said otherwise."""
    fields.setdefault("source", "claude")
    return create_memory(content=content, **fields)


def pending_merge() -> Proposal:
    """Two memories saying the alpha API is on port 8080, and a pending proposal to merge them."""
    a = create_memory(content="The alpha API answers on port 8080", project="alpha")
    b = create_memory(content="The alpha API listens on port 8080 over HTTP", project="alpha")
    return Proposal.objects.create(
        sources=[a.pk, b.pk], cluster_key=f"{a.pk},{b.pk}", project="alpha", content="The alpha API is on 8080",
        category="fact", tier="semantic", tags=[], importance=0.5, rationale="same",
    )  # fmt: skip
