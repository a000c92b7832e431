"""Archiving: the decay sweep takes exactly the faded memories, once; archived memories are kept and restorable."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.utils import timezone

from memoryhub.memories.lifecycle import archive_memory, restore_memory, run_decay_sweep
from memoryhub.memories.store import create_memory
from memoryhub.models import Memory, MemoryEvent, Status
from memoryhub.retrieval.recall import build_recall
from memoryhub.retrieval.search import MemoryFilter, search_memories
from memoryhub.storage import sql

pytestmark = pytest.mark.django_db

NOW = timezone.now()


def aged(content: str, days: float, *, importance: float, category: str = "", tier: str = "", confirmed=False):
    memory = create_memory(
        content=content, category=category, tier=tier, importance=importance, confirmed=confirmed, project="alpha"
    )
    then = NOW - timedelta(days=days)
    Memory.objects.filter(pk=memory.pk).update(created_at=then, updated_at=then)
    memory.refresh_from_db()
    return memory


@pytest.fixture
def store(settings):
    settings.MEMORYHUB_ARCHIVE_THRESHOLD = 0.3
    settings.MEMORYHUB_CONFIRMED_FLOOR = 0.5
    # Expected values worked out by hand from the default rates, so the test does not reuse the code's formula.
    return {
        # 0.5 x 0.95^20 = 0.179: faded
        "old fact": aged("The staging database is refreshed from prod weekly", 20, importance=0.5, category="fact"),
        # 0.5 x 0.98^20 = 0.334: decisions fade slower
        "old decision": aged("We chose Celery over RQ for background jobs", 20, importance=0.5, category="decision"),
        # 0.9 x 0.995^100 = 0.546
        "old preference": aged("Prefer tabs for indentation in Go files", 100, importance=0.9, category="preference"),
        # 0.6 x 0.93^15 = 0.204: episodic fades fast
        "old episode": aged("Yesterday's deploy failed on a missing env var", 15, importance=0.6, tier="episodic"),
        # confirmed: floor 0.5 however old
        "confirmed": aged("The API is versioned under /api/v1", 400, importance=0.9, category="fact", confirmed=True),
        "fresh": aged("Redis runs on port 6380 in development", 0, importance=0.5, category="fact"),
        # 0.31 x 0.95^0.5 = 0.302 just above; 0.31 x 0.95^1 = 0.2945 just below
        "just above": aged("Lint with ruff before committing", 0.5, importance=0.31, category="fact"),
        "just below": aged("Format SQL with sqlfluff", 1, importance=0.31, category="fact"),
    }


def test_the_sweep_archives_exactly_those_below_the_threshold(store):
    report = run_decay_sweep(now=NOW)
    expected = {store[k].pk for k in ("old fact", "old episode", "just below")}
    assert set(report.archived_ids) == expected
    assert report.checked == len(store)
    assert set(Memory.objects.filter(status=Status.ARCHIVED).values_list("pk", flat=True)) == expected
    by_id = {item.id: item for item in report.archived}
    assert by_id[store["old fact"].pk].effective_importance == pytest.approx(0.5 * 0.95**20, abs=1e-6)
    for pk in expected:
        event = MemoryEvent.objects.get(memory_id=pk, action="archived")
        assert event.actor == "decay"
        # The sweep marks its events, so "undo last sweep" finds exactly them.
        assert event.before == {"status": "active"} and event.after == {"status": "archived", "sweep": report.sweep_id}
        assert "below the threshold 0.300" in event.note


def test_the_sweep_is_idempotent(store):
    first = run_decay_sweep(now=NOW)
    events = MemoryEvent.objects.count()
    assert run_decay_sweep(now=NOW).archived == []
    assert run_decay_sweep(now=NOW + timedelta(hours=1)).archived == []
    assert MemoryEvent.objects.count() == events
    assert len(first.archived) == 3


def test_the_sweep_takes_more_as_time_passes(store):
    run_decay_sweep(now=NOW)
    later = run_decay_sweep(now=NOW + timedelta(days=3))
    # 0.5 x 0.98^23 = 0.314 still above; 0.31 x 0.95^3.5 = 0.259 now below.
    assert set(later.archived_ids) == {store["just above"].pk}


def test_a_dry_run_reports_and_changes_nothing(store):
    report = run_decay_sweep(now=NOW, dry_run=True)
    assert len(report.archived) == 3
    assert not Memory.objects.filter(status=Status.ARCHIVED).exists()
    assert not MemoryEvent.objects.filter(action="archived").exists()


def test_a_memory_used_since_it_faded_is_not_archived(store):
    old = store["old fact"]
    Memory.objects.filter(pk=old.pk).update(last_accessed_at=NOW - timedelta(hours=1))
    assert old.pk not in run_decay_sweep(now=NOW).archived_ids


def test_archived_memories_are_kept_in_the_indexes_but_out_of_search(store):
    old = store["old fact"]
    assert [
        h.memory.pk
        for h in search_memories(query="staging database refreshed", within=MemoryFilter(visible_from="alpha"), k=1)
    ] == [old.pk]
    run_decay_sweep(now=NOW)
    assert Memory.objects.filter(pk=old.pk).exists()
    assert old.pk in sql.fts_ids() and old.pk in sql.vector_ids()
    sql.fts_integrity_check()
    for mode in ("hybrid", "keyword", "semantic"):
        hits = search_memories(
            query="staging database refreshed from prod", within=MemoryFilter(visible_from="alpha"), mode=mode
        )
        assert old.pk not in {h.memory.pk for h in hits}
    recalled = build_recall(project="alpha", query="staging database refreshed", budget_chars=4000)
    assert recalled.memory_ids and old.pk not in recalled.memory_ids


def test_a_restored_memory_comes_back_with_a_fresh_clock(store):
    old = store["old fact"]
    run_decay_sweep(now=NOW)
    restore_memory(memory=old, actor="me")
    assert old.status == Status.ACTIVE
    assert old.effective_importance == pytest.approx(0.5, abs=1e-3)
    assert old.pk in {
        h.memory.pk
        for h in search_memories(query="staging database refreshed", within=MemoryFilter(visible_from="alpha"))
    }
    assert old.pk not in run_decay_sweep().archived_ids
    event = MemoryEvent.objects.filter(memory_id=old.pk).last()
    assert (event.action, event.actor, event.after["status"]) == ("restored", "me", "active")


def test_archiving_by_hand_records_the_reason_and_refuses_twice(store):
    memory = store["fresh"]
    archive_memory(memory=memory, actor="me", reason="superseded by the compose file")
    assert memory.status == Status.ARCHIVED
    event = MemoryEvent.objects.filter(memory_id=memory.pk).last()
    assert (event.action, event.note) == ("archived", "superseded by the compose file")
    with pytest.raises(ValidationError, match="already archived"):
        archive_memory(memory=memory, actor="me")
    assert MemoryEvent.objects.filter(memory_id=memory.pk, action="archived").count() == 1


def test_restoring_an_active_memory_is_refused(store):
    with pytest.raises(ValidationError, match="not archived"):
        restore_memory(memory=store["fresh"], actor="me")


def test_the_decay_command_prints_what_it_archived(store):
    # The command runs at the real time: age the faded ones relative to it.
    out = StringIO()
    call_command("decay", "--dry-run", stdout=out)
    assert "Would archive 3 of 8 active memories" in out.getvalue()
    assert f"#{store['old fact'].pk} [alpha]" in out.getvalue()
    assert not Memory.objects.filter(status=Status.ARCHIVED).exists()
    out = StringIO()
    call_command("decay", stdout=out)
    assert "Archived 3 of 8 active memories" in out.getvalue()
    out = StringIO()
    call_command("decay", stdout=out)
    assert "Archived 0 of 5 active memories" in out.getvalue()
