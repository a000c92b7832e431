"""Items from another tool or a session, through the write gate: what it decides (`write_through_gate`) or, for a
dry run, what it would decide without writing (`preview_write`).

Secrets and noise are judged by the gate's own checks, duplicates by the gate's own search in the same scope, and
texts repeated within one run by their normalised form. Whether a duplicate would be "merged" (it adds tags or
metadata) or only "duplicate" is decided by writing, so a preview says "duplicate" for both.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError

from memoryhub.embeddings import get_embedder
from memoryhub.memories.gate import find_duplicate, gate_write, normalised
from memoryhub.memories.noise import noise_reason
from memoryhub.memories.secrets import secrets_in_fields


def preview_write(
    *, content: str, project: str | None, tags: Any = None, metadata: Any = None, seen: set[str]
) -> tuple[str, str, int | None]:
    """(outcome, reason, id of the memory it duplicates). `seen` collects the run's texts so far."""
    found = secrets_in_fields({"content": content, "project": project, "tags": tags or [], "metadata": metadata or {}})
    kinds = list(dict.fromkeys(kind for field_kinds in found.values() for kind in field_kinds))
    if kinds:
        return "rejected", f"refused: the text holds a secret ({', '.join(kinds)})", None
    why = noise_reason(content)
    if why:
        return "rejected", f"refused: {why}", None
    key = normalised(content)
    if key in seen:
        return "duplicate", "the same as an earlier item of this run", None
    seen.add(key)
    found = find_duplicate(content=content, project=project, vector=get_embedder().embed([content])[0])
    if found is not None:
        return "duplicate", f"duplicate of memory #{found[0].pk} ({found[1]})", found[0].pk
    return "created", "would be stored as a new memory", None


def write_through_gate(
    *,
    content: str,
    project: str | None,
    category: str | None = None,
    tags: Any = None,
    metadata: Any = None,
    source: str,
) -> tuple[str, str, int | None]:
    """(outcome, reason, memory id) of one item sent through the gate; bad fields are a "rejected" outcome
    naming them, so one bad item does not stop the rest of an import or a capture."""
    try:
        result = gate_write(content=content, project=project, category=category or None, tags=tags,
                            metadata=metadata, source=source)  # fmt: skip
    except ValidationError as exc:
        fields = "; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())
        return "rejected", f"refused: {fields}", None
    return result.outcome, result.reason, result.memory.pk if result.memory is not None else None
