"""Writes to the memory store. Each writes the row, its FTS entry (by trigger) and its vector in one transaction.

Embeddings are computed before the transaction opens, so the write lock is held for milliseconds and an
embedder that fails leaves nothing behind.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Future
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import numpy as np
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.utils import timezone

from memoryhub.embeddings import get_embedder
from memoryhub.embeddings.write_lane import embed_for_storage, start_embedding_for_storage
from memoryhub.memories.chain import release_successors
from memoryhub.memories.fields import EDITABLE_FIELDS, NewMemory, clean_fields, new_memory, parse_import_time
from memoryhub.memories.secrets import WriteRefused, check_no_secrets, redact_rows, redact_value
from memoryhub.memories.validity import imported_times
from memoryhub.models import Memory, MemoryEvent, Status
from memoryhub.storage import sql


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
    valid_from: datetime | None = None,
    valid_to: datetime | None = None,
    expires_at: datetime | None = None,
) -> Memory:
    """Store one memory without the gate (a merge, a promotion): its fields checked as any write's, secrets
    included. `vector`, when the caller already embedded `content` with the active model, is reused.
    `valid_from`: when the fact became true (default: now); `valid_to`, `expires_at`: see `validity`."""
    command = new_memory(content=content, project=project, category=category, tier=tier, tags=tags,
                         metadata=metadata, importance=importance, confirmed=confirmed, source=source,
                         valid_from=valid_from, valid_to=valid_to, expires_at=expires_at)  # fmt: skip
    check_no_secrets(command.searched_for_secrets())
    if vector is None or command.content != content:
        vector = embed_for_storage([command.content])[0]
    return store_new(command, vector=vector, actor=actor)


def store_new(command: NewMemory, *, vector: np.ndarray, actor: str | None = None) -> Memory:
    """Write a checked command (`fields.new_memory`; the gate has judged it, or `create_memory` checked its
    secrets) with the vector of its text: the row, its vector and the history event, in one short transaction.
    Nothing is checked or embedded again here."""
    model_id = get_embedder().model_id
    with transaction.atomic():
        now = timezone.now()
        memory = Memory.objects.create(
            **command.row_fields(), source=command.source, embed_model=model_id, created_at=now, updated_at=now,
            valid_from=command.valid_from or now, verified_at=now,
        )  # fmt: skip
        sql.write_vector(memory.pk, vector)
        source = command.source
        record_event(memory.pk, "created", actor=actor if actor is not None else source, after=snapshot(memory))
    return memory


def update_memory(*, memory: Memory, changes: dict[str, Any], actor: str = "", action: str = "updated") -> Memory:
    """Apply field changes; re-embeds when the text changes. Records what was there before."""
    cleaned = clean_fields(changes, partial=True)
    before = snapshot(memory)
    cleaned = {k: v for k, v in cleaned.items() if before.get(k) != v}
    if not cleaned:
        return memory
    # A memory stored before a rule existed may hold a secret: the edit that replaces it must not copy it into
    # history, and the events that recorded it earlier are scrubbed too.
    held_secret = redact_value({k: before[k] for k in cleaned}) != {k: before[k] for k in cleaned}
    vector = None
    embedder = get_embedder()
    if "content" in cleaned:
        vector = embed_for_storage([cleaned["content"]])[0]
    with transaction.atomic():
        if cleaned.get("status", Status.ACTIVE) != Status.ACTIVE and before["status"] == Status.ACTIVE:
            release_successors(memory_ids=[memory.pk], actor=actor, action=cleaned["status"])
        for field, value in cleaned.items():
            setattr(memory, field, value)
        memory.updated_at = timezone.now()
        if set(cleaned) - {"status"}:  # an edit, not an archive: someone looked at the fact (validity.py)
            memory.verified_at = memory.updated_at
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
            before=redact_value({k: before[k] for k in cleaned}),
            after={k: snapshot(memory)[k] for k in cleaned},
        )
        if held_secret:
            scrub_history(memory_ids=[memory.pk])
    return memory


def scrub_history(*, memory_ids: Iterable[int] | None = None) -> int:
    """Redact secrets in history events (of these memories, or all). Returns how many events changed."""
    events = MemoryEvent.objects.all() if memory_ids is None else MemoryEvent.objects.filter(memory_id__in=memory_ids)
    changed = redact_rows(events.iterator(), ("before", "after", "note"))
    with transaction.atomic():
        for event in changed:
            event.save(update_fields=["before", "after", "note"])
    return len(changed)


def delete_memory(*, memory: Memory, actor: str = "") -> None:
    """Delete the row; what it superseded comes back or passes to its own successor (`chain.release_successors`)."""
    with transaction.atomic():
        release_successors(memory_ids=[memory.pk], actor=actor, action="deleted")
        record_event(memory.pk, "deleted", actor=actor, before=redact_value(snapshot(memory)))
        memory.delete()  # triggers remove the FTS entries and the vector


def clean_import_item(item: Any, *, source: str, keep_source: bool) -> dict[str, Any]:
    """One imported memory's fields, checked as any write is (secrets, NUL bytes, blank project) and more:
    `source` is the importer's own name unless it may restore, timestamps are parsed and clamped."""
    if not isinstance(item, dict):
        raise ValidationError({"": "each memory must be a JSON object"})
    errors: dict[str, list[str]] = {}
    refused: str | None = None  # the kind of the first refusal (WriteRefused), if any
    fields: dict[str, Any] = {}
    try:
        fields = clean_fields({k: item[k] for k in (*EDITABLE_FIELDS, "content") if k in item})
    except ValidationError as exc:
        refused = exc.kind if isinstance(exc, WriteRefused) else None
        errors |= {k: list(v) for k, v in exc.message_dict.items()}
    claimed = item.get("source")
    if claimed is not None and not isinstance(claimed, str):
        errors["source"] = ["must be text"]
    elif keep_source and claimed:
        try:
            check_no_secrets({"source": claimed})
        except WriteRefused as exc:
            refused = exc.kind
            errors |= {k: list(v) for k, v in exc.message_dict.items()}
    extra: dict[str, Any] = {"source": str(claimed if keep_source and claimed else source)[:200]}
    count = item.get("access_count")
    # SQLite integers stop at 2**63 - 1; a larger count is a bad value, not a server error.
    if count is not None and (isinstance(count, bool) or not isinstance(count, int) or not 0 <= count < 2**31):
        errors["access_count"] = ["must be a whole number from 0 to 2147483647"]
    else:
        extra["access_count"] = count or 0
    for name in ("created_at", "updated_at", "last_accessed_at", "valid_from", "verified_at"):
        try:
            parsed = parse_import_time(item.get(name), name)
        except ValidationError as exc:
            errors |= {k: list(v) for k, v in exc.message_dict.items()}
            continue
        if parsed is not None:
            extra[name] = parsed
    try:
        extra |= imported_times(item)
    except ValidationError as exc:
        errors |= {k: list(v) for k, v in exc.message_dict.items()}
    if errors:
        raise WriteRefused(errors, kind=refused) if refused is not None else ValidationError(errors)
    # An imported fact became true when the source says, else when it was first written there.
    extra.setdefault("valid_from", extra.get("created_at") or timezone.now())
    extra.setdefault("verified_at", extra.get("updated_at") or extra.get("created_at") or timezone.now())
    return fields | extra


