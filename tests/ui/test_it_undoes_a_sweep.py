"""The decay page previews how many memories a sweep would archive, and the last sweep is undone in one action,
with a history event each way (archived by the sweep, restored by the undo)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from memoryhub.memories.lifecycle import last_sweep, run_decay_sweep, undo_last_sweep
from memoryhub.models import Memory, MemoryEvent
from tests.ui.conftest import HX, remember


def _faded(text: str, days: int = 60) -> Memory:
    memory = remember(text, project="ops", category="fact", tier="episodic", importance=0.5)
    then = timezone.now() - timedelta(days=days)
    Memory.objects.filter(pk=memory.pk).update(created_at=then, updated_at=then)
    return memory


@pytest.fixture
def faded(db) -> list[Memory]:
    remember("A fresh memory that stays", project="ops", category="fact", tier="semantic", importance=0.9)
    return [_faded("The old staging host was called bluebird"), _faded("We once used Jenkins for CI")]


def test_the_page_says_how_many_a_sweep_would_archive(ui, faded):
    html = ui.get("/decay/").content.decode()
    assert '<strong id="due-now">2</strong>' in html and "Run decay sweep (2)" in html
    assert "Undo last sweep" not in html  # nothing swept yet


def test_the_last_sweep_is_undone_in_one_action_with_events_both_ways(ui, faded):
    swept = ui.post("/decay/sweep/", **HX).content.decode()
    assert "Undo last sweep (2)" in swept
    assert set(Memory.objects.filter(pk__in=[m.pk for m in faded]).values_list("status", flat=True)) == {"archived"}

    response = ui.post("/decay/sweep/undo/", **HX)
    assert response.status_code == 200
    assert json.loads(response["HX-Trigger"])["notice"]["text"] == "Last decay sweep undone: 2 memories restored."
    assert set(Memory.objects.filter(pk__in=[m.pk for m in faded]).values_list("status", flat=True)) == {"active"}
    for memory in faded:
        actions = list(MemoryEvent.objects.filter(memory_id=memory.pk).values_list("action", flat=True))
        assert actions[-2:] == ["archived", "restored"]
    html = response.content.decode()
    assert "Undo last sweep" not in html and '<strong id="due-now">0</strong>' in html  # the clock restarted
    assert ui.post("/decay/sweep/undo/", **HX).status_code == 409  # a sweep is undone once


def test_only_the_last_sweep_and_only_what_is_still_archived_comes_back(db, faded):
    first = run_decay_sweep(actor="decay")
    assert first.archived_ids == sorted(m.pk for m in faded)
    later = _faded("The wiki moved to Confluence in 2019")
    second = run_decay_sweep(actor="decay", now=timezone.now() + timedelta(seconds=1))
    assert second.archived_ids == [later.pk]
    assert last_sweep().memory_ids == [later.pk]
    assert undo_last_sweep(actor="test") == [later.pk]
    assert Memory.objects.get(pk=faded[0].pk).status == "archived"  # the earlier sweep stays as it was
    assert last_sweep() is None
