"""The decay page: distributions and curves as SVG, what fades within 7 days (with one-click rescue), the sweep."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from memoryhub.memories.decay import days_until_below
from memoryhub.models import Memory
from tests.ui.conftest import HX, remember


def unused_for(memory: Memory, days: float) -> Memory:
    moment = timezone.now() - timedelta(days=days)
    Memory.objects.filter(pk=memory.pk).update(updated_at=moment, created_at=moment, last_accessed_at=None)
    memory.refresh_from_db()
    return memory


@pytest.fixture
def fading(db) -> dict[str, Memory]:
    return {
        # semantic facts decay at 0.97 a day: 0.5 after 12 days is 0.35, below 0.3 in about 5 days
        "soon": unused_for(
            remember(
                "The staging database is refreshed every Sunday night",
                project="alpha",
                category="fact",
                tier="semantic",
                importance=0.5,
            ),
            12,
        ),
        # after 40 days it is 0.15: already below, the sweep takes it
        "gone": unused_for(
            remember(
                "A temporary branch exists for the VAT rounding fix",
                project="alpha",
                category="fact",
                tier="episodic",
                importance=0.5,
            ),
            40,
        ),
        "fresh": remember(
            "The API answers in JSON only", project="alpha", category="decision", tier="semantic", importance=0.9
        ),
    }


def test_it_draws_the_distribution_per_tier_and_per_category(ui, fading):
    html = ui.get("/decay/").content.decode()
    tiers = html[html.index('id="tier-charts"') : html.index('id="category-charts"')]
    categories = html[html.index('id="category-charts"') : html.index('id="curves-h"')]
    assert tiers.count("<svg") == 2 and ">semantic · 2<" in tiers and ">episodic · 1<" in tiers
    assert categories.count("<svg") == 2 and ">fact · 2<" in categories and ">decision · 1<" in categories
    assert 'class="threshold"' in tiers
    assert "bins below the archive threshold 0.3" in tiers  # the accessible summary


def test_it_draws_each_categorys_curve_with_the_threshold(ui, fading):
    html = ui.get("/decay/").content.decode()
    curves = html[html.index('id="curve-charts"') : html.index('id="soon-h"')]
    assert curves.count("<svg") == 9  # every category, even one without memories yet
    assert curves.count('class="threshold"') == 9 and curves.count("<polyline") == 9
    assert "Stays above 0.3 for 90 days" in curves  # preferences fade slowly
    assert "Falls below 0.3 on day" in curves


def test_it_lists_what_falls_below_within_seven_days(ui, fading):
    html = ui.get("/decay/").content.decode()
    soon = html[html.index('id="soon-h"') : html.index('id="archived-h"')]
    assert f'id="memory-{fading["soon"].pk}"' in soon
    assert f'id="memory-{fading["gone"].pk}"' in soon  # below already, not yet swept
    assert f'id="memory-{fading["fresh"].pk}"' not in soon
    assert "in 5 days" in soon


def test_one_click_confirm_rescues_a_fading_memory(ui, fading):
    memory = fading["soon"]
    response = ui.post(f"/memories/{memory.pk}/confirm/", {"view": "decay", "confirmed": "1"}, **HX)
    memory.refresh_from_db()
    assert memory.confirmed is True
    assert "never" in response.content.decode()
    soon = ui.get("/decay/").content.decode().split('id="soon-h"')[1].split('id="archived-h"')[0]
    assert f'id="memory-{memory.pk}"' not in soon


def test_one_click_refresh_restarts_the_decay_clock(ui, fading):
    memory = fading["soon"]
    html = ui.post(f"/memories/{memory.pk}/refresh/", {"view": "decay"}, **HX).content.decode()
    memory.refresh_from_db()
    assert memory.access_count == 1 and memory.effective_importance > 0.5
    assert f"in {days_until_below(memory):.0f} days" in html  # weeks left again, not days
    assert days_until_below(memory) > 14


def test_the_sweep_archives_what_fell_below_and_shows_it_as_recently_archived(ui, fading):
    response = ui.post("/decay/sweep/", **HX)
    html = response.content.decode()
    statuses = dict(Memory.objects.values_list("pk", "status"))
    assert statuses[fading["gone"].pk] == "archived"
    assert statuses[fading["soon"].pk] == "active" and statuses[fading["fresh"].pk] == "active"
    assert json.loads(response["HX-Trigger"])["notice"]["text"] == "Decay sweep done: 1 memory archived."
    assert html.lstrip().startswith('<div id="decay-body"')
    archived = html[html.index('id="archived-h"') :]
    assert f'id="archived-{fading["gone"].pk}"' in archived and "decayed: effective importance" in archived
    second = ui.post("/decay/sweep/", **HX)
    assert json.loads(second["HX-Trigger"])["notice"]["text"] == "Decay sweep done: 0 memories archived."


def test_an_empty_store_still_has_a_decay_page(ui, db):
    html = ui.get("/decay/").content.decode()
    assert "No active memories." in html and "Nothing is about to fade." in html
