"""Decay: effective importance = importance x rate ** days since last referenced, computed at read time.

Time is controlled by passing `now` and by setting the row's clocks in the past; nothing sleeps.
"""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest
from django.utils import timezone

from memoryhub.memories import bookkeeping
from memoryhub.memories.decay import DecayRates, days_until_below, effective_importance, effective_value
from memoryhub.memories.lifecycle import confirm_memory, refresh_memory
from memoryhub.memories.store import create_memory
from memoryhub.models import Memory, MemoryEvent
from memoryhub.retrieval.search import MemoryFilter, search_memories

pytestmark = pytest.mark.django_db

NOW = timezone.now()


def aged(days: float, *, importance: float = 0.8, category: str = "", tier: str = "", confirmed: bool = False, **kw):
    """A memory last referenced `days` before NOW (never retrieved: its clock is updated_at)."""
    memory = create_memory(
        content=kw.pop("content", f"A {category or tier or 'plain'} memory aged {days} days"),
        category=category,
        tier=tier,
        importance=importance,
        confirmed=confirmed,
        project=kw.pop("project", "alpha"),
    )
    then = NOW - timedelta(days=days)
    Memory.objects.filter(pk=memory.pk).update(created_at=then, updated_at=then)
    memory.refresh_from_db()
    return memory


@pytest.mark.parametrize(
    ("category", "tier", "rate"),
    [
        ("", "", 0.95),  # the default
        ("fact", "", 0.95),  # a category without its own rate
        ("decision", "", 0.98),
        ("gotcha", "", 0.98),
        ("preference", "", 0.995),
        ("person", "", 0.995),
        ("", "episodic", 0.93),  # faster for what happened
        ("", "semantic", 0.97),
        ("decision", "episodic", 0.98),  # a category's rate wins over its tier's
    ],
)
def test_effective_importance_matches_the_formula_per_category_and_tier(category, tier, rate):
    memory = aged(10, importance=0.8, category=category, tier=tier)
    assert effective_importance(memory, NOW) == pytest.approx(0.8 * rate**10, abs=1e-6)
    assert effective_importance(memory, NOW + timedelta(days=5)) == pytest.approx(0.8 * rate**15, abs=1e-6)


def test_a_fresh_memory_has_its_full_importance():
    memory = create_memory(content="The CI runs on every push to main", importance=0.7)
    assert memory.effective_importance == pytest.approx(0.7, abs=1e-4)


def test_rates_come_from_settings(settings):
    settings.MEMORYHUB_DECAY_CATEGORY_RATES = {"decision": 0.5}
    memory = aged(2, importance=0.8, category="decision")
    assert effective_importance(memory, NOW) == pytest.approx(0.8 * 0.25, abs=1e-6)


def test_the_clock_is_the_last_use_when_there_was_one():
    memory = aged(40, importance=0.6, category="fact")
    Memory.objects.filter(pk=memory.pk).update(last_accessed_at=NOW - timedelta(days=2))
    memory.refresh_from_db()
    assert effective_importance(memory, NOW) == pytest.approx(0.6 * 0.95**2, abs=1e-6)


def test_a_refresh_reinforces_a_faded_memory(settings):
    memory = aged(30, importance=0.5, category="fact")
    assert effective_importance(memory, NOW) == pytest.approx(0.5 * 0.95**30, abs=1e-6)
    refresh_memory(memory=memory, actor="claude", now=NOW)
    memory.refresh_from_db()
    assert memory.last_accessed_at == NOW
    assert memory.access_count == 1
    assert memory.importance == pytest.approx(0.5 + settings.MEMORYHUB_REINFORCE_STEP)
    assert effective_importance(memory, NOW) == pytest.approx(memory.importance, abs=1e-6)
    event = MemoryEvent.objects.filter(memory_id=memory.pk).last()
    assert (event.action, event.actor) == ("refreshed", "claude")
    assert event.before["effective_importance"] < 0.15 < event.after["effective_importance"]


def test_a_search_that_returns_a_memory_reinforces_it():
    memory = aged(30, importance=0.5, category="fact", content="Invoices are rendered with WeasyPrint")
    hits = search_memories(
        query="WeasyPrint invoices", within=MemoryFilter(visible_from="alpha"), reinforce_results=True
    )
    assert [h.memory.pk for h in hits] == [memory.pk]
    memory.refresh_from_db()
    assert memory.access_count == 1
    assert memory.effective_importance > 0.5


