"""What a memory becomes when a newer one replaces it: superseded (kept, linked to its successor, out of search and
recall), restored in one action, or put to a person as a conflict ("which is current?").

The rules that decide *whether* a write replaces a memory are in `updates.py`; this module only acts on a
decision, each act with a history event on both memories.

Restoring a superseded memory undoes the supersession on both sides: the memory is active again, its successor
stays active and no longer lists it, and the pair is remembered as "keep both" so neither the gate's conflict
queue nor consolidation asks about it again. A person who wants the older fact alone archives the newer one.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from memoryhub.memories.lifecycle import restore_memory
from memoryhub.memories.store import record_event
from memoryhub.memories.validity import end_validity
from memoryhub.models import ConflictChoice, Memory, Proposal, ProposalKind, ProposalStatus, Status
from memoryhub.storage import sql

CONFLICT_GENERATOR = "updates"


@dataclass(frozen=True)
class Chain:
    """A memory's place in its supersession chain: what it replaced and what replaced it."""

    supersedes: list[int]
    superseded_by: int | None


def chain_of(memory: Memory) -> Chain:
    return Chain(
        supersedes=sorted(Memory.objects.filter(superseded_by_id=memory.pk).values_list("pk", flat=True)),
        superseded_by=memory.superseded_by_id,
    )


def chains_of(memory_ids: list[int]) -> dict[int, list[int]]:
    """What each of these memories superseded, in one query (lists and exports)."""
    out: dict[int, list[int]] = {pk: [] for pk in memory_ids}
    # Raw (one statement, by id): every search answer asks, and the ORM's query cost more than the answer.
    for pk, successor in sql.superseded_among(memory_ids):
        out.setdefault(successor, []).append(pk)
    return out


def with_chains(memories: list[Memory]) -> list[Memory]:
    """Give each memory `supersedes_ids` (what it replaced) in one query, for a page or a result list: the API's
    shape would otherwise ask once per memory."""
    chains = chains_of([m.pk for m in memories])
    for memory in memories:
        memory.supersedes_ids = chains.get(memory.pk, [])
    return memories


def current_successor(memory: Memory) -> Memory:
    """The end of the chain that starts at `memory`: the memory that stands for it now (itself if active)."""
    seen = {memory.pk}
    current = memory
    while current.superseded_by_id is not None and current.superseded_by_id not in seen:
        seen.add(current.superseded_by_id)
        nxt = Memory.objects.filter(pk=current.superseded_by_id).first()
        if nxt is None:
            break
        current = nxt
    return current


def supersede(*, older: Memory, newer: Memory, actor: str, reason: str) -> None:
    """`newer` replaces `older`: older becomes superseded and links to newer; both get a history event. Runs in the
    caller's transaction if there is one. `updated_at` is not touched (an edit is not what happened)."""
    if older.pk == newer.pk:
        raise ValidationError("a memory cannot supersede itself", code="invalid_state")
    with transaction.atomic():
        before = {"status": older.status, "superseded_by": older.superseded_by_id}
        Memory.objects.filter(pk=older.pk).update(status=Status.SUPERSEDED, superseded_by=newer)
        end_validity(memory_ids=[older.pk], successor_id=newer.pk)
        older.status, older.superseded_by_id = Status.SUPERSEDED, newer.pk
        older.valid_to = Memory.objects.values_list("valid_to", flat=True).get(pk=older.pk)
        record_event(older.pk, "superseded", actor=actor, before=before,
                     after={"status": Status.SUPERSEDED, "superseded_by": newer.pk},
                     note=f"superseded by #{newer.pk}: {reason}")  # fmt: skip
        record_event(newer.pk, "supersedes", actor=actor, after={"supersedes": [older.pk]},
                     note=f"supersedes #{older.pk}: {reason}")  # fmt: skip


def _unlink(memory: Memory, *, actor: str, note: str) -> Memory | None:
    """Make a superseded memory active again; returns its former successor (None if it had none)."""
    successor = Memory.objects.filter(pk=memory.superseded_by_id).first() if memory.superseded_by_id else None
    before = {"status": memory.status, "superseded_by": memory.superseded_by_id}
    # A fresh decay clock, as an archived memory restored gets: the next sweep should not take it at once.
    Memory.objects.filter(pk=memory.pk).update(
        status=Status.ACTIVE, superseded_by=None, last_accessed_at=timezone.now(), valid_to=None
    )
    memory.status, memory.superseded_by_id, memory.valid_to = Status.ACTIVE, None, None
    record_event(memory.pk, "restored", actor=actor, before=before,
                 after={"status": Status.ACTIVE, "superseded_by": None}, note=note)  # fmt: skip
    if successor is not None:
        record_event(successor.pk, "supersession_undone", actor=actor, before={"supersedes": [memory.pk]},
                     after={"supersedes": []}, note=f"#{memory.pk} restored: {note}")  # fmt: skip
    return successor


