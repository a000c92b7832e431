"""Small builders shared by the test suites."""

from __future__ import annotations

from memoryhub.memories.store import create_memory
from memoryhub.models import Memory


def remember(content: str, **fields) -> Memory:
    """A memory written by the domain (row, FTS entry and vector), as the agent 'claude' unless said otherwise."""
    fields.setdefault("source", "claude")
    return create_memory(content=content, **fields)
