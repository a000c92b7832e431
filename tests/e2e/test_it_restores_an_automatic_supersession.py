"""Replaced automatically, in headless Chromium: a supersession the write gate made is listed with both texts and
restored in place from its row; the store says both memories are active."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from memoryhub.models import Memory, MemoryEvent
from memoryhub.writes.gate import gate_write

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OLD = "The shopfront API listens on port 8000."
NEW = "The shopfront API now listens on port 9000 since the reverse-proxy change."


def test_an_automatic_supersession_is_restored_from_its_row(dashboard, transactional_db):
    old = gate_write(content=OLD, project="shop", source="codex").memory
    new = gate_write(content=NEW, project="shop", source="codex").memory
    page = dashboard.open("/")
    page.get_by_role("link", name="Replaced", exact=True).click()
    row = page.locator(f"#supersession-{old.pk}")
    expect(row).to_contain_text(OLD)
    expect(row).to_contain_text(NEW)
    expect(row).to_contain_text("says it changed")
    row.get_by_role("button", name="Restore").click()
    expect(page.locator(f"#supersession-{old.pk}")).to_contain_text("Restored: both are active.")
    expect(page.locator("#messages")).to_contain_text(f"Memory #{old.pk} restored")
    old.refresh_from_db()
    assert old.status == "active" and old.superseded_by_id is None
    assert Memory.objects.get(pk=new.pk).status == "active"
    assert MemoryEvent.objects.filter(memory_id=old.pk, action="restored").exists()