def import_memories(
    *,
    items: list[dict[str, Any]],
    source: str = "",
    actor: str = "",
    batch_size: int = 64,
    all_or_nothing: bool = False,
    keep_source: bool = True,
) -> list[int]:
    """Store memories as given (no noise or duplicate judgement, but every field check, secrets included): for
    migration and restore. Returns ids in input order.

    Every item is validated before anything is written (`prepare_import`); then `store_imported` writes them.
    `keep_source=False` stores `source` for every item (an agent may not claim to be another).
    """
    prepared = prepare_import(items, source=source, keep_source=keep_source)
    return store_imported(prepared=prepared, actor=actor or source, batch_size=batch_size,
                          all_or_nothing=all_or_nothing)  # fmt: skip


# A further check of one import item, beyond its own fields (an export's link to another memory): its errors by
# field, empty when it passes.
ItemCheck = Callable[[Any], dict[str, list[str]]]


def prepare_import(
    items: list[Any],
    *,
    source: str = "",
    keep_source: bool = True,
    also: ItemCheck | None = None,
    passed: Callable[[list[dict[str, Any]]], None] | None = None,
) -> list[dict[str, Any]]:
    """Every item's fields checked and cleaned (`clean_import_item`), then checked by `also` if given, in input
    order; one ValidationError (or WriteRefused) naming `memories.<index>.<field>` for every bad item.

    `passed`, if given, is handed the cleaned items a chunk at a time (IMPORT_FIRST_CHUNK, then IMPORT_EMBED_CHUNK),
    in input order, as soon as the chunk and every item before it passed: an import starts embedding them while it
    checks the rest. Once an item fails, nothing more is handed over."""
    prepared: list[dict[str, Any]] = []
    errors: dict[str, list[str]] = {}
    refused: str | None = None  # the kind of the first refusal (WriteRefused), if any
    handed = 0  # how many of `prepared` went to `passed`
    for index, item in enumerate(items):
        try:
            prepared.append(clean_import_item(item, source=source, keep_source=keep_source))
        except ValidationError as exc:
            if isinstance(exc, WriteRefused) and (refused is None or exc.kind == "secret"):
                refused = exc.kind
            for field, messages in exc.message_dict.items():
                errors[f"memories.{index}.{field}".rstrip(".")] = list(messages)
        for field, messages in (also(item) if also is not None else {}).items():
            errors[f"memories.{index}.{field}"] = messages
        if passed is not None and not errors and len(prepared) - handed == _next_chunk(handed):
            passed(prepared[handed:])
            handed = len(prepared)
    if errors:
        raise WriteRefused(errors, kind=refused) if refused is not None else ValidationError(errors)
    if passed is not None and handed < len(prepared):
        passed(prepared[handed:])
    return prepared


