"""Writes to the memory store. Each writes the row, its FTS entry (by trigger) and its vector in one transaction.

Embeddings are computed before the transaction opens, so the write lock is held for milliseconds and an
embedder that fails leaves nothing behind.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import numpy as np
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from memoryhub.embeddings import get_embedder
from memoryhub.models import Category, Memory, MemoryEvent, Status, Tier
from memoryhub.storage import sql

EDITABLE_FIELDS = ("content", "category", "tier", "project", "tags", "metadata", "importance", "confirmed", "status")
MAX_TAGS = 50
MAX_TAG_LENGTH = 64


def snapshot(memory: Memory) -> dict[str, Any]:
    """The editable state of a memory, as recorded in history events."""
    return {field: getattr(memory, field) for field in EDITABLE_FIELDS} | {"merged_into": memory.merged_into_id}


def record_event(
    memory_id: int,
    action: str,
    *,
    actor: str = "",
    before: dict | None = None,
    after: dict | None = None,
    note: str = "",
) -> MemoryEvent:
    return MemoryEvent.objects.create(
        memory_id=memory_id, action=action, actor=actor, before=before, after=after, note=note
    )


def clean_fields(values: dict[str, Any], *, partial: bool = False) -> dict[str, Any]:
    """Validate and normalise memory fields; raises ValidationError naming each bad field."""
    errors: dict[str, str] = {}
    out: dict[str, Any] = {}
    if "content" in values or not partial:
        content = values.get("content")
        if not isinstance(content, str) or not content.strip():
            errors["content"] = "content is required and must be non-empty text"
        elif len(content) > settings.MEMORYHUB_MAX_CONTENT_CHARS:
            errors["content"] = f"content is longer than {settings.MEMORYHUB_MAX_CONTENT_CHARS} characters"
        else:
            out["content"] = content.strip()
    for field, choices in (("category", Category.values), ("tier", Tier.values), ("status", Status.values)):
        if field in values and values[field] is not None:
            value = values[field]
            if value == "" and field != "status":
                out[field] = ""
            elif value not in choices:
                errors[field] = f"must be one of: {', '.join(choices)}"
            else:
                out[field] = value
    if "project" in values:
        project = values["project"]
        if project in (None, ""):
            out["project"] = None
        elif not isinstance(project, str) or len(project) > 200:
            errors["project"] = "project must be text of at most 200 characters, or null for a global memory"
        else:
            out["project"] = project.strip()
    if "tags" in values and values["tags"] is not None:
        tags = values["tags"]
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            errors["tags"] = "tags must be a list of strings"
        elif len(tags) > MAX_TAGS or any(len(t) > MAX_TAG_LENGTH or not t.strip() for t in tags):
            errors["tags"] = f"at most {MAX_TAGS} tags, each 1 to {MAX_TAG_LENGTH} characters"
        else:
            out["tags"] = list(dict.fromkeys(t.strip() for t in tags))
    if "metadata" in values and values["metadata"] is not None:
        if not isinstance(values["metadata"], dict):
            errors["metadata"] = "metadata must be a JSON object"
        else:
            out["metadata"] = values["metadata"]
    if "importance" in values and values["importance"] is not None:
        importance = values["importance"]
        if isinstance(importance, bool) or not isinstance(importance, int | float) or not 0.0 <= importance <= 1.0:
            errors["importance"] = "importance must be a number from 0 to 1"
        else:
            out["importance"] = float(importance)
    if "confirmed" in values and values["confirmed"] is not None:
        if not isinstance(values["confirmed"], bool):
            errors["confirmed"] = "confirmed must be true or false"
        else:
            out["confirmed"] = values["confirmed"]
    if errors:
        raise ValidationError(errors)
    return out


def create_memory(
    *,
    content: str,
    project: str | None = None,
    category: str = "",
    tier: str = "",
    tags: list[str] | None = None,
    metadata: dict | None = None,
    importance: float | None = None,
    confirmed: bool = False,
    source: str = "",
    actor: str | None = None,
    vector: np.ndarray | None = None,
) -> Memory:
    """Store one memory. `vector`, when the caller already embedded `content` with the active model, is reused."""
    fields = clean_fields(
        {
            "content": content,
            "project": project,
            "category": category,
            "tier": tier,
            "tags": tags or [],
            "metadata": metadata or {},
            "importance": 0.5 if importance is None else importance,
            "confirmed": confirmed,
        }
    )
    embedder = get_embedder()
    if vector is None or fields["content"] != content:
        vector = embedder.embed([fields["content"]])[0]
    with transaction.atomic():
        memory = Memory.objects.create(**fields, source=source, embed_model=embedder.model_id)
        sql.write_vector(memory.pk, vector)
        record_event(memory.pk, "created", actor=actor if actor is not None else source, after=snapshot(memory))
    return memory


def update_memory(*, memory: Memory, changes: dict[str, Any], actor: str = "", action: str = "updated") -> Memory:
    """Apply field changes; re-embeds when the text changes. Records what was there before."""
    cleaned = clean_fields(changes, partial=True)
    before = snapshot(memory)
    cleaned = {k: v for k, v in cleaned.items() if before.get(k) != v}
    if not cleaned:
        return memory
    vector = None
    embedder = get_embedder()
    if "content" in cleaned:
        vector = embedder.embed([cleaned["content"]])[0]
    with transaction.atomic():
        for field, value in cleaned.items():
            setattr(memory, field, value)
        memory.updated_at = timezone.now()
        memory.save()
        if vector is not None:
            # The content trigger dropped the old vector and cleared embed_model; write the new pair.
            sql.write_vector(memory.pk, vector)
            Memory.objects.filter(pk=memory.pk).update(embed_model=embedder.model_id)
            memory.embed_model = embedder.model_id
        record_event(
            memory.pk,
            action,
            actor=actor,
            before={k: before[k] for k in cleaned},
            after={k: snapshot(memory)[k] for k in cleaned},
        )
    return memory


def delete_memory(*, memory: Memory, actor: str = "") -> None:
    with transaction.atomic():
        record_event(memory.pk, "deleted", actor=actor, before=snapshot(memory))
        memory.delete()  # triggers remove the FTS entries and the vector


def delete_memories(*, memory_ids: Iterable[int], actor: str = "") -> int:
    ids = list(memory_ids)
    if len(ids) > 1:
        from memoryhub.memories.backup import auto_backup

        auto_backup("bulk-delete")
    with transaction.atomic():
        memories = list(Memory.objects.filter(pk__in=ids))
        MemoryEvent.objects.bulk_create(
            [MemoryEvent(memory_id=m.pk, action="deleted", actor=actor, before=snapshot(m)) for m in memories]
        )
        deleted, _ = Memory.objects.filter(pk__in=[m.pk for m in memories]).delete()
    return len(memories)


def _parse_time(value: Any, field: str) -> datetime | None:
    if value in (None, ""):
        return None
    if isinstance(value, datetime):
        return value
    parsed = parse_datetime(str(value)) if isinstance(value, str) else None
    if parsed is None:
        raise ValidationError({field: "must be an ISO 8601 date-time"})
    return parsed if timezone.is_aware(parsed) else timezone.make_aware(parsed, timezone.utc)


def import_memories(
    *,
    items: list[dict[str, Any]],
    source: str = "",
    actor: str = "",
    batch_size: int = 64,
    all_or_nothing: bool = False,
) -> list[int]:
    """Store memories as given (no gate, no merging): for migration and restore. Returns ids in input order.

    Every item is validated before anything is written. With `all_or_nothing` (the API's import) every vector is
    computed first and all rows go in in one transaction: a failed or killed request leaves nothing, so a client
    can simply send it again. Otherwise (seeding, benchmarks: stores too big for one transaction) rows and vectors
    go in per batch, each batch one transaction, so a crash loses at most the batch in flight. Either way no row
    is ever left without its vector.
    """
    prepared: list[dict[str, Any]] = []
    errors: dict[str, list[str]] = {}
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            errors[f"memories.{index}"] = ["each memory must be a JSON object"]
            continue
        try:
            fields = clean_fields({k: item[k] for k in (*EDITABLE_FIELDS, "content") if k in item})
            extra = {
                "source": str(item.get("source") or source)[:200],
                "access_count": int(item.get("access_count") or 0),
            }
            if not 0 <= extra["access_count"] < 2**31:
                raise ValueError("access_count out of range")
            for field in ("created_at", "updated_at", "last_accessed_at"):
                parsed = _parse_time(item.get(field), field)
                if parsed is not None:
                    extra[field] = parsed
            prepared.append(fields | extra)
        except ValidationError as exc:
            for field, messages in (exc.message_dict if hasattr(exc, "message_dict") else {"": exc.messages}).items():
                errors[f"memories.{index}.{field}".rstrip(".")] = list(messages)
        except (TypeError, ValueError):
            errors[f"memories.{index}.access_count"] = ["must be a whole number from 0 to 2147483647"]
    if errors:
        raise ValidationError(errors)
    embedder = get_embedder()
    batches = [prepared[start : start + batch_size] for start in range(0, len(prepared), batch_size)]
    ids: list[int] = []
    if all_or_nothing:
        # Embedding first, outside the transaction: the write lock is then held for the inserts alone. Asked
        # for 512 texts at a time, the local model batches them by length (short texts pad less).
        texts = [f["content"] for f in prepared]
        chunks = [embedder.embed(texts[at : at + 512]) for at in range(0, len(texts), 512)]
        flat = np.vstack(chunks) if chunks else np.zeros((0, embedder.dimensions), dtype=np.float32)
        vectors = [flat[start : start + batch_size] for start in range(0, len(prepared), batch_size)]
        with transaction.atomic():
            for batch, batch_vectors in zip(batches, vectors, strict=True):
                ids.extend(_insert_imported(batch, batch_vectors, embedder.model_id, actor or source))
        return ids
    for batch in batches:
        batch_vectors = embedder.embed([f["content"] for f in batch])
        with transaction.atomic():
            ids.extend(_insert_imported(batch, batch_vectors, embedder.model_id, actor or source))
    return ids


def _insert_imported(batch: list[dict[str, Any]], vectors, model_id: str, actor: str) -> list[int]:
    # One multi-row INSERT per table (SQLite hands the new ids back), not three statements per row: rows,
    # vectors and events of 10k short memories go in in about a second.
    created = Memory.objects.bulk_create([Memory(**fields, embed_model=model_id) for fields in batch])
    ids = [memory.pk for memory in created]
    sql.insert_new_vectors(list(zip(ids, vectors, strict=True)))
    MemoryEvent.objects.bulk_create([MemoryEvent(memory_id=i, action="imported", actor=actor) for i in ids])
    return ids


@contextmanager
def bookkeeping_write() -> Iterator[None]:
    """A transaction for bookkeeping (use counts, usage records) that does not wait for the disk.

    WAL with synchronous=NORMAL: the commit survives a killed process, and only a power cut can lose it (the
    last moments' counts). Every memory, edit and history event keeps synchronous=FULL. Saves an fsync on each
    search and recall, which each write bookkeeping twice (1-3 ms apiece here, more on slow disks). Inside an
    outer transaction the outer one decides, so nothing already written there loses its durability."""
    if connection.in_atomic_block:
        with transaction.atomic():
            yield
        return
    previous = sql.synchronous()
    sql.set_synchronous("NORMAL")
    try:
        with transaction.atomic():
            yield
    finally:
        sql.set_synchronous(previous)


def reinforce(*, memory_ids: list[int], now: datetime | None = None) -> None:
    """An agent used these memories: count the use and restart their decay clock, with a small boost."""
    if not memory_ids:
        return
    from django.db.models import F
    from django.db.models.functions import Least

    now = now or timezone.now()
    with bookkeeping_write():
        Memory.objects.filter(pk__in=memory_ids).update(
            access_count=F("access_count") + 1,
            last_accessed_at=now,
            importance=Least(F("importance") + settings.MEMORYHUB_REINFORCE_STEP, 1.0),
        )


def reembed(*, batch_size: int = 64, progress=None) -> int:
    """Re-embed rows whose vector came from another model (or has none). Returns how many were done."""
    embedder = get_embedder()
    sql.ensure_vec_table(embedder.dimensions)
    done = 0
    while True:
        batch = list(Memory.objects.exclude(embed_model=embedder.model_id).order_by("pk")[:batch_size])
        if not batch:
            return done
        vectors = embedder.embed([m.content for m in batch])
        with transaction.atomic():
            for memory, vector in zip(batch, vectors, strict=True):
                sql.write_vector(memory.pk, vector)
            Memory.objects.filter(pk__in=[m.pk for m in batch]).update(embed_model=embedder.model_id)
        done += len(batch)
        if progress:
            progress(len(batch))
