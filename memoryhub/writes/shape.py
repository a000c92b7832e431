"""What a memory looks like in an answer: the one home of the shape.

`memory_as_dict` is the full shape, the one every REST answer, export line and proposal carries (docs: the API
contract in DESIGN.md). The agents' tools answer with `compact_memory`: the keys named in `COMPACT_FIELDS`, taken
from the full shape with the same meaning per key, plus what the tool adds (a search's `score`). `write_answer` is
the answer to a write through the gate, in either shape. The API's `MemorySerializer` describes the full shape to
the schema and delegates its output here.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from memoryhub.memories.supersession import chain_of
from memoryhub.models import Memory
from memoryhub.writes.gate import GateResult


def iso(value: datetime | None) -> str | None:
    """ISO 8601 in UTC with a Z, as DRF writes it."""
    if value is None:
        return None
    text = value.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def memory_as_dict(memory: Memory) -> dict[str, Any]:
    """The one shape of a memory in every API answer, tool result and export line."""
    return {
        "id": memory.pk,
        "content": memory.content,
        "category": memory.category,
        "tier": memory.tier,
        "project": memory.project,
        "tags": list(memory.tags or []),
        "metadata": dict(memory.metadata or {}),
        "source": memory.source,
        "importance": round(memory.importance, 6),
        "effective_importance": memory.effective_importance,
        "confirmed": memory.confirmed,
        "status": memory.status,
        "embed_model": memory.embed_model,
        "created_at": iso(memory.created_at),
        "updated_at": iso(memory.updated_at),
        "last_accessed_at": iso(memory.last_accessed_at),
        "access_count": memory.access_count,
        "merged_into": memory.merged_into_id,
        "valid_from": iso(memory.valid_from or memory.created_at),
        # The supersession chain: what this memory replaced, and what replaced it.
        "supersedes": list(memory.supersedes_ids if hasattr(memory, "supersedes_ids") else chain_of(memory).supersedes),
        "superseded_by": memory.superseded_by_id,
        # Time beside valid_from (memories/validity.py): when it stopped being true, expires, was last checked.
        "valid_to": iso(memory.valid_to),
        "expires_at": iso(memory.expires_at),
        "verified_at": iso(memory.verified_at or memory.created_at),
    }


# What a model needs of a memory: the full shape without the bookkeeping fields (source, status, clocks, links).
# `importance` is the stored value and `effective_importance` the decayed one, as in the full shape.
COMPACT_FIELDS = ("id", "content", "category", "tier", "project", "tags", "confirmed", "importance",
                  "effective_importance")  # fmt: skip


def compact_memory(memory: Memory, **extra: Any) -> dict[str, Any]:
    """A memory in the tools' answers: `COMPACT_FIELDS` of `memory_as_dict`, then the tool's `extra` keys."""
    full = memory_as_dict(memory)
    return {name: full[name] for name in COMPACT_FIELDS} | extra


def write_answer(result: GateResult, *, shape: Callable[[Memory], dict[str, Any]] = memory_as_dict) -> dict[str, Any]:
    """The one answer to a write through the gate, on every route (REST, tools, MCP, proxy): what happened, the
    memory (in `shape`: `memory_as_dict`, or the tools' `compact_memory`), why, and what it replaced or put to a
    person."""
    answer: dict[str, Any] = {
        "outcome": result.outcome,
        "memory": shape(result.memory) if result.memory is not None else None,
        "reason": result.reason,
    }
    if result.warnings:
        answer["warnings"] = result.warnings
    if result.supersedes:
        answer["supersedes"] = list(result.supersedes)
    if result.conflicts:
        answer["conflicts"] = list(result.conflicts)
    return answer