# Texts handed to the write lane at a time by an all-or-nothing import: the local model sorts them by length
# before batching (short texts pad less), and the lane embeds one chunk while the next waits its turn. The first
# chunk is small so that the lane starts while the request still checks the rest of its items (with one client
# the lane otherwise waited for the whole request's checks); 32, because a first chunk of 64 texts, padded to its
# longest without the others to sort among, cost the model 9% more time over 1000 texts, and one of 16 or 32 nothing.
IMPORT_EMBED_CHUNK = 512
IMPORT_FIRST_CHUNK = 32


def _next_chunk(handed: int) -> int:
    return IMPORT_FIRST_CHUNK if handed == 0 else IMPORT_EMBED_CHUNK


class ImportVectors:
    """An import's vectors: its texts embed on the write lane chunk by chunk as they pass their checks (`start`,
    the `passed` of `prepare_import`); `collect` hands them over in input order, waiting for them if need be, and
    `cancel` drops the chunks the lane has not started (an import refused after its first chunks passed)."""

    def __init__(self) -> None:
        self._chunks: list[Future[np.ndarray]] = []
        self.collected: np.ndarray | None = None  # what `collect` handed over, for readers after the write

    def start(self, prepared: list[dict[str, Any]]) -> None:
        self._chunks.append(start_embedding_for_storage([f["content"] for f in prepared]))

    def collect(self) -> np.ndarray:
        done = [chunk.result() for chunk in self._chunks]
        self.collected = np.vstack(done) if done else np.zeros((0, get_embedder().dimensions), dtype=np.float32)
        return self.collected

    def cancel(self) -> None:
        for chunk in self._chunks:
            chunk.cancel()


