"""Every page at a phone's width (390 px) and a desktop's: nothing scrolls sideways on the phone, the navigation
folds into a menu, tables become stacked cards whose buttons sit in a row menu, and the keyboard shortcuts act on
the selected row. Screenshots of every page at both sizes go to test-artifacts/ (not committed)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from memoryhub.models import GateLogEntry, Memory, Proposal
from tests.e2e.conftest import ARTIFACTS, Dashboard
from tests.factories import remember

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1440, "height": 900}
LONG = (
    "The deploy pipeline builds the image from deploy/docker/Dockerfile.production, pushes it to "
    "registry.example.internal/platform/memoryhub-service-with-a-very-long-name:2026.12.01-build.4711 and then runs "
    "the migrations before switching traffic; rollback uses the previous tag."
)


@pytest.fixture
def filled(transactional_db) -> dict:
    long = remember(LONG, project="a-project-with-a-rather-long-name", category="decision", tier="semantic",
                    tags=["deploy", "a-very-long-tag-name-without-spaces", "ci"])  # fmt: skip
    short = remember("The user prefers tabs over spaces", category="preference", tier="semantic", confirmed=True)
    gone = remember("An old note about the staging cluster", project="alpha", category="fact", tier="episodic")
    from memoryhub.memories.lifecycle import archive

    archive(memory_ids=[gone.pk], actor="decay", note="decayed: effective importance 0.080 below the threshold 0.150")
    GateLogEntry.objects.create(decision="rejected", reason="too short to be useful", kind="noise", content="ok",
                                project="alpha", source="claude")  # fmt: skip
    GateLogEntry.objects.create(decision="duplicate", reason="says what #1 says", kind="duplicate", content=LONG,
                                project="a-project-with-a-rather-long-name", source="codex", memory=long)  # fmt: skip
    twin = remember(LONG + " Ask in #platform first.", project="a-project-with-a-rather-long-name")
    Proposal.objects.create(
        sources=[long.pk, twin.pk],
        cluster_key=f"{long.pk},{twin.pk}",
        project="a-project-with-a-rather-long-name",
        content=LONG,
        rationale="two say the same",
    )
    return {"long": long, "short": short, "gone": gone}


def _tab(browser, live_server, viewport) -> Dashboard:
    context = browser.new_context(viewport=viewport)
    context.set_default_timeout(15_000)
    tab = Dashboard(context.new_page(), live_server.url)
    tab.log_in()
    return tab


def _pages(filled) -> list[tuple[str, str]]:
    return [
        ("/", "memories"),
        ("/?status=all&q=deploy", "memories-search"),
        (f"/memories/{filled['long'].pk}/", "memory"),
        ("/decay/", "decay"),
        ("/proposals/", "proposals"),
        ("/gate/", "gate"),
        ("/checking/", "checking"),
        ("/overview/", "overview"),
    ]


def _overflow(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth - window.innerWidth")


def _every_page_fits(tab: Dashboard, filled, screen: str, complaint: str) -> None:
    """Every page, once it settled, no wider than the screen (else `complaint`, told the path and the px over), each
    kept as a screenshot named for the screen."""
    for path, name in _pages(filled):
        page = tab.open(path)
        page.wait_for_load_state("networkidle")
        assert _overflow(page) <= 0, complaint.format(path=path, px=_overflow(page))
        tab.screenshot(f"{screen}-{name}")


def test_no_page_scrolls_sideways_on_a_phone(browser, live_server, curator, filled):
    tab = _tab(browser, live_server, PHONE)
    _every_page_fits(tab, filled, "phone", "{path} is {px} px wider than a 390 px phone")
    assert not tab.errors, tab.errors
    tab.page.context.close()


def test_every_page_at_desktop_width(browser, live_server, curator, filled):
    tab = _tab(browser, live_server, DESKTOP)
    _every_page_fits(tab, filled, "desktop", "{path} scrolls sideways on a desktop")
    # The text of a memory gets the width: its column is wider than every other column of the row.
    page = tab.open("/")
    widths = page.eval_on_selector_all(
        f"#memory-{filled['long'].pk} td", "cells => cells.map(c => c.getBoundingClientRect().width)"
    )
    assert widths[1] == max(widths), widths
    assert not tab.errors, tab.errors
    tab.page.context.close()
    assert (ARTIFACTS / "phone-decay.png").exists()


def test_on_a_phone_the_nav_is_a_menu_and_rows_are_cards_with_a_menu(browser, live_server, curator, filled):
    tab = _tab(browser, live_server, PHONE)
    page = tab.open("/")
    decay_link = page.get_by_role("link", name="Decay", exact=True)
    expect(decay_link).to_be_hidden()
    page.get_by_role("button", name="Menu").click()
    expect(decay_link).to_be_visible()
    tab.screenshot("phone-menu-open")
    page.get_by_role("button", name="Menu").click()

    card = page.locator(f"#memory-{filled['short'].pk}")
    box = card.bounding_box()
    assert box["width"] <= PHONE["width"]
    archive = card.get_by_role("button", name="Archive")
    expect(archive).to_be_hidden()
    card.get_by_role("button", name=f"Actions on memory #{filled['short'].pk}").click()
    expect(archive).to_be_visible()
    tab.screenshot("phone-row-menu-open")
    archive.click()
    expect(card).to_have_class("memory-row is-archived")
    assert Memory.objects.get(pk=filled["short"].pk).status == "archived"

    page = tab.open("/gate/")
    cells = page.locator("#gate-entries tbody tr").first.locator("td[data-label]")
    expect(cells.first).to_be_visible()
    assert page.locator("#gate-entries thead").is_hidden()
    assert not tab.errors, tab.errors
    tab.page.context.close()


def test_the_list_says_why_a_memory_is_archived(dashboard, filled):
    page = dashboard.open("/?status=archived")
    expect(page.locator(f"#memory-{filled['gone'].pk} .chip-why")).to_have_text("decayed")


def test_keyboard_shortcuts_act_on_the_selected_row(dashboard, filled):
    page = dashboard.open("/")
    rows = page.locator("tr.memory-row")
    first_id = rows.nth(0).get_attribute("id")
    second_id = rows.nth(1).get_attribute("id")
    page.locator("h1").click()
    page.keyboard.press("j")
    expect(page.locator(f"#{first_id}")).to_have_class("memory-row is-selected")
    page.keyboard.press("j")
    expect(page.locator(f"#{second_id}")).to_have_class("memory-row is-selected")
    page.keyboard.press("k")
    page.keyboard.press("j")
    second = Memory.objects.get(pk=int(second_id.split("-")[1]))

    page.keyboard.press("x")
    expect(page.locator(f"#{second_id} input[name=selected]")).to_be_checked()
    expect(page.locator("[data-selected-count]")).to_have_text("1 selected")

    was_confirmed = second.confirmed
    page.keyboard.press("c")
    expect(page.locator(f"#{second_id} .badge-ok")).to_have_count(0 if was_confirmed else 1)
    second.refresh_from_db()
    assert second.confirmed is not was_confirmed

    page.keyboard.press("a")
    expect(page.locator(f"#{second_id}")).to_have_class("memory-row is-archived is-selected")
    second.refresh_from_db()
    assert second.status == "archived"
    page.keyboard.press("a")
    expect(page.locator(f"#{second_id}")).to_have_class("memory-row is-selected")
    second.refresh_from_db()
    assert second.status == "active"

    page.keyboard.press("e")
    expect(page.locator(f"#{second_id} textarea")).to_be_visible()
    page.keyboard.press("Escape")

    page.locator("h1").click()
    page.keyboard.press("/")
    expect(page.get_by_label("Search memories")).to_be_focused()
    page.locator("h1").click()
    page.keyboard.press("?")
    expect(page.get_by_role("heading", name="Keyboard shortcuts")).to_be_visible()
