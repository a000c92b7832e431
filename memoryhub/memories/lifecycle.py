"""A memory's life after it is written: confirmed, used, fading, archived, restored.

Decay itself is computed at read time (memoryhub/memories/decay.py); here are the verbs that change state, each
in one transaction with a history event, and the sweep that archives what has faded below the threshold.
`archive` is the one place a memory is archived with its history event: the sweep, a person's archive and a
merge (memoryhub/consolidation/proposals.py) all go through it.

Status changes do not touch `updated_at`: that clock belongs to edits of the memory's fields, and for a memory
never retrieved it is also the decay clock, so archiving must not make a faded memory look fresh again.
Confirming, restoring and refreshing are uses by a person or an agent: they restart the decay clock.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import OperationalError, transaction
from django.utils import timezone

from memoryhub.memories.chain import release_successors
from memoryhub.memories.decay import (
    EFFECTIVE_FIELDS,
    HALF_UNIT,
    effective_from_row,
    effective_importance,
    effective_importance_expression,
)
from memoryhub.memories.store import record_event, reinforce
from memoryhub.models import Memory, MemoryEvent, Status
from memoryhub.storage import sql

SWEEP_BATCH = 500
SWEEP_KEY = "sweep"  # in an archive event's `after`: the sweep that archived it
UNDONE_SWEEP_KEY = "undoes_sweep"  # in a restore event's `after`: the sweep it took back


def _fresh(memory: Memory) -> Memory:
    """Re-read the row inside the transaction: the caller's instance may be stale (a form, another agent)."""
    try:
        return Memory.objects.get(pk=memory.pk)
    except Memory.DoesNotExist as exc:
        raise ValidationError(f"memory #{memory.pk} no longer exists", code="not_found") from exc


def _reloaded(memory: Memory) -> Memory:
    memory.refresh_from_db()
    return memory


def confirm_memory(*, memory: Memory, confirmed: bool = True, actor: str) -> Memory:
    """A person vouches for the memory (or withdraws that): confirmed memories never decay below the floor."""
    now = timezone.now()
    with transaction.atomic():
        current = _fresh(memory)
        if current.confirmed == confirmed:
            return _reloaded(memory)
        current.confirmed = confirmed
        # A person reading and vouching for it is a use: the decay clock restarts.
        current.last_accessed_at = now
        if confirmed:  # a person vouching for it checked it (validity.py)
            current.verified_at = now
        current.save(update_fields=["confirmed", "last_accessed_at", "verified_at"])
        record_event(
            current.pk,
            "confirmed" if confirmed else "unconfirmed",
            actor=actor,
            before={"confirmed": not confirmed},
            after={"confirmed": confirmed},
        )
    return _reloaded(memory)


