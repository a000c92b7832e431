"""A refresh ("I used this memory") is counted and leaves a usage record, but is no lever on importance: thirty
refreshes in a row from a read-only token lift a global memory once, and never above the cap; the same through the
agents' `memory_refresh` tool."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from memoryhub.models import Memory, UsageRecord
from tests.api.conftest import make_agent
from tests.factories import remember

pytestmark = pytest.mark.django_db


def refreshes(client, memory_id: int, n: int) -> list[int]:
    return [client.post(f"memories/{memory_id}/refresh").status_code for _ in range(n)]


def test_thirty_refreshes_from_a_read_only_token_lift_importance_once_and_leave_usage_records(settings):
    memory = remember("The user prefers tabs over spaces in Go files", importance=0.5)
    reader = make_agent("reader", read_only=True)
    assert refreshes(reader, memory.pk, 30) == [200] * 30
    memory.refresh_from_db()
    assert memory.importance == pytest.approx(0.5 + settings.MEMORYHUB_REINFORCE_STEP)
    assert memory.access_count == 30  # every use is counted all the same
    assert UsageRecord.objects.filter(agent="reader", kind="refresh").count() == 30


def test_a_refresh_after_a_quiet_day_lifts_again_but_never_above_the_cap(settings):
    memory = remember("Deploys go out through the release pipeline", importance=0.78)
    agent = make_agent("claude-code")
    for _ in range(3):
        Memory.objects.filter(pk=memory.pk).update(last_accessed_at=timezone.now() - timedelta(days=2))
        refreshes(agent, memory.pk, 1)
    memory.refresh_from_db()
    assert memory.importance == pytest.approx(settings.MEMORYHUB_REFRESH_IMPORTANCE_CAP)


def test_a_refresh_never_lowers_a_memory_above_the_cap():
    memory = remember("The team ships on Thursdays", importance=0.95)
    refreshes(make_agent("claude-code"), memory.pk, 1)
    memory.refresh_from_db()
    assert memory.importance == pytest.approx(0.95)


def test_the_refresh_tool_is_capped_the_same_way(settings):
    memory = remember("The user prefers pytest over unittest", importance=0.5)
    reader = make_agent("reader", read_only=True)
    for _ in range(10):
        call = reader.post("tools/call", {"name": "memory_refresh", "arguments": {"id": memory.pk}})
        assert call.status_code == 200, call.content
    memory.refresh_from_db()
    assert memory.importance == pytest.approx(0.5 + settings.MEMORYHUB_REINFORCE_STEP)
    assert UsageRecord.objects.filter(agent="reader", kind="refresh").count() == 10
