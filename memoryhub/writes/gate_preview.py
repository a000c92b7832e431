"""Items from another tool or a session, through the write gate (`item_through_gate`): what it decides or, for a
dry run, what it would decide without writing (`preview_write`).

Secrets and noise are judged by the gate's own checks, duplicates by the gate's own search in the same scope, and
texts repeated within one run by their normalised form. Whether a duplicate would be "merged" (it adds tags or
metadata) or only "duplicate" is decided by writing, so a preview says "duplicate" for both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError

from memoryhub.embeddings import get_embedder
from memoryhub.memories.secrets import secrets_in_fields
from memoryhub.memories.updates import Verdict
from memoryhub.retrieval.search import similar_in_scope
from memoryhub.writes import chatter_head
from memoryhub.writes.gate import find_duplicate, gate_write, normalised, restates_a_stored_fact
from memoryhub.writes.noise import noise_reason
from memoryhub.writes.update_gate import judge_neighbours


@dataclass(frozen=True)
class ItemWrite:
    """What the gate decided (or would decide) for one item: the outcome, why, the memory, what it replaced."""

    outcome: str
    reason: str
    memory_id: int | None = None
    supersedes: list[int] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """The decision as a report shows it, after the item's own fields: what it replaced only if anything."""
        answer = {"outcome": self.outcome, "reason": self.reason, "memory_id": self.memory_id}
        return answer | ({"supersedes": self.supersedes} if self.supersedes else {})


def preview_write(
    *, content: str, project: str | None, tags: Any = None, metadata: Any = None, seen: set[str]
) -> ItemWrite:
    """What the gate would decide (the memory is the one it duplicates). `seen` collects the run's texts so far."""
    found = secrets_in_fields({"content": content, "project": project, "tags": tags or [], "metadata": metadata or {}})
    kinds = list(dict.fromkeys(kind for field_kinds in found.values() for kind in field_kinds))
    if kinds:
        return ItemWrite("rejected", f"refused: the text holds a secret ({', '.join(kinds)})")
    embedder = get_embedder()
    vector = embedder.embed([content])[0]
    why = noise_reason(content, vector=vector, model_id=embedder.model_id)
    if why == chatter_head.REASON and restates_a_stored_fact(
        text=content, project=project, vector=vector, model_id=embedder.model_id
    ):
        why = None  # as the gate decides: a change of a stored fact is no chatter, whatever the head reads
    if why:
        return ItemWrite("rejected", f"refused: {why}")
    key = normalised(content)
    if key in seen:
        return ItemWrite("duplicate", "the same as an earlier item of this run")
    seen.add(key)
    candidates = similar_in_scope(content=content, vector=vector, model_id=embedder.model_id, project=project)
    # As the gate judges: a neighbour holding another value of the same fact is never a duplicate.
    verdicts = judge_neighbours(text=content, project=project, candidates=candidates, valid_from=None)
    skip = {v.memory_id for v in verdicts if v.verdict != Verdict.NONE}
    found = find_duplicate(content=content, project=project, vector=vector, candidates=candidates, skip=skip)
    if found is not None:
        return ItemWrite("duplicate", f"duplicate of memory #{found[0].pk} ({found[1]})", found[0].pk)
    replaced = [v.memory_id for v in verdicts if v.verdict == Verdict.SUPERSEDE]
    if replaced:
        named = ", ".join(f"#{pk}" for pk in replaced)
        return ItemWrite("created", f"would be stored as a new memory, superseding memory {named}", None, replaced)
    return ItemWrite("created", "would be stored as a new memory")


def item_through_gate(
    *,
    dry_run: bool,
    seen: set[str],
    content: str,
    project: str | None,
    category: str | None = None,
    tags: Any = None,
    metadata: Any = None,
    source: str,
    valid_from: Any = None,
    trusted: bool = True,
) -> ItemWrite:
    """One item of an import or a capture sent through the gate, or on a dry run what the gate would decide (`seen`
    collects the run's texts so far). Bad fields are a "rejected" outcome naming them, so one bad item does not stop
    the rest of an import or a capture. `valid_from`: the source's date for the fact, if it has one."""
    if dry_run:
        return preview_write(content=content, project=project, tags=tags, metadata=metadata, seen=seen)
    try:
        result = gate_write(content=content, project=project, category=category or None, tags=tags,
                            metadata=metadata, source=source, valid_from=valid_from, trusted=trusted)  # fmt: skip
    except ValidationError as exc:
        fields = "; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())
        return ItemWrite("rejected", f"refused: {fields}")
    memory_id = result.memory.pk if result.memory is not None else None
    return ItemWrite(result.outcome, result.reason, memory_id, list(result.supersedes))
