"""Export as JSON lines or Markdown, and import of exported items; a history event as plain data.

An export line is a memory in the API's shape (`memoryhub.writes.shape.memory_as_dict`): it carries every field
of the API answer, so an export imported elsewhere restores the same memories (new ids; `merged_into` is remapped
within the imported set).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import Any

from django.db import transaction

from memoryhub.embeddings import get_embedder
from memoryhub.memories.backup import auto_backup
from memoryhub.memories.holds import hold_imported, judge_imported
from memoryhub.memories.selectors import visible_memory
from memoryhub.memories.store import ImportVectors, prepare_import, store_imported
from memoryhub.models import Category, Memory, MemoryEvent
from memoryhub.storage import vector_index
from memoryhub.writes.shape import iso, memory_as_dict


def event_as_dict(event: MemoryEvent) -> dict[str, Any]:
    return {
        "id": event.pk,
        "memory_id": event.memory_id,
        "action": event.action,
        "actor": event.actor,
        "before": event.before,
        "after": event.after,
        "note": event.note,
        "created_at": iso(event.created_at),
    }


def export_queryset(allowed_projects: list[str] | None = None):
    """What a token may see: its projects and the globals (None: everything)."""
    return Memory.objects.in_projects(allowed_projects).order_by("pk")


def export_jsonl(memories: Iterable[Memory]) -> Iterator[str]:
    """One JSON object per line, newline-terminated."""
    # Every supersession link of the store in one query (few rows), not one query per exported memory.
    replaced: dict[int, list[int]] = {}
    for pk, successor in (
        Memory.objects.filter(superseded_by__isnull=False).order_by("pk").values_list("pk", "superseded_by_id")
    ):
        replaced.setdefault(successor, []).append(pk)
    for memory in memories:
        memory.supersedes_ids = replaced.get(memory.pk, [])
        yield json.dumps(memory_as_dict(memory), ensure_ascii=False, sort_keys=True) + "\n"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def export_markdown(memories: Iterable[Memory]) -> str:
    """A readable file: globals first, then projects by name; inside each, categories in the model's order."""
    order = {value: index for index, value in enumerate(Category.values)}
    groups: dict[str | None, dict[str, list[Memory]]] = {}
    for memory in memories:
        groups.setdefault(memory.project, {}).setdefault(memory.category, []).append(memory)
    lines = ["# MemoryHub export", ""]
    if not groups:
        lines.append("No memories.")
    for project in sorted(groups, key=lambda p: (p is not None, p or "")):
        lines += [f"## {project if project is not None else 'Global (every project)'}", ""]
        categories = groups[project]
        for category in sorted(categories, key=lambda c: (c == "", order.get(c, len(order)), c)):
            lines += [f"### {category.capitalize() if category else 'Uncategorised'}", ""]
            for memory in categories[category]:
                details = [f"#{memory.pk}"]
                if memory.tier:
                    details.append(memory.tier)
                if memory.tags:
                    details.append("tags: " + ", ".join(memory.tags))
                if memory.source:
                    details.append(f"by {memory.source}")
                if memory.confirmed:
                    details.append("confirmed")
                if memory.status != "active":
                    details.append(memory.status)
                if memory.superseded_by_id:
                    details.append(f"superseded by #{memory.superseded_by_id}")
                details.append(f"importance {memory.effective_importance:.2f}")
                lines.append(f"- {_one_line(memory.content)} ({'; '.join(details)})")
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def validate_items(
    items: list[Any],
    *,
    source: str = "",
    keep_source: bool = True,
    allowed_projects: list[str] | None = None,
    passed: Callable[[list[dict[str, Any]]], None] | None = None,
) -> list[dict[str, Any]]:
    """Check every item before anything is written; errors are named `memories.<index>.<field>`. A secret or a
    blank project anywhere refuses the whole import (WriteRefused, 422); `merged_into` must name another memory
    of the same import (by its `id`) or one already stored that the importer may see (`allowed_projects`; None:
    all), so an import cannot probe other projects' ids. Returns each item's cleaned fields, in input order,
    for `store_imported` (checking 1000 items again cost as much as a fifth of embedding them). `passed`: see
    `prepare_import` (the items that passed so far, a chunk at a time)."""
    own_ids = {item.get("id") for item in items if isinstance(item, dict) and isinstance(item.get("id"), int)}
    links = partial(_merged_into_errors, own_ids=own_ids, allowed_projects=allowed_projects)
    return prepare_import(items, source=source, keep_source=keep_source, also=links, passed=passed)


