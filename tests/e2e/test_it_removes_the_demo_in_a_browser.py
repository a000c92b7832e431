"""The first run in a browser: a fresh store seeded with the demo shows the demo banner; "Remove demo data" (confirmed)
leaves nothing of it, and the recall of a project of the user's own never held a demo memory."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from memoryhub.memories.demo import demo_memories, seed_demo
from memoryhub.retrieval.recall import build_recall

pytestmark = pytest.mark.browser


def test_the_demo_banner_removes_the_demo(dashboard):
    seed_demo()
    assert build_recall(project="webshop", query="which editor does the user use?").memory_ids == []
    page = dashboard.open("/")
    banner = page.locator("#demo-banner")
    expect(banner).to_contain_text("demo-shopfront")

    banner.get_by_role("button", name="Remove demo data").click()  # the dialog is accepted by the fixture

    expect(page.locator("#demo-banner")).to_have_count(0)
    expect(page.locator("#messages")).to_contain_text("Removed 20 demo memories.")
    assert demo_memories().count() == 0
