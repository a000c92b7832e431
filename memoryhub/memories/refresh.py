"""An agent's refresh ("I used this memory and it was still true"): counted, never a lever on importance.

A refresh is allowed to every token, read-only ones included, as a search reinforces what it returns. Left as a plain
reinforcement it was a lever: thirty refreshes in a row lifted a global memory from 0.5 to 1.0, from a token that may
not write at all. So a refresh always counts the use and restarts the decay clock, but lifts importance by the
reinforce step only when the memory was not used within the last MEMORYHUB_REFRESH_BOOST_HOURS, and never above
MEMORYHUB_REFRESH_IMPORTANCE_CAP. Each refresh leaves a usage record (`bookkeeping.record_usage`, kind `refresh`).
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db.models import F, Value
from django.db.models.functions import Least
from django.utils import timezone

from memoryhub.memories.bookkeeping import record_usage
from memoryhub.memories.store import bookkeeping_write
from memoryhub.models import Memory
from memoryhub.storage import sql


def refresh_memory(*, memory: Memory, agent: str, latency_ms: float = 0.0) -> Memory:
    """Count `agent`'s use of `memory` (see the module docstring); the memory as it is now."""
    now = timezone.now()
    quiet_since = now - timedelta(hours=settings.MEMORYHUB_REFRESH_BOOST_HOURS)
    boost = memory.last_accessed_at is None or memory.last_accessed_at < quiet_since
    cap = settings.MEMORYHUB_REFRESH_IMPORTANCE_CAP
    with bookkeeping_write():
        sql.reinforce_rows([memory.pk], now, 0.0)  # the use and the decay clock; importance below, capped
        if boost:
            step = settings.MEMORYHUB_REINFORCE_STEP
            Memory.objects.filter(pk=memory.pk, importance__lt=cap).update(
                importance=Least(F("importance") + Value(step), Value(cap))
            )
    record_usage(agent=agent, kind="refresh", project=memory.project, latency_ms=latency_ms)
    memory.refresh_from_db()
    return memory