def restore_superseded(*, memory: Memory, actor: str) -> Memory:
    """Bring a superseded memory back (one action): both it and its successor are active, the link is gone on both
    sides, and the pair is recorded as two facts so nobody is asked about it again."""
    with transaction.atomic():
        current = Memory.objects.select_for_update().filter(pk=memory.pk).first() or memory
        if current.status != Status.SUPERSEDED:
            raise ValidationError(f"memory #{current.pk} is not superseded", code="invalid_state")
        successor = _unlink(current, actor=actor, note="restored by a person")
        if successor is not None:
            _close_pair(older=current, newer=successor, actor=actor, choice=ConflictChoice.BOTH, why="restored")
    memory.refresh_from_db()
    return memory


def restore(*, memory: Memory, actor: str, undo: bool = False) -> Memory:
    """The one restore: a superseded memory as above, an archived one as `lifecycle.restore_memory` does (`undo`:
    the Undo of an archive just made, which leaves its last use where it was)."""
    if memory.status == Status.SUPERSEDED:
        return restore_superseded(memory=memory, actor=actor)
    return restore_memory(memory=memory, actor=actor, undo=undo)


# --- conflicts: a person decides ------------------------------------------------------------------------------


def conflict_key(a: int, b: int) -> str:
    low, high = sorted((int(a), int(b)))
    return f"conflict:{low},{high}"


def pair_settled(a: int, b: int) -> bool:
    """Was this pair ever put to a person (pending, or decided either way)? Then it is not asked again."""
    key = conflict_key(a, b)
    return Proposal.objects.filter(cluster_key=key).exclude(status=ProposalStatus.STALE).exists()


def kept_both(a: int, b: int) -> bool:
    """A person said these two are different facts (keep both, or a restore)."""
    return Proposal.objects.filter(cluster_key=conflict_key(a, b), choice=ConflictChoice.BOTH).exists()


def queue_conflict(*, older: Memory, newer: Memory, reason: str, actor: str = "") -> Proposal | None:
    """A pending conflict proposal for a person (sources: older first), unless this pair was ever asked."""
    if pair_settled(older.pk, newer.pk):
        return None
    proposal = Proposal(
        kind=ProposalKind.CONFLICT,
        sources=[older.pk, newer.pk],
        cluster_key=conflict_key(older.pk, newer.pk),
        project=newer.project,
        content=newer.content,
        category=newer.category,
        tier=newer.tier,
        tags=list(newer.tags or []),
        importance=max(older.importance, newer.importance),
        rationale=f"Which is current? #{older.pk} (older) or #{newer.pk} (newer): {reason}"[:2000],
        generator=CONFLICT_GENERATOR if not actor else f"{CONFLICT_GENERATOR} ({actor})"[:200],
    )
    # As the two are now: if either's text, project or status changes before a person decides, it goes stale.
    proposal.mark_sources(list(Memory.objects.filter(pk__in=[older.pk, newer.pk])))
    proposal.save()
    for memory in (older, newer):  # an automatic decision leaves a trace on what it touched, as a supersession does
        record_event(memory.pk, "conflict_queued", actor=actor, note=f"conflict proposal #{proposal.pk}: {reason}")
    return proposal


def _close_pair(*, older: Memory, newer: Memory, actor: str, choice: str, why: str) -> None:
    """Record a decision about a pair that had no proposal (a restore): the pair is not asked about again."""
    key = conflict_key(older.pk, newer.pk)
    pending = Proposal.objects.filter(cluster_key=key, status=ProposalStatus.PENDING)
    now = timezone.now()
    if pending.update(status=ProposalStatus.ACCEPTED, choice=choice, decided_at=now, decided_by=actor):
        return
    Proposal.objects.create(
        kind=ProposalKind.CONFLICT, status=ProposalStatus.ACCEPTED, choice=choice, sources=[older.pk, newer.pk],
        cluster_key=key, project=newer.project, content=newer.content, rationale=f"decided by a {why}",
        generator=CONFLICT_GENERATOR, decided_at=now, decided_by=actor,
    )  # fmt: skip