def archive(
    *,
    memory_ids: Sequence[int],
    actor: str,
    note: str = "",
    notes: Mapping[int, str] | None = None,
    action: str = "archived",
    merged_into: Memory | None = None,
    record: Mapping[str, Any] | None = None,
) -> list[int]:
    """Archive the active memories among `memory_ids`, each with one history event; returns the ids archived.

    The one way a memory is archived. `notes` gives a memory its own note (else `note`); a merge passes
    `action="merged"` and the memory the sources went into, which the event records. Memories not active are
    left alone (and get no event), so a repeated call changes nothing. What they superseded comes back, passes to
    the merged memory, or (when selected too) is archived with them: `chain.release_successors`. Runs in the
    caller's transaction if there is one. `updated_at` is not touched (see the module's docstring). `record` adds
    keys to each event's `after` (a sweep marks its events with its id, which is how `undo_last_sweep` finds them).
    """
    with transaction.atomic():
        ids = list(
            Memory.objects.filter(pk__in=list(memory_ids), status=Status.ACTIVE)
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        if not ids:
            return []
        along = _superseded_along(set(memory_ids), ids)
        ids = sorted(ids + list(along))
        # What they superseded is not left pointing at an archived memory (chain.py: the one rule).
        release_successors(memory_ids=ids, actor=actor, action=action, merged_into=merged_into)
        changes: dict = {"status": Status.ARCHIVED, "superseded_by": None}
        before: dict = {"status": Status.ACTIVE}
        after: dict = {"status": Status.ARCHIVED, **(record or {})}
        if merged_into is not None:
            changes["merged_into"] = merged_into
            before["merged_into"] = None
            after["merged_into"] = merged_into.pk
        Memory.objects.filter(pk__in=ids).update(**changes)
        now = timezone.now()
        notes = notes or {}
        MemoryEvent.objects.bulk_create(
            [
                MemoryEvent(
                    memory_id=pk,
                    action=action,
                    actor=actor,
                    before=dict(before) | along.get(pk, {}),
                    after=dict(after),
                    note=notes.get(pk, note),
                    created_at=now,
                )
                for pk in ids
            ]
        )
    return ids


def _superseded_along(selected: set[int], leaving: list[int]) -> dict[int, dict]:
    """The superseded memories among `selected` whose successor leaves too: they are archived with it rather than
    brought back (a person archiving a chain wants all of it gone). {id: what its event's `before` says}."""
    along: dict[int, dict] = {}
    gone = set(leaving)
    while True:
        more = (
            Memory.objects.filter(pk__in=selected - gone, status=Status.SUPERSEDED, superseded_by_id__in=gone)
            .values_list("pk", "superseded_by_id")
        )  # fmt: skip
        found = {pk: {"status": Status.SUPERSEDED, "superseded_by": successor} for pk, successor in more}
        if not found:
            return along
        along |= found
        gone |= set(found)


def archive_memory(*, memory: Memory, actor: str, reason: str = "") -> Memory:
    """Keep the memory but take it out of search and recall (a person's archive; an error if already archived)."""
    with transaction.atomic():
        current = _fresh(memory)
        if current.status == Status.ARCHIVED:
            raise ValidationError(f"memory #{current.pk} is already archived", code="invalid_state")
        archive(memory_ids=[current.pk], actor=actor, note=reason)
    return _reloaded(memory)


def restore_memory(*, memory: Memory, actor: str, undo: bool = False) -> Memory:
    """Bring an archived memory back, with a fresh decay clock so the next sweep does not take it again. An `undo`
    (the Undo of an archive just made) puts it back exactly as it was: its last use stays where it was.

    A memory archived by a merge is restored on its own here (its `merged_into` is cleared); undoing the whole
    merge is `consolidation.undo_proposal`.
    """
    now = timezone.now()
    with transaction.atomic():
        current = _fresh(memory)
        if current.status != Status.ARCHIVED:
            raise ValidationError(f"memory #{current.pk} is not archived", code="invalid_state")
        before = {"status": current.status, "merged_into": current.merged_into_id}
        current.status = Status.ACTIVE
        current.merged_into = None
        if not undo:
            current.last_accessed_at = now
        current.save(update_fields=["status", "merged_into", "last_accessed_at"])
        record_event(
            current.pk, "restored", actor=actor, before=before, after={"status": Status.ACTIVE, "merged_into": None}
        )
    return _reloaded(memory)


def refresh_memory(*, memory: Memory, actor: str, now: datetime | None = None) -> Memory:
    """An agent used the memory: count the use, restart its decay clock and give it a small boost."""
    now = now or timezone.now()
    with transaction.atomic():
        current = _fresh(memory)
        before = {"importance": current.importance, "effective_importance": effective_importance(current, now)}
        reinforce(memory_ids=[current.pk], now=now)
        current.refresh_from_db()
        record_event(
            current.pk,
            "refreshed",
            actor=actor,
            before=before,
            after={"importance": current.importance, "effective_importance": effective_importance(current, now)},
        )
    return _reloaded(memory)


@dataclass
class ArchivedItem:
    id: int
    content: str
    project: str | None
    category: str
    tier: str
    effective_importance: float


@dataclass
class SweepReport:
    now: datetime
    threshold: float
    checked: int = 0
    dry_run: bool = False
    archived: list[ArchivedItem] = field(default_factory=list)

    @property
    def sweep_id(self) -> str:
        return self.now.isoformat()

    @property
    def archived_ids(self) -> list[int]:
        return [item.id for item in self.archived]


def _swept(projects: list[str] | None):
    """The memories a sweep looks at: every one, or those of `projects` (an owner's sweep; globals are not theirs)."""
    rows = Memory.objects.all()
    return rows if projects is None else rows.filter(project__in=projects)


def below_threshold(
    *, now: datetime | None = None, threshold: float | None = None, projects: list[str] | None = None
) -> list[tuple[int, float]]:
    """Active memories (of `projects`, None: all) whose effective importance is below the threshold at `now`:
    [(id, effective)]."""
    now = now or timezone.now()
    threshold = settings.MEMORYHUB_ARCHIVE_THRESHOLD if threshold is None else threshold
    out = []
    for row in _swept(projects).active().values(*EFFECTIVE_FIELDS).iterator(chunk_size=2000):
        value = effective_from_row(row, now)
        if value < threshold:
            out.append((row["pk"], value))
    return out


def sweep_preview(
    *, projects: list[str] | None = None, limit: int = 50, now: datetime | None = None
) -> tuple[int, list[ArchivedItem]]:
    """What a sweep would archive now, before it runs: how many, and the `limit` lowest (a read; nothing changes).
    The same rule as the sweep, counted and ordered by the database (the dashboard asks after every Confirm on the
    decay page; a scan in Python of 10k rows took 200 ms); where SQLite lacks `pow`, the sweep's own scan."""
    now = now or timezone.now()
    threshold = settings.MEMORYHUB_ARCHIVE_THRESHOLD
    fields = ("pk", "content", "project", "category", "tier")
    try:
        below = (
            _swept(projects)
            .active()
            .annotate(effective=effective_importance_expression(now))
            .filter(effective__lt=threshold - HALF_UNIT)  # HALF_UNIT: the same side of the line as the sweep
        )
        count = below.count()
        rows = [
            (row, row["effective"]) for row in below.order_by("effective", "pk").values(*fields, "effective")[:limit]
        ]
    except OperationalError:  # no pow() in this SQLite build
        pairs = sorted(below_threshold(now=now, projects=projects), key=lambda pair: pair[1])
        by_id = Memory.objects.in_bulk([pk for pk, _ in pairs[:limit]])
        count = len(pairs)
        rows = [({f: getattr(by_id[pk], f) for f in fields}, value) for pk, value in pairs[:limit] if pk in by_id]
    items = [
        ArchivedItem(row["pk"], row["content"], row["project"], row["category"], row["tier"], round(value, 6))
        for row, value in rows
    ]
    return count, items


def run_decay_sweep(
    *, now: datetime | None = None, actor: str = "decay", dry_run: bool = False, projects: list[str] | None = None
) -> SweepReport:
    """Archive every active memory whose effective importance fell below the threshold, each with an event.

    Idempotent: archived memories are not looked at again, so a second run at the same moment archives
    nothing and writes no event. Candidates are found outside the write transaction (a read), then re-checked
    inside it in batches, so a memory an agent used in between is left alone and the write lock stays short.
    """
    now = now or timezone.now()
    threshold = settings.MEMORYHUB_ARCHIVE_THRESHOLD
    report = SweepReport(now=now, threshold=threshold, dry_run=dry_run)
    report.checked = _swept(projects).active().count()
    candidates = [pk for pk, _ in below_threshold(now=now, threshold=threshold, projects=projects)]
    for start in range(0, len(candidates), SWEEP_BATCH):
        batch = candidates[start : start + SWEEP_BATCH]
        with transaction.atomic():
            sql.serialize_writes("curation")  # a merge in another server process does not interleave
            rows = Memory.objects.active().filter(pk__in=batch).order_by("pk")
            items = []
            for memory in rows:
                value = effective_importance(memory, now)
                if value < threshold:
                    items.append(
                        ArchivedItem(memory.pk, memory.content, memory.project, memory.category, memory.tier, value)
                    )
            if not dry_run and items:
                archive(
                    memory_ids=[item.id for item in items],
                    actor=actor,
                    record={SWEEP_KEY: report.sweep_id},
                    notes={
                        item.id: f"decayed: effective importance {item.effective_importance:.3f} "
                        f"below the threshold {threshold:.3f}"
                        for item in items
                    },
                )
            report.archived.extend(items)
    return report


@dataclass
class LastSweep:
    sweep_id: str
    memory_ids: list[int]  # archived by it and still archived (not merged or restored since)


def last_sweep(*, projects: list[str] | None = None) -> LastSweep | None:
    """The most recent sweep that archived something (of `projects`, None: anywhere), if it has not been undone,
    with what it can bring back (of those projects)."""
    events = MemoryEvent.objects.filter(action="archived", after__has_key=SWEEP_KEY)
    if projects is not None:
        events = events.filter(memory_id__in=_swept(projects).values("pk"))
    latest = events.order_by("-created_at", "-id").first()
    if latest is None:
        return None
    sweep_id = latest.after[SWEEP_KEY]
    undone = MemoryEvent.objects.filter(action="restored", **{f"after__{UNDONE_SWEEP_KEY}": sweep_id})
    if projects is not None:  # one owner's undo leaves the sweep of another project undoable by its owner
        undone = undone.filter(memory_id__in=_swept(projects).values("pk"))
    if undone.exists():
        return None
    ids = MemoryEvent.objects.filter(action="archived", **{f"after__{SWEEP_KEY}": sweep_id}).values_list(
        "memory_id", flat=True
    )
    still = _swept(projects).filter(pk__in=list(ids), status=Status.ARCHIVED, merged_into__isnull=True)
    return LastSweep(sweep_id, sorted(still.values_list("pk", flat=True)))


def undo_last_sweep(*, actor: str, projects: list[str] | None = None) -> list[int]:
    """Bring back, in one step, what the last sweep archived (each with a `restored` event naming the sweep);
    returns the ids restored. The decay clock restarts, so the next sweep does not take them straight back, but
    their last use stays as it was: nobody used them. A memory restored or merged since is left as it is; a sweep
    is undone once (the dashboard offers the undo only while something of the last sweep is still archived)."""
    sweep = last_sweep(projects=projects)
    if sweep is None or not sweep.memory_ids:
        raise ValidationError("there is no decay sweep to undo", code="invalid_state")
    now = timezone.now()
    with transaction.atomic():
        sql.serialize_writes("curation")
        ids = list(
            Memory.objects.filter(pk__in=sweep.memory_ids, status=Status.ARCHIVED, merged_into__isnull=True)
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        # A fresh decay clock (the edit clock, see memoryhub/memories/decay.py), not a use: no agent used them.
        Memory.objects.filter(pk__in=ids).update(status=Status.ACTIVE, updated_at=now)
        MemoryEvent.objects.bulk_create(
            [
                MemoryEvent(
                    memory_id=pk,
                    action="restored",
                    actor=actor,
                    before={"status": Status.ARCHIVED},
                    after={"status": Status.ACTIVE, UNDONE_SWEEP_KEY: sweep.sweep_id},
                    note=f"decay sweep of {sweep.sweep_id} undone",
                    created_at=now,
                )
                for pk in ids
            ]
        )
    return ids
