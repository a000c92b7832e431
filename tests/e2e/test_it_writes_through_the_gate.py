"""Writing from the dashboard (issue 27): "New memory" goes through the write gate and shows its answer; importance
is editable; a refused edit keeps its text (never a secret) and clears the earlier "saved" notice; a twin the gate
folded in shows in the memory's history; the login page names changepassword."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from memoryhub.models import Memory, MemoryEvent
from tests.factories import remember

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FACT = "The payments service reads its Stripe webhook secret from the vault path payments/stripe"


def test_a_new_memory_goes_through_the_gate_and_a_twin_is_in_the_history(dashboard, transactional_db):
    page = dashboard.open("/")
    page.get_by_role("link", name="New memory").click()
    dialog = page.locator("#new-memory-dialog")
    expect(dialog.get_by_label("Text (one fact)")).to_be_focused()  # the dialog focuses it once htmx settles
    dialog.get_by_label("Text (one fact)").fill(FACT)
    dialog.get_by_label("Project").fill("alpha")
    dialog.get_by_label("Importance").fill("0.8")
    dialog.get_by_role("button", name="Store memory").click()
    expect(dialog.locator(".gate-answer")).to_contain_text("created")
    memory = Memory.objects.get(content=FACT)
    assert memory.project == "alpha" and memory.importance == 0.8 and memory.source == "curator"

    dialog.get_by_label("Text (one fact)").fill(FACT)
    dialog.get_by_label("Project").fill("alpha")
    dialog.get_by_role("button", name="Store memory").click()
    expect(dialog.locator(".gate-answer")).to_contain_text("duplicate")
    assert Memory.objects.filter(content=FACT).count() == 1
    assert MemoryEvent.objects.filter(memory_id=memory.pk, action="reinforced").exists()
    page = dashboard.open(f"/memories/{memory.pk}/")
    expect(page.locator("body")).to_contain_text("duplicate, reinforced")

    page = dashboard.open("/")
    page.get_by_role("link", name="New memory").click()
    page.locator("#new-memory-dialog").get_by_label("Text (one fact)").fill("ok")
    page.locator("#new-memory-dialog").get_by_role("button", name="Store memory").click()
    expect(page.locator("#new-memory-dialog .gate-answer")).to_contain_text("rejected")
    expect(page.locator("#new-memory-dialog").get_by_label("Text (one fact)")).to_have_value("ok")
    _expected_refusals(dashboard, 1)


def _expected_refusals(dashboard, count: int) -> None:
    """The refusals these tests provoke answer 422, which Chromium logs as a failed load: expected, and only those."""
    refused = [e for e in dashboard.errors if "status of 422" in e]
    assert len(refused) == count, dashboard.errors
    dashboard.errors[:] = [e for e in dashboard.errors if e not in refused]


def _edit(page, memory):
    page.get_by_role("button", name=f"Actions on memory #{memory.pk}").click()
    page.locator(f"#memory-{memory.pk}").get_by_role("link", name="Edit").click()
    # The text takes the focus once htmx settles the row: typing elsewhere before that would land in the text.
    expect(page.locator(f"#memory-{memory.pk} textarea")).to_be_focused()


def test_importance_is_editable_and_a_refused_edit_keeps_its_text(dashboard, transactional_db):
    memory = remember("Deploys run through GitHub Actions to Fly.io", project="alpha", importance=0.5)
    page = dashboard.open("/")
    _edit(page, memory)
    row = page.locator(f"#memory-{memory.pk}")
    expect(row.locator("textarea")).to_be_visible()
    row.get_by_label("Importance", exact=True).fill("0.9")
    row.get_by_role("button", name="Save text").click()
    expect(page.locator("#messages")).to_contain_text("saved")
    memory.refresh_from_db()
    assert memory.importance == 0.9

    _edit(page, memory)
    expect(row.locator("textarea")).to_be_visible()
    row.locator("textarea").fill("ok")
    row.get_by_role("button", name="Save text").click()
    expect(row.locator(".field-error").first).to_be_visible()
    expect(row.locator("textarea")).to_have_value("ok")  # kept to be fixed
    expect(page.locator("#messages .message-success")).to_have_count(0)  # no stale "saved"

    secret = "Use the key sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0" + " for the API"
    row.locator("textarea").fill(secret)
    row.get_by_role("button", name="Save text").click()
    expect(row.locator(".field-error").first).to_be_visible()
    expect(row.locator("textarea")).to_have_value("")  # a secret is never sent back
    memory.refresh_from_db()
    assert memory.content == "Deploys run through GitHub Actions to Fly.io"
    _expected_refusals(dashboard, 2)


def test_the_login_page_names_changepassword(browser, live_server):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(live_server.url + "/login/")
    expect(page.locator("body")).to_contain_text("manage.py changepassword")
    expect(page.locator("body")).not_to_contain_text("createsuperuser")
    context.close()
