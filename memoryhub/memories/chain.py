"""The supersession chain never breaks: a superseded memory always has a successor that is still in the store.

`release_successors` is the one rule every path calls when memories leave the active set (deleted, archived by a
person, the decay sweep, a PATCH of `status`, merged into a new memory). For each memory those superseded:

- the leaving memory was itself superseded: its predecessors pass to its successor (the chain skips it);
- it was merged into a new memory: they pass to the merged memory, which says what it said;
- otherwise they are current again: active, with a history event naming the successor and what happened to it.

The foreign key's `on_delete` is DO_NOTHING: a delete that skipped this rule fails at commit (the table's deferred
foreign key) instead of nulling the link.
`orphaned_superseded` and `repair_orphans` are the health check's view of the same invariant.

Status changes here do not touch `updated_at` (see lifecycle.py); events are written directly (this module sits
below `store` and `lifecycle`, which both call it).
"""

from __future__ import annotations

from collections.abc import Collection

from django.db import transaction
from django.utils import timezone

from memoryhub.memories.validity import end_validity
from memoryhub.models import Memory, MemoryEvent, Status

PASSED = "succession_passed"  # a superseded memory's link moved to the successor's own successor (or merged memory)
REVIVED = "restored"  # the successor left: the memory is current again


def release_successors(
    *,
    memory_ids: Collection[int],
    actor: str,
    action: str,
    merged_into: Memory | None = None,
) -> list[int]:
    """Before (or as) `memory_ids` leave by `action` ("deleted", "archived", "merged"), give each memory they
    superseded a successor again or bring it back, as the module's docstring says; returns the ids changed.
    Memories among `memory_ids` are leaving themselves and left alone (`lifecycle.archive` archives a chain
    selected whole). Runs in the caller's transaction."""
    leaving = set(memory_ids)
    if not leaving:
        return []
    with transaction.atomic():
        predecessors = list(
            Memory.objects.filter(superseded_by_id__in=leaving, status=Status.SUPERSEDED)
            .exclude(pk__in=leaving)
            .order_by("pk")
            .only("pk", "superseded_by_id")
        )
        if not predecessors:
            return []
        onward = dict(Memory.objects.filter(pk__in=leaving).values_list("pk", "superseded_by_id"))
        now = timezone.now()
        events = []
        for memory in predecessors:
            left = memory.superseded_by_id
            heir = _heir(left, onward, leaving, merged_into)
            before = {"status": Status.SUPERSEDED, "superseded_by": left}
            if heir is not None:
                Memory.objects.filter(pk=memory.pk).update(superseded_by_id=heir)
                end_validity(memory_ids=[memory.pk], successor_id=heir)
                after = {"status": Status.SUPERSEDED, "superseded_by": heir, "passed_from": left}
                note = f"its successor #{left} was {action}; now superseded by #{heir}, which stands for it"
                events.append(_event(memory.pk, PASSED, actor, before, after, note, now))
            else:
                # A fresh decay clock, as any restore gives: the next sweep should not take it at once.
                Memory.objects.filter(pk=memory.pk).update(
                    status=Status.ACTIVE, superseded_by=None, last_accessed_at=now, valid_to=None
                )
                after = {"status": Status.ACTIVE, "superseded_by": None, "successor_left": left, "because": action}
                note = f"current again: its successor #{left} was {action}"
                events.append(_event(memory.pk, REVIVED, actor, before, after, note, now))
        MemoryEvent.objects.bulk_create(events)
    return [m.pk for m in predecessors]


def _heir(left: int, onward: dict[int, int | None], leaving: set[int], merged_into: Memory | None) -> int | None:
    """Who stands for the leaving memory `left`: its own successor (the first not leaving), the merged memory, or
    nobody."""
    seen = {left}
    nxt = onward.get(left)
    while nxt is not None and nxt in leaving and nxt not in seen:
        seen.add(nxt)
        nxt = onward.get(nxt)
    if nxt is not None and nxt not in leaving:
        return nxt
    return merged_into.pk if merged_into is not None else None


def _event(pk: int, action: str, actor: str, before: dict, after: dict, note: str, now) -> MemoryEvent:
    return MemoryEvent(memory_id=pk, action=action, actor=actor, before=before, after=after, note=note, created_at=now)


def orphaned_superseded() -> list[int]:
    """Superseded memories with no successor: what the rule above makes impossible (the health check asks)."""
    return sorted(
        Memory.objects.filter(status=Status.SUPERSEDED, superseded_by__isnull=True).values_list("pk", flat=True)
    )


def repair_orphans(*, actor: str = "check") -> list[int]:
    """Bring back every superseded memory that has no successor (left by an older version), each with an event."""
    with transaction.atomic():
        ids = orphaned_superseded()
        now = timezone.now()
        Memory.objects.filter(pk__in=ids).update(status=Status.ACTIVE, last_accessed_at=now, valid_to=None)
        MemoryEvent.objects.bulk_create(
            [
                _event(pk, REVIVED, actor, {"status": Status.SUPERSEDED, "superseded_by": None},
                       {"status": Status.ACTIVE, "superseded_by": None},
                       "current again: it was superseded but its successor was gone", now)
                for pk in ids
            ]
        )  # fmt: skip
    return ids


def passed_back(*, merged: Memory, actor: str, note: str) -> list[int]:
    """Undoing a merge: each memory whose link passed to `merged` goes back to the source it came from, if that
    source is active again; returns the ids moved. (What is left is released by the merged memory's archive.)"""
    moved: list[int] = []
    for memory in Memory.objects.filter(superseded_by=merged, status=Status.SUPERSEDED).order_by("pk"):
        event = (
            MemoryEvent.objects.filter(memory_id=memory.pk, action=PASSED, after__superseded_by=merged.pk)
            .order_by("-created_at", "-id")
            .first()
        )
        source = (event.after or {}).get("passed_from") if event else None
        if source is None or not Memory.objects.filter(pk=source, status=Status.ACTIVE).exists():
            continue
        Memory.objects.filter(pk=memory.pk).update(superseded_by_id=source)
        end_validity(memory_ids=[memory.pk], successor_id=source)
        MemoryEvent.objects.create(
            memory_id=memory.pk, action=PASSED, actor=actor,
            before={"status": Status.SUPERSEDED, "superseded_by": merged.pk},
            after={"status": Status.SUPERSEDED, "superseded_by": source, "passed_from": merged.pk}, note=note,
        )  # fmt: skip
        moved.append(memory.pk)
    return moved