def test_uses_written_together_count_each_use(settings):
    once = aged(30, importance=0.5, category="fact", content="Invoices are rendered with WeasyPrint")
    twice = aged(30, importance=0.95, category="fact", content="Receipts are rendered with WeasyPrint too")
    step = settings.MEMORYHUB_REINFORCE_STEP
    later = NOW + timedelta(minutes=1)
    bookkeeping.write([bookkeeping.Use((once.pk, twice.pk), NOW), bookkeeping.Use((twice.pk,), later)])
    once.refresh_from_db()
    twice.refresh_from_db()
    assert (once.access_count, twice.access_count) == (1, 2)
    assert once.importance == pytest.approx(0.5 + step)
    assert twice.importance == pytest.approx(min(1.0, 0.95 + 2 * step))
    assert once.last_accessed_at == twice.last_accessed_at == later  # the last use of the batch


def test_a_confirmed_memory_never_falls_below_the_floor(settings):
    settings.MEMORYHUB_CONFIRMED_FLOOR = 0.5
    confirmed = aged(1000, importance=0.9, category="fact", confirmed=True)
    unconfirmed = aged(1000, importance=0.9, category="fact")
    assert effective_importance(confirmed, NOW) == 0.5
    assert effective_importance(unconfirmed, NOW) < 0.001
    # Early on the decayed value is above the floor and is what counts.
    assert effective_importance(confirmed, NOW - timedelta(days=995)) == pytest.approx(0.9 * 0.95**5, abs=1e-6)
    assert days_until_below(confirmed, 0.3, NOW) is None


def test_the_floor_never_lifts_a_memory_above_its_own_importance(settings):
    settings.MEMORYHUB_CONFIRMED_FLOOR = 0.5
    modest = aged(1000, importance=0.4, category="fact", confirmed=True)
    assert effective_importance(modest, NOW) == 0.4


def test_confirming_records_an_event_and_restarts_the_clock():
    memory = aged(60, importance=0.8, category="fact")
    before = timezone.now()
    confirm_memory(memory=memory, actor="me")
    assert memory.confirmed is True
    assert memory.last_accessed_at >= before
    assert memory.effective_importance == pytest.approx(0.8, abs=1e-3)
    confirm_memory(memory=memory, confirmed=False, actor="me")
    memory.refresh_from_db()
    assert memory.confirmed is False
    actions = list(MemoryEvent.objects.filter(memory_id=memory.pk).values_list("action", "before", "after"))
    assert actions[-2:] == [
        ("confirmed", {"confirmed": False}, {"confirmed": True}),
        ("unconfirmed", {"confirmed": True}, {"confirmed": False}),
    ]


def test_confirming_twice_changes_nothing_more():
    memory = aged(1, category="fact")
    confirm_memory(memory=memory, actor="me")
    events = MemoryEvent.objects.filter(memory_id=memory.pk).count()
    confirm_memory(memory=memory, actor="me")
    assert MemoryEvent.objects.filter(memory_id=memory.pk).count() == events


def test_days_until_below_agrees_with_the_formula():
    memory = aged(0, importance=0.6, category="fact")
    days = days_until_below(memory, 0.3, NOW)
    assert days == pytest.approx(13.51, abs=0.01)  # 0.6 * 0.95 ** d = 0.3
    assert effective_importance(memory, NOW + timedelta(days=days - 0.01)) >= 0.3
    assert effective_importance(memory, NOW + timedelta(days=days + 0.01)) < 0.3


def test_rates_read_once_for_many_rows_give_what_reading_the_settings_for_each_row_gives(settings):
    settings.MEMORYHUB_DECAY_CATEGORY_RATES = {"decision": 0.5}
    settings.MEMORYHUB_DECAY_TIER_RATES = {"episodic": 0.9}
    settings.MEMORYHUB_DECAY_DEFAULT_RATE = 0.8
    settings.MEMORYHUB_CONFIRMED_FLOOR = 0.4
    rates = DecayRates.configured()  # what search reads once for all its candidates
    for category, tier, confirmed in itertools.product(["", "decision", "fact"], ["", "episodic"], [False, True]):
        values = {"importance": 0.9, "category": category, "tier": tier, "confirmed": confirmed,
                  "referenced_at": NOW - timedelta(days=3), "now": NOW}  # fmt: skip
        assert effective_value(**values, rates=rates) == effective_value(**values)
    assert rates.rate("decision", "episodic") == 0.5 and rates.rate("", "episodic") == 0.9 and rates.rate("", "") == 0.8
    settings.MEMORYHUB_DECAY_DEFAULT_RATE = 0.7  # a later read sees the settings as they are then
    assert DecayRates.configured().rate("", "") == 0.7 and rates.rate("", "") == 0.8