def _merged_into_errors(item: Any, *, own_ids: set, allowed_projects: list[str] | None) -> dict[str, list[str]]:
    """What is wrong with an item's `merged_into` (nothing when it has none)."""
    if not isinstance(item, dict) or item.get("merged_into") is None:
        return {}
    target = item["merged_into"]
    if isinstance(target, bool) or not isinstance(target, int):
        return {"merged_into": ["must be the id of another memory"]}
    if target == item.get("id"):
        return {"merged_into": ["a memory cannot be merged into itself"]}
    if target not in own_ids and visible_memory(target, allowed_projects=allowed_projects) is None:
        return {"merged_into": [f"no memory #{target} in this import or in the store"]}
    return {}


def import_items(
    *,
    items: list[dict[str, Any]],
    source: str = "",
    actor: str = "",
    keep_source: bool = True,
    allowed_projects: list[str] | None = None,
    trusted: bool = True,
    judge_text: bool = False,
) -> list[int]:
    """Store exported memories as given (no noise or duplicate judgement; the secret check and field checks as
    for any write), all or nothing: a request that fails or is cut off leaves no memory behind, so sending it
    again never stores twins. `merged_into` pointing inside the set follows the new ids.

    Then what must wait for a person is held (holds.judge_imported): every item of an untrusted token (not
    `trusted`), and with `judge_text` (every import but a restore) the texts that read as planted instructions.
    The rules judge them while the write lane embeds them: the model is most of an import's time, and judging a
    thousand texts after it was the largest part of the rest; the planted head then reads each text's vector, as it
    reads a single write's. The lane starts on the first items as soon as they
    pass their checks, while the request checks the rest (`ImportVectors`); an import refused midway drops what
    the lane has not started, and writes nothing."""
    vectors = ImportVectors()
    try:
        prepared = validate_items(items, source=source, keep_source=keep_source, allowed_projects=allowed_projects,
                                  passed=vectors.start)  # fmt: skip
        # Bursts of batches from one migration make one backup: the first holds the store as it was before.
        auto_backup("import", min_interval=300)
        judged = judge_imported([f["content"] for f in prepared], trusted=trusted, judge_text=judge_text)
        ids = store_imported(prepared=prepared, actor=actor or source, all_or_nothing=True, vectors=vectors.collect)
    except BaseException:
        vectors.cancel()
        raise
    old_to_new = {item["id"]: new for item, new in zip(items, ids, strict=True) if isinstance(item.get("id"), int)}
    links = [
        (new, old_to_new.get(item["merged_into"], item["merged_into"]))
        for item, new in zip(items, ids, strict=True)
        if isinstance(item.get("merged_into"), int)
    ]
    # A supersession link follows the new ids inside the set; one pointing outside it is not kept (an export
    # of part of a store must not link to whatever memory now holds the old id).
    successors = [
        (new, old_to_new[item["superseded_by"]])
        for item, new in zip(items, ids, strict=True)
        if isinstance(item.get("superseded_by"), int) and item["superseded_by"] in old_to_new
    ]
    if links or successors:
        with transaction.atomic():
            for new, target in links:
                Memory.objects.filter(pk=new).update(merged_into_id=target)
            for new, target in successors:
                Memory.objects.filter(pk=new).update(superseded_by_id=target)
    # The planted head reads each text's vector, as it reads a write's (the rules read the texts while they embedded).
    embedder = get_embedder()
    reasons = [item.reason(vector, embedder.model_id) for item, vector in zip(judged, vectors.collected, strict=True)]
    hold_imported(memory_ids=ids, actor=actor or source, reasons=reasons)
    # This process's vector copy reads the new rows now: the import pays for that, not the next search.
    vector_index.prepare(embedder.model_id, embedder.dimensions, for_searches=True)
    return ids