def start_import_vectors(prepared: list[dict[str, Any]]) -> Callable[[], np.ndarray]:
    """Start embedding the prepared items' texts on the write lane, IMPORT_EMBED_CHUNK at a time, and return at once
    what hands over their vectors (in input order, waiting for them if need be): the request goes on with its own
    work while the model runs."""
    vectors = ImportVectors()
    for at in range(0, len(prepared), IMPORT_EMBED_CHUNK):
        vectors.start(prepared[at : at + IMPORT_EMBED_CHUNK])
    return vectors.collect


def store_imported(
    *,
    prepared: list[dict[str, Any]],
    actor: str = "",
    batch_size: int = 64,
    all_or_nothing: bool = False,
    vectors: Callable[[], np.ndarray] | None = None,
) -> list[int]:
    """Write memories `prepare_import` cleaned (each checked once, never again here). Returns ids in input order.

    With `all_or_nothing` (the API's import) every vector is computed first and all rows go in in one
    transaction: a failed or killed request leaves nothing, so a client can simply send it again. Otherwise
    (seeding, benchmarks: stores too big for one transaction) rows and vectors go in per batch, each batch one
    transaction, so a crash loses at most the batch in flight. Either way no row is ever left without its vector.
    `vectors`: the all-or-nothing import's embedding already started (`start_import_vectors`).
    """
    embedder = get_embedder()
    batches = [prepared[start : start + batch_size] for start in range(0, len(prepared), batch_size)]
    ids: list[int] = []
    if all_or_nothing:
        # The rows' INSERTs are compiled while the lane may still embed the last texts. Then the vectors, outside
        # the transaction: the write lock is held for running the inserts alone.
        inserts = _row_inserts(prepared, embedder.model_id)
        flat = (vectors or start_import_vectors(prepared))()
        with transaction.atomic():
            ids = _insert_rows(inserts, flat, actor)
    else:
        for batch in batches:
            batch_vectors = embed_for_storage([f["content"] for f in batch])
            inserts = _row_inserts(batch, embedder.model_id)
            with transaction.atomic():
                ids.extend(_insert_rows(inserts, batch_vectors, actor))
    # A store an import just grew by a large share is planned for by its new size from the next search on.
    sql.refresh_statistics(len(ids))
    return ids


def _row_inserts(prepared: list[dict[str, Any]], model_id: str) -> sql.RowInserts:
    return sql.prepare_row_inserts([Memory(**fields, embed_model=model_id) for fields in prepared])


def _insert_rows(inserts: sql.RowInserts, vectors, actor: str) -> list[int]:
    # Multi-row INSERTs per table (the database hands the new ids back), not three statements per row: rows,
    # vectors and events of 10k short memories go in in about a second. The rows' statements were compiled
    # before the transaction (`prepare_row_inserts`): the ORM's compiling was half of the time it held the lock.
    ids = sql.insert_prepared(inserts)
    sql.insert_new_vectors(list(zip(ids, vectors, strict=True)))
    sql.insert_plain_events(ids, action="imported", actor=actor, at=timezone.now())
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
    reinforce_uses(uses=dict.fromkeys(memory_ids, 1), now=now or timezone.now())


def reinforce_uses(*, uses: Mapping[int, int], now: datetime) -> None:
    """Memories used this many times each, the last of them `now`: each use counted and boosted, the decay clock
    restarted at `now`."""
    by_times: dict[int, list[int]] = {}
    for memory_id, times in uses.items():
        by_times.setdefault(times, []).append(memory_id)
    if not by_times:
        return
    with bookkeeping_write():
        for times, memory_ids in sorted(by_times.items()):
            sql.reinforce_rows(memory_ids, now, settings.MEMORYHUB_REINFORCE_STEP, times=times)


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
