"""End to end in headless Chromium: log in, search and filter, confirm, re-tag, archive and restore, merge,
review a proposal, and read the decay charts. Every test checks what the page shows and what the store holds."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from memoryhub.models import Memory, Proposal
from tests.dashboard_fixtures import remember_small_store
from tests.factories import remember

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def store(transactional_db) -> dict[str, Memory]:
    # The dashboard's small store, but the merge below unites the tags of two memories that carry only these.
    return remember_small_store(pagination={"tags": ["api"]}, deploy={"source": "claude"})


def row(page, memory: Memory):
    return page.locator(f"#memory-{memory.pk}")


def open_menu(page, memory: Memory):
    """All but a row's primary action sit in its menu (issue 27: dense rows)."""
    page.get_by_role("button", name=f"Actions on memory #{memory.pk}").click()


def test_a_person_logs_in_searches_and_filters(browser, live_server, curator, store):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    page.goto(live_server.url + "/")
    expect(page).to_have_url(f"{live_server.url}/login/?next=/")
    page.screenshot(path=str(_artifact("login")))
    page.get_by_label("Username").fill("curator")
    page.get_by_label("Password").fill("a-long-e2e-password")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Memories")).to_be_visible()
    expect(page.locator("tr.memory-row")).to_have_count(4)
    _save(page, "memory-list")

    page.get_by_label("Search memories").fill("which editor does the user like")
    searched = re.compile(r"/\?q=which(%20|\+)editor(%20|\+)does(%20|\+)the(%20|\+)user(%20|\+)like$")
    expect(page).to_have_url(searched)  # only what was chosen: a clean, bookmarkable URL
    expect(page.locator("tr.memory-row").first).to_have_id(f"memory-{store['editor'].pk}")
    _save(page, "memory-search")

    page.get_by_label("Search memories").fill("")
    page.get_by_label("Project", exact=True).select_option("alpha")
    expect(page).to_have_url(f"{live_server.url}/?project=alpha")
    expect(page.locator("tr.memory-row")).to_have_count(2)

    page.go_back()  # the URL is the state: back shows the search again
    expect(page).to_have_url(searched)
    expect(page.get_by_label("Search memories")).to_have_value("which editor does the user like")
    expect(page.locator("tr.memory-row").first).to_have_id(f"memory-{store['editor'].pk}")
    # Browsing is not use: the store did not count any of it.
    assert set(Memory.objects.values_list("access_count", flat=True)) == {0}
    context.close()


def test_confirm_and_re_tag_in_place(dashboard, store):
    page = dashboard.open("/")
    memory = store["deploy"]
    row(page, memory).get_by_role("button", name="Confirm").click()
    expect(row(page, memory).get_by_text("confirmed", exact=True)).to_be_visible()
    expect(page.locator("#messages")).to_contain_text(f"Memory #{memory.pk} confirmed.")
    memory.refresh_from_db()
    assert memory.confirmed is True

    open_menu(page, memory)
    row(page, memory).get_by_role("link", name="Tags").click()
    page.get_by_label("Add tags").fill("ci, fly")
    row(page, memory).get_by_label("deploy").check()  # remove the old tag
    page.get_by_label("Add tags").press("Enter")  # Enter saves the row, not a bulk action
    expect(row(page, memory).locator("a.chip")).to_have_text(["ci", "fly"])
    memory.refresh_from_db()
    assert memory.tags == ["ci", "fly"] and memory.confirmed is True
    assert Memory.objects.filter(confirmed=True).count() == 2  # nothing else was touched


def test_archive_and_restore(dashboard, store):
    page = dashboard.open("/")
    memory = store["pytest"]
    open_menu(page, memory)
    row(page, memory).get_by_role("button", name="Archive").click()
    expect(row(page, memory)).to_have_class("memory-row is-archived")
    expect(page.locator('[data-counter="archived"]')).to_have_text("1")  # the counters heard the event
    memory.refresh_from_db()
    assert memory.status == "archived"

    page.get_by_label("Status", exact=True).select_option("archived")
    expect(page.locator("tr.memory-row")).to_have_count(1)
    row(page, memory).get_by_role("button", name="Restore").click()
    expect(row(page, memory).get_by_role("button", name="Confirm")).to_be_visible()
    open_menu(page, memory)
    expect(row(page, memory).get_by_role("button", name="Archive")).to_be_visible()
    memory.refresh_from_db()
    assert memory.status == "active"


