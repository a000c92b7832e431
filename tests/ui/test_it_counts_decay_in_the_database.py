"""The decay page's figures come from the database (counts per 0.01 band); without SQLite's math functions the
same figures come from the rule in Python. Both ways agree, and agree with the sweep."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from memoryhub.memories.lifecycle import below_threshold
from memoryhub.models import Memory
from tests.ui.conftest import remember
from ui import decay_figures


@pytest.fixture
def spread(db):
    now = timezone.now()
    made = []
    for i, (category, tier, days, confirmed) in enumerate(
        [
            ("fact", "semantic", 0, False),
            ("fact", "episodic", 10, False),
            ("decision", "semantic", 40, False),
            ("skill", "procedural", 70, True),
            ("", "", 20, False),
            ("preference", "semantic", 200, False),
            ("gotcha", "episodic", 5, False),
            ("fact", "semantic", 16, False),
        ]
    ):
        memory = remember(f"Memory number {i} about {category or 'nothing'}", category=category, tier=tier,
                          importance=0.4 + i * 0.07, confirmed=confirmed)  # fmt: skip
        then = now - timedelta(days=days)
        Memory.objects.filter(pk=memory.pk).update(created_at=then, updated_at=then)
        made.append(memory)
    return now


def _python_only(monkeypatch):
    monkeypatch.setattr(decay_figures, "_sqlite_has_pow", lambda: False)


def test_the_database_and_python_count_the_same(spread, monkeypatch):
    in_sql = decay_figures.tally(spread)
    soon_sql = decay_figures.falling_soon(now=spread)
    _python_only(monkeypatch)
    in_python = decay_figures.tally(spread)
    soon_python = decay_figures.falling_soon(now=spread)
    assert in_sql.bands == in_python.bands and in_sql.total == 8
    assert in_sql.due_now == in_python.due_now == len(below_threshold(now=spread))
    assert in_sql.due_now > 0
    assert [(r.memory.pk, r.days_left) for r in soon_sql[0]] == [(r.memory.pk, r.days_left) for r in soon_python[0]]
    assert soon_sql[1] == soon_python[1] >= in_sql.due_now


def test_only_the_soonest_are_listed_but_all_are_counted(spread):
    rows, total = decay_figures.falling_soon(now=spread, limit=1)
    assert len(rows) == 1 and total == decay_figures.falling_soon(now=spread)[1] and total > 1
    assert rows[0].days_left == 0.0


def test_medians_come_from_the_bands():
    bands = [0] * decay_figures.BANDS
    bands[20], bands[45], bands[90] = 1, 1, 1
    assert decay_figures.band_median(bands) == 0.455
    assert decay_figures.band_median([0] * decay_figures.BANDS) is None
