"""Triage on the keyboard: j moves a visible outline to the second conflict, a decision key decides that one (not the
first of the page) and the outline moves on; a conflict's decision is undone without leaving the page, from the
notice on the proposals page and from the Changes inbox. On a desktop and on a phone."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from memoryhub.memories.supersession import queue_conflict
from memoryhub.models import Memory, Proposal
from tests.e2e.conftest import logged_in_tab
from tests.factories import remember

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SELECTED = re.compile("is-selected")
SIZES = {"desktop": (1440, 900), "phone": (390, 844)}


@pytest.fixture(params=list(SIZES))
def tab(request, browser, live_server, curator):
    with logged_in_tab(browser, live_server.url, *SIZES[request.param]) as tab:
        yield tab


def _conflicts() -> tuple[Proposal, Proposal]:
    """Two conflicts waiting; the newer one shows first."""
    made = []
    for old, new in (
        ("The bastion host is bastion-1.", "The bastion host is bastion-3."),
        ("The staging bucket is assets-old.", "The staging bucket is assets-new."),
    ):
        older, newer = remember(old, project="ops"), remember(new, project="ops")
        made.append(queue_conflict(older=older, newer=newer, reason="one value differs"))
    return made[0], made[1]


def _start(page):
    page.locator("h1").click()  # keys go to the page, not to a field


def test_b_decides_the_outlined_conflict_and_undo_takes_it_back(tab, transactional_db):
    first_made, second_made = _conflicts()
    page = tab.open("/proposals/")
    _start(page)
    top, second = page.locator(f"#proposal-{second_made.pk}"), page.locator(f"#proposal-{first_made.pk}")
    page.keyboard.press("j")
    page.keyboard.press("j")
    expect(second).to_have_class(SELECTED)
    expect(second).to_have_css("outline-style", "solid")  # the outline shows on a card
    page.keyboard.press("b")
    expect(second.locator(".badge").first).to_have_text("accepted")
    expect(top.locator(".badge").first).to_have_text("pending")
    assert Proposal.objects.get(pk=second_made.pk).status == "pending"
    assert Proposal.objects.get(pk=first_made.pk).choice == "both"
    toast = page.locator("#messages .message")
    expect(toast).to_contain_text("both kept")
    expect(toast).not_to_contain_text("is current")
    toast.get_by_role("button", name="Undo").click()
    expect(second.locator(".badge").first).to_have_text("pending")
    expect(second.locator("[data-shortcut=newer]")).to_be_visible()
    assert Proposal.objects.get(pk=first_made.pk).status == "pending"
    assert page.url.endswith("/proposals/")


def test_the_inbox_triages_on_the_keyboard(tab, transactional_db):
    first_made, second_made = _conflicts()
    older, _ = (Memory.objects.get(pk=pk) for pk in first_made.sources)
    page = tab.open("/changes/")
    _start(page)
    second = page.locator(f"#change-conflict-{first_made.pk}")
    page.keyboard.press("j")
    expect(page.locator(f"#change-conflict-{second_made.pk}")).to_have_class(SELECTED)
    page.keyboard.press("j")
    expect(second).to_have_class(SELECTED)
    page.keyboard.press("n")  # keep the newer, for the outlined conflict
    expect(second).to_contain_text("kept newer")
    expect(page.locator(f"#change-conflict-{second_made.pk}")).to_contain_text("which is current?")
    older.refresh_from_db()
    assert older.status == "superseded"
    assert Proposal.objects.get(pk=second_made.pk).status == "pending"
    # Undo from the inbox itself: u on the outlined (the last item: the outline stays on it).
    expect(second).to_have_class(SELECTED)
    page.keyboard.press("u")
    expect(second).to_contain_text("which is current?")
    older.refresh_from_db()
    assert older.status == "active"
    assert Proposal.objects.get(pk=first_made.pk).status == "pending"
    # A decision moves the outline on to the next item.
    page.keyboard.press("k")
    page.keyboard.press("o")
    expect(page.locator(f"#change-conflict-{second_made.pk}")).to_contain_text("kept older")
    expect(second).to_have_class(SELECTED)
    assert Proposal.objects.get(pk=first_made.pk).status == "pending"
    assert page.url.endswith("/changes/")
    tab.screenshot(f"changes-inbox-{page.viewport_size['width']}")


def test_the_outline_shows_on_decay_rows(tab, transactional_db):
    fading = remember("We once used Jenkins for CI", project="ops", tier="episodic", importance=0.31)
    page = tab.open("/decay/")
    _start(page)
    page.keyboard.press("j")
    row = page.locator(f"#memory-{fading.pk}")
    expect(row).to_have_class(SELECTED)
    expect(row.locator("td").first).to_have_css("background-color", "rgb(238, 242, 255)")