def test_merge_two_memories(dashboard, store):
    twin = remember("Every list endpoint pages with a cursor", project="alpha", category="decision", tags=["cursor"])
    page = dashboard.open("/?project=alpha")
    page.get_by_label(f"Select memory #{store['pagination'].pk}").check()
    page.get_by_label(f"Select memory #{twin.pk}").check()
    expect(page.locator("[data-selected-count]")).to_have_text("2 selected")
    page.get_by_role("button", name="Merge…").click()
    dialog = page.get_by_role("dialog", name="Merge 2 memories")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text(twin.content)
    dialog.get_by_label("Merged text").fill("List endpoints page with a cursor (cursor pagination)")
    dashboard.screenshot("merge-dialog")
    dialog.get_by_role("button", name="Merge into one memory").click()
    expect(dialog).to_be_hidden()
    merged = Memory.objects.get(content="List endpoints page with a cursor (cursor pagination)")
    expect(row(page, merged)).to_be_visible()
    expect(row(page, twin)).to_have_count(0)
    assert set(Memory.objects.filter(merged_into=merged).values_list("pk", flat=True)) == {
        store["pagination"].pk,
        twin.pk,
    }
    assert merged.tags == ["api", "cursor"]


def test_accept_and_undo_a_proposal(dashboard, store):
    a = remember("Celery workers must be restarted after changing the beat schedule", project="shop")
    b = remember("Restart the Celery workers whenever the beat schedule changes", project="shop")
    proposal = Proposal.objects.create(
        sources=[a.pk, b.pk],
        cluster_key=f"{a.pk},{b.pk}",
        project="shop",
        content="Restart Celery workers after changing the beat schedule",
        rationale="two memories say the same thing",
    )
    page = dashboard.open("/proposals/")
    card = page.locator(f"#proposal-{proposal.pk}")
    expect(card.locator("del").first).to_be_visible()  # the differences are marked
    dashboard.screenshot("proposals")
    card.get_by_label("Merged text (edit before accepting)").fill(
        "Restart the Celery workers after any beat schedule change"
    )
    card.get_by_role("button", name="Accept").click()
    expect(card.get_by_text("accepted", exact=True)).to_be_visible()
    proposal.refresh_from_db()
    assert proposal.status == "accepted"
    assert proposal.merged_memory.content == "Restart the Celery workers after any beat schedule change"
    assert set(Memory.objects.filter(pk__in=[a.pk, b.pk]).values_list("status", flat=True)) == {"archived"}

    card.get_by_role("button", name="Undo merge").click()
    expect(card.get_by_text("undone", exact=True)).to_be_visible()
    proposal.refresh_from_db()
    assert proposal.status == "undone"
    assert set(Memory.objects.filter(pk__in=[a.pk, b.pk]).values_list("status", flat=True)) == {"active"}
    assert Memory.objects.get(pk=proposal.merged_memory_id).status == "archived"


def test_the_decay_page_shows_its_charts_and_rescues_a_fading_memory(dashboard, store):
    fading = remember(
        "The staging database is refreshed every Sunday night",
        project="alpha",
        category="fact",
        tier="semantic",
        importance=0.5,
    )
    twelve_days_ago = timezone.now() - timedelta(days=12)
    Memory.objects.filter(pk=fading.pk).update(updated_at=twelve_days_ago, created_at=twelve_days_ago)
    page = dashboard.open("/decay/")
    expect(page.locator("#tier-charts svg")).to_have_count(2)  # semantic, procedural
    expect(page.locator("#category-charts svg")).to_have_count(4)  # decision, environment, fact, skill
    expect(page.locator("#curve-charts svg")).to_have_count(9)
    expect(page.locator("#curve-charts .threshold")).to_have_count(9)
    expect(page.locator("#tier-charts")).to_contain_text("semantic · 4")
    expect(page.locator("#category-charts")).to_contain_text("fact · 2")
    dashboard.screenshot("decay")
    row(page, fading).get_by_role("button", name="Confirm").click()
    expect(row(page, fading)).to_contain_text("never")
    fading.refresh_from_db()
    assert fading.confirmed is True


def test_the_other_main_pages_render_cleanly(dashboard, store):
    from memoryhub.models import UsageRecord

    for agent, recall, tools in [("claude", 380, 1), ("claude", 120, 0), ("codex", 300, 2)]:
        UsageRecord.objects.create(agent=agent, kind="proxy", recall_chars=recall, tool_calls=tools,
                                   prompt_tokens=900, completion_tokens=120, latency_ms=840.0)  # fmt: skip
    for path, heading, name in [
        (f"/memories/{store['pagination'].pk}/", f"Memory #{store['pagination'].pk}", "memory-page"),
        ("/gate/", "Gate log", "gate-log"),
        ("/overview/", "Overview", "overview"),
    ]:
        page = dashboard.open(path)
        expect(page.get_by_role("heading", name=heading)).to_be_visible()
        dashboard.screenshot(name)
    expect(page.locator("#proxy-usage tbody tr")).to_have_count(2)  # today: claude, codex
    expect(page.locator("#proxy-usage")).to_contain_text("claude")
    page = dashboard.open(f"/memories/{store['pagination'].pk}/")
    expect(page.locator("#similar-h + ol li")).to_have_count(3)


def _artifact(name: str):
    from tests.e2e.conftest import ARTIFACTS

    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS / f"{name}.png"


def _save(page, name: str) -> None:
    page.screenshot(path=str(_artifact(name)), full_page=True)