def decide_conflict(*, proposal: Proposal, choice: str, actor: str) -> Memory:
    """A person's answer to "which is current?": `newer` supersedes the older, `older` supersedes the newer, `both`
    keeps both active (and the pair is never asked again). Returns the memory that is current (for both: the
    newer). Runs in the caller's transaction; the caller holds the proposal's lock."""
    if choice not in ConflictChoice.values:
        raise ValidationError({"choice": f"must be one of: {', '.join(ConflictChoice.values)}"})
    older_id, newer_id = (int(i) for i in proposal.sources[:2])
    memories = Memory.objects.in_bulk([older_id, newer_id])
    if len(memories) < 2:
        raise ValidationError(f"proposal #{proposal.pk} is out of date: a memory was deleted", code="invalid_state")
    older, newer = memories[older_id], memories[newer_id]
    note = f"conflict proposal #{proposal.pk}: {actor or 'someone'} chose {choice}"
    keep, drop = (newer, older) if choice == ConflictChoice.NEWER else (older, newer)
    for memory in (older, newer):
        if memory.status == Status.ARCHIVED:
            raise ValidationError(f"proposal #{proposal.pk} is out of date: #{memory.pk} was archived",
                                  code="invalid_state")  # fmt: skip
    if choice == ConflictChoice.BOTH:
        for memory in (older, newer):
            if memory.status == Status.SUPERSEDED:
                _unlink(memory, actor=actor, note=note)
    else:
        if keep.status == Status.SUPERSEDED:
            _unlink(keep, actor=actor, note=note)
        if drop.status != Status.SUPERSEDED or drop.superseded_by_id != keep.pk:
            if drop.status == Status.SUPERSEDED:
                _unlink(drop, actor=actor, note=note)
            supersede(older=drop, newer=keep, actor=actor, reason=note)
    proposal.status = ProposalStatus.ACCEPTED
    proposal.choice = choice
    proposal.decided_at = timezone.now()
    proposal.decided_by = actor
    proposal.save(update_fields=["status", "choice", "decided_at", "decided_by"])
    # The decision itself in the history (a `both` that changed nothing would leave no trace): webhooks read it.
    record_event(
        older.pk, "conflict_decided", actor=actor, after={"proposal": proposal.pk, "choice": choice}, note=note
    )
    return newer if choice == ConflictChoice.BOTH else keep


def undo_conflict_decision(*, proposal: Proposal, actor: str) -> Proposal:
    """Take a person's answer to a conflict back: the two memories are active and unlinked from each other again
    (as a conflict leaves them while it waits) and the proposal is pending, to be answered anew."""
    with transaction.atomic():
        sql.serialize_writes("curation")
        current = Proposal.objects.filter(pk=proposal.pk).first()
        if current is None or current.kind != ProposalKind.CONFLICT:
            raise ValidationError(f"proposal #{proposal.pk} is not a conflict", code="not_found")
        if current.status != ProposalStatus.ACCEPTED:
            raise ValidationError(f"conflict #{current.pk} is {current.status}: nothing to undo", code="invalid_state")
        ids = [int(i) for i in current.sources[:2]]
        memories = Memory.objects.in_bulk(ids)
        if len(memories) < 2:
            raise ValidationError(
                f"conflict #{current.pk} cannot be undone: a memory was deleted", code="invalid_state"
            )
        note = f"conflict proposal #{current.pk}: {actor or 'someone'} undid the choice {current.choice}"
        marks = current.source_marks or {}
        # As they were when the conflict was queued (a write that repeated a superseded fact asks about it as is).
        was = {pk: marks.get(str(pk), {}).get("status", Status.ACTIVE) for pk in ids}
        for memory in memories.values():  # first the links this decision made (between the two only) go
            linked_to_other = memory.superseded_by_id in ids and memory.superseded_by_id != memory.pk
            if memory.status == Status.SUPERSEDED and linked_to_other and was[memory.pk] != Status.SUPERSEDED:
                _unlink(memory, actor=actor, note=note)
        for memory in memories.values():  # then a link the decision took away comes back
            if memory.status == Status.ACTIVE and was[memory.pk] == Status.SUPERSEDED:
                other = memories[ids[1] if memory.pk == ids[0] else ids[0]]
                supersede(older=memory, newer=other, actor=actor, reason=note)
            record_event(memory.pk, "conflict_reopened", actor=actor, note=note)
        current.status, current.choice, current.decided_at, current.decided_by = ProposalStatus.PENDING, "", None, ""
        # As the two are now, so the reopened question is not closed as stale at once.
        current.mark_sources(list(Memory.objects.filter(pk__in=ids)))
        current.save(update_fields=["status", "choice", "decided_at", "decided_by", "source_marks"])
    proposal.refresh_from_db()
    return proposal
