"""Needs checking and expiry, in headless Chromium: the fact checked longest ago is first, `c` on the outlined row
confirms it in place, and an expired memory is extended from the same page and is found by search again."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from memoryhub.models import Memory
from memoryhub.retrieval.search import MemoryFilter, search_memories
from tests.factories import remember

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_oldest_checked_fact_is_confirmed_with_a_key_and_an_expired_one_extended(dashboard, transactional_db):
    old = remember("The kappa workers restart every night at two", project="kappa")
    new = remember("The kappa API answers in JSON only", project="kappa")
    gone = remember("The kappa staging cluster is down for maintenance this week", project="kappa")
    Memory.objects.filter(pk=old.pk).update(verified_at=timezone.now() - timedelta(days=400))
    Memory.objects.filter(pk=gone.pk).update(expires_at=timezone.now() - timedelta(hours=2))

    page = dashboard.open("/")
    page.get_by_role("link", name="Checking", exact=True).click()
    rows = page.locator("#needs-checking tbody tr[data-nav-item]")
    expect(rows.first).to_have_id(f"checking-{old.pk}")
    expect(page.locator(f"#checking-{new.pk}")).to_be_visible()
    page.keyboard.press("j")
    page.keyboard.press("c")
    expect(page.locator(f"#checking-{old.pk}")).to_contain_text("Checked just now")
    expect(page.locator("#messages")).to_contain_text(f"Memory #{old.pk} checked")
    old.refresh_from_db()
    assert old.confirmed and timezone.now() - old.verified_at < timedelta(minutes=1)

    expired = page.locator(f"#expired-{gone.pk}")
    expect(expired).to_contain_text("expired")
    later = (datetime.now(UTC) + timedelta(days=14)).date()
    expired.locator("input[name=expires_at]").fill(later.isoformat())
    expired.get_by_role("button", name="Extend").click()
    expect(page.locator("#messages")).to_contain_text(f"Memory #{gone.pk} expires {later.isoformat()}")
    gone.refresh_from_db()
    assert gone.expires_at == datetime(later.year, later.month, later.day, tzinfo=UTC)
    hits = search_memories(query="kappa staging cluster maintenance", within=MemoryFilter(visible_from="kappa"))
    assert gone.pk in [h.memory.pk for h in hits]
