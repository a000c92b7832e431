"""Bulk actions of the dashboard: domain calls, all in one transaction (all or nothing); archiving is one call.

The domain modules (lifecycle, consolidation) are imported where used so the dashboard loads even while
one of them is being replaced.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import transaction

from memoryhub.models import Memory, Status
from memoryhub.writes.gate import edit_memory


def bulk_confirm(*, memories: list[Memory], confirmed: bool, actor: str) -> int:
    from memoryhub.memories.lifecycle import confirm_memory

    todo = [m for m in memories if m.confirmed != confirmed]
    with transaction.atomic():
        for memory in todo:
            confirm_memory(memory=memory, confirmed=confirmed, actor=actor)
    return len(todo)


def bulk_archive(*, memories: list[Memory], actor: str, reason: str = "archived from the dashboard") -> int:
    from memoryhub.memories.lifecycle import archive

    return len(archive(memory_ids=[m.pk for m in memories], actor=actor, note=reason))


def bulk_restore(*, memories: list[Memory], actor: str, undo: bool = False) -> int:
    """Restore the archived and superseded ones among `memories` (the one restore, `supersession.restore`)."""
    from memoryhub.memories.supersession import restore

    todo = [m for m in memories if m.status in (Status.ARCHIVED, Status.SUPERSEDED)]
    with transaction.atomic():
        for memory in todo:
            memory.refresh_from_db()  # restoring one superseded memory may have changed another of the selection
            if memory.status in (Status.ARCHIVED, Status.SUPERSEDED):
                restore(memory=memory, actor=actor, undo=undo)
    return len(todo)


def bulk_retag(*, memories: list[Memory], changes_for: Callable[[Memory], dict], actor: str) -> int:
    """Apply per-memory tag/project/category/tier changes; a bad value anywhere writes nothing."""
    changed = 0
    with transaction.atomic():
        for memory in memories:
            before = memory.updated_at
            edit_memory(memory=memory, changes=changes_for(memory), actor=actor, action="retagged")
            changed += memory.updated_at != before
    return changed
