"""Selection you can trust (issue 27): a tick survives live search, row updates and keyboard actions, and the
sticky bar counts it; the search box sends one request per search and lets go of the keyboard on Esc."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from memoryhub.models import Memory
from tests.factories import remember

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def memories(transactional_db) -> list[Memory]:
    return [
        remember(f"The {name} service deploys from the {name} branch on Fridays", project="alpha", category="fact")
        for name in ("billing", "checkout", "search", "ledger")
    ]


def _searches(page) -> list[str]:
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if "q=" in r.url and r.method == "GET" else None)
    return sent


def test_the_first_tick_after_typing_a_search_stays(dashboard, memories):
    page = dashboard.open("/")
    page.get_by_label("Search memories").fill("deploys")
    # Ticking a row before the live search fires: the search box's change on blur must not re-run the search.
    box = page.locator(f"#select-{memories[0].pk}")
    box.check()
    page.wait_for_timeout(900)  # past the live search's delay
    expect(page.locator(f"#select-{memories[0].pk}")).to_be_checked()
    expect(page.locator("[data-selected-count]")).to_have_text("1 selected")


def test_a_tick_survives_a_live_search_that_still_lists_the_row(dashboard, memories):
    page = dashboard.open("/")
    page.locator(f"#select-{memories[1].pk}").check()
    page.get_by_label("Search memories").fill("checkout")
    expect(page.locator("tr.memory-row").first).to_have_id(f"memory-{memories[1].pk}")
    expect(page.locator(f"#select-{memories[1].pk}")).to_be_checked()
    expect(page.locator("[data-selected-count]")).to_have_text("1 selected")


def test_x_then_confirm_or_archive_keeps_the_selection(dashboard, memories):
    page = dashboard.open("/")
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("j")
    page.keyboard.press("x")
    page.keyboard.press("j")
    page.keyboard.press("x")
    expect(page.locator("[data-selected-count]")).to_have_text("2 selected")
    page.keyboard.press("c")
    first, second = page.locator("tr.memory-row").nth(0), page.locator("tr.memory-row").nth(1)
    expect(second).to_contain_text("confirmed")
    expect(page.locator("[data-selected-count]")).to_have_text("2 selected")
    page.keyboard.press("a")
    expect(second).to_have_class(__import__("re").compile("is-archived"))
    expect(page.locator("[data-selected-count]")).to_have_text("2 selected")
    expect(first.locator('input[name="selected"]')).to_be_checked()
    expect(second.locator('input[name="selected"]')).to_be_checked()


def test_the_selected_bar_stays_in_sight_when_scrolling(dashboard, memories):
    for i in range(30):
        remember(f"Filler memory number {i} about the queue worker", project="beta")
    page = dashboard.open("/")
    page.locator('tr.memory-row input[name="selected"]').first.check()
    page.mouse.wheel(0, 3000)
    page.wait_for_timeout(300)
    bar = page.locator(".bulk")
    expect(bar).to_be_in_viewport()
    expect(page.locator("[data-selected-count]")).to_have_text("1 selected")


def test_enter_in_search_sends_it_once(dashboard, memories):
    page = dashboard.open("/")
    sent = _searches(page)
    search = page.get_by_label("Search memories")
    search.fill("ledger")
    search.press("Enter")
    expect(page.locator("tr.memory-row")).to_have_count(1, timeout=5000)
    page.wait_for_timeout(800)
    assert len([u for u in sent if "q=ledger" in u]) == 1, sent


def test_escape_leaves_the_search_box_and_the_keys_work_again(dashboard, memories):
    page = dashboard.open("/")
    search = page.get_by_label("Search memories")
    search.focus()
    page.keyboard.press("Escape")
    expect(search).not_to_be_focused()
    page.keyboard.press("j")
    expect(page.locator("tr.memory-row.is-selected")).to_have_count(1)
