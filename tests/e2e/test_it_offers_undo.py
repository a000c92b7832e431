"""Undo in place (issue 27): every destructive or merging action answers with a notice that has an Undo button,
long enough to use; a bulk archive asks first; the sweep lists what would go before it runs, keeps that list
current, and undoing it does not count as a use."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from memoryhub.models import Memory, Proposal
from tests.factories import remember

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARCHIVED = re.compile("is-archived")


def _undo(page):
    toast = page.locator("#messages .message")
    page.wait_for_timeout(8000)  # a notice that vanished after 6 s could not be used by a person reading it
    expect(toast.get_by_role("button", name="Undo")).to_be_visible()
    toast.get_by_role("button", name="Undo").click()


def test_archiving_a_row_can_be_undone_from_the_notice(dashboard, transactional_db):
    memory = remember("The billing service retries a failed charge three times", project="alpha")
    page = dashboard.open("/")
    row = page.locator(f"#memory-{memory.pk}")
    row.get_by_role("button", name=f"Actions on memory #{memory.pk}").click()
    row.get_by_role("button", name="Archive").click()
    expect(row).to_have_class(ARCHIVED)
    _undo(page)
    expect(page.locator(f"#memory-{memory.pk}")).not_to_have_class(ARCHIVED)
    memory.refresh_from_db()
    assert memory.status == "active"


def test_a_bulk_archive_asks_first_and_can_be_undone(dashboard, transactional_db):
    memories = [remember(f"Queue worker {n} drains the {n} queue nightly", project="alpha") for n in ("mail", "sms")]
    page = dashboard.open("/")
    asked: list[str] = []
    page.on("dialog", lambda dialog: asked.append(dialog.message))
    page.get_by_label("Select every memory on this page").check()
    page.locator(".bulk").get_by_role("button", name="Archive", exact=True).click()
    expect(page.locator("#messages")).to_contain_text("2 memories archived")
    assert asked and "2 selected" in asked[0], asked
    assert set(Memory.objects.values_list("status", flat=True)) == {"archived"}
    _undo(page)
    expect(page.locator("#messages")).to_contain_text("2 memories restored")
    assert set(Memory.objects.filter(pk__in=[m.pk for m in memories]).values_list("status", flat=True)) == {"active"}


def test_accepting_a_proposal_can_be_undone_from_the_notice(dashboard, transactional_db):
    a = remember("Restart Celery workers after changing the beat schedule", project="shop")
    b = remember("After a beat schedule change, restart the Celery workers", project="shop")
    proposal = Proposal.objects.create(
        sources=[a.pk, b.pk], cluster_key=f"{a.pk},{b.pk}", project="shop", content=a.content
    )
    page = dashboard.open("/proposals/")
    page.locator(f"#proposal-{proposal.pk}").get_by_role("button", name="Accept").click()
    expect(page.locator(f"#proposal-{proposal.pk} .badge")).to_have_text("accepted")
    _undo(page)
    expect(page.locator(f"#proposal-{proposal.pk} .badge")).to_have_text("undone")
    assert set(Memory.objects.filter(pk__in=[a.pk, b.pk]).values_list("status", flat=True)) == {"active"}


def test_a_merge_by_hand_can_be_undone_from_the_notice(dashboard, transactional_db):
    a = remember("The docs site builds with mkdocs material", project="alpha")
    b = remember("Docs are built by mkdocs with the material theme", project="alpha")
    page = dashboard.open("/")
    page.get_by_label("Select every memory on this page").check()
    page.locator(".bulk").get_by_role("button", name="Merge…").click()
    page.get_by_role("button", name="Merge into one memory").click()
    expect(page.locator("#messages")).to_contain_text("Merged 2 memories")
    assert Memory.objects.get(pk=a.pk).status == "archived"
    _undo(page)
    expect(page.locator(f"#memory-{a.pk}")).to_be_visible()
    expect(page.locator(f"#memory-{b.pk}")).to_be_visible()
    assert set(Memory.objects.filter(pk__in=[a.pk, b.pk]).values_list("status", flat=True)) == {"active"}


def test_the_sweep_lists_what_would_go_keeps_count_and_undo_is_no_use(dashboard, transactional_db):
    then = timezone.now() - timedelta(days=40)
    faded = []
    for text in ("The old staging host was called bluebird", "We once used Jenkins for CI", "Builds ran on a Mac mini"):
        memory = remember(text, project="ops", category="fact", tier="episodic", importance=0.5)
        Memory.objects.filter(pk=memory.pk).update(created_at=then, updated_at=then, last_accessed_at=then)
        faded.append(memory.pk)
    page = dashboard.open("/decay/")
    page.get_by_role("button", name="Run decay sweep (3)").click()
    listing = page.locator("#sweep-list")
    for pk in faded:
        expect(listing).to_contain_text(f"#{pk}")
    assert set(Memory.objects.filter(pk__in=faded).values_list("status", flat=True)) == {"active"}
    # Confirming one below keeps it: the preview's count and list follow.
    page.locator(f"#memory-{faded[0]}").get_by_role("button", name="Confirm").click()
    expect(page.get_by_role("button", name="Archive these 2")).to_be_visible()
    expect(listing).not_to_contain_text(f"#{faded[0]} ")
    page.get_by_role("button", name="Archive these 2").click()
    expect(page.locator("#messages")).to_contain_text("2 memories archived")
    assert set(Memory.objects.filter(pk__in=faded[1:]).values_list("status", flat=True)) == {"archived"}
    _undo(page)
    expect(page.locator("#messages")).to_contain_text("2 memories restored")
    for memory in Memory.objects.filter(pk__in=faded[1:]):
        assert memory.status == "active"
        assert abs((memory.last_accessed_at - then).total_seconds()) < 1  # nobody used them


def test_on_a_phone_the_selection_bar_and_the_undo_fit_and_work(dashboard, transactional_db):
    memories = [remember(f"Cron job {n} rotates the {n} logs weekly", project="alpha") for n in ("api", "db", "web")]
    page = dashboard.page
    page.set_viewport_size({"width": 390, "height": 844})
    page = dashboard.open("/")
    page.get_by_label(f"Select memory #{memories[0].pk}").check()
    page.get_by_label(f"Select memory #{memories[1].pk}").check()
    expect(page.locator("[data-selected-count]")).to_have_text("2 selected")
    expect(page.locator(".bulk")).to_be_in_viewport()
    page.locator(".bulk").get_by_role("button", name="Archive", exact=True).click()
    expect(page.locator("#messages")).to_contain_text("2 memories archived")
    undo = page.locator("#messages").get_by_role("button", name="Undo")
    expect(undo).to_be_in_viewport()
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
    undo.click()
    expect(page.locator("#messages")).to_contain_text("2 memories restored")
    assert set(Memory.objects.values_list("status", flat=True)) == {"active"}
