"""Merges that never silently drop a fact (issue 27): a proposal or a hand merge warns by name when the sources
differ in a noun, a number, a name or always/never; a hand merge starts from the most informative single text, not
the texts joined; a pending proposal shows its text once, in the box that edits it."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from memoryhub.memories.details import fact_differences
from memoryhub.models import Proposal
from tests.factories import remember

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _proposal(texts: tuple[str, str]) -> Proposal:
    a, b = (remember(t, project="ops") for t in texts)
    return Proposal.objects.create(sources=[a.pk, b.pk], cluster_key=f"{a.pk},{b.pk}", project="ops", content=a.content)


def test_the_domain_names_swapped_nouns_and_polarity_not_rewordings():
    assert fact_differences(
        ["The billing-svc team owns the payments module", "The billing-svc team owns the checkout module"]
    ) == ["payments", "checkout"]
    assert fact_differences(["Always use tabs for indentation", "Never use tabs for indentation"]) == ["always/never"]
    assert (
        fact_differences(
            [
                "Restart Celery workers after changing the beat schedule",
                "After a beat schedule change, restart the Celery workers",
            ]
        )
        == []
    )


def test_a_proposal_warns_by_name_and_shows_its_text_once(dashboard, transactional_db):
    owns = _proposal(("The billing-svc team owns the payments module", "The billing-svc team owns the checkout module"))
    tabs = _proposal(("Always indent Python with tabs", "Never indent Python with tabs"))
    page = dashboard.open("/proposals/")
    card = page.locator(f"#proposal-{owns.pk}")
    expect(card.locator(".differs")).to_contain_text("payments")
    expect(card.locator(".differs")).to_contain_text("checkout")
    expect(page.locator(f"#proposal-{tabs.pk} .differs")).to_contain_text("always/never")
    expect(card.locator(".proposed-text")).to_have_count(0)  # the text once: in the editable box
    box = card.get_by_label("Merged text (edit before accepting)")
    expect(box).to_have_value(owns.content)
    page.set_viewport_size({"width": 390, "height": 844})
    expect(box).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0


def test_a_hand_merge_starts_from_one_text_and_warns(dashboard, transactional_db):
    short = remember("The docs site builds with mkdocs", project="alpha")
    full = remember(
        "The docs site builds with mkdocs and the material theme, from docs/ on every push", project="alpha"
    )
    other = remember("The docs site builds with sphinx", project="beta")
    page = dashboard.open("/?project=alpha")
    page.get_by_label("Select every memory on this page").check()
    page.locator(".bulk").get_by_role("button", name="Merge…").click()
    merged = page.get_by_label("Merged text")
    expect(merged).to_have_value(full.content)  # not both texts joined: the fact would be there twice
    page.keyboard.press("Escape")
    page = dashboard.open("/?status=active")
    page.get_by_label(f"Select memory #{short.pk}").check()
    page.get_by_label(f"Select memory #{other.pk}").check()
    page.locator(".bulk").get_by_role("button", name="Merge…").click()
    expect(page.locator("#merge-dialog .differs")).to_contain_text("sphinx")
    expect(page.locator("#merge-dialog .differs")).to_contain_text("mkdocs")


def test_a_proposal_refused_for_a_secret_says_so_on_its_card_and_forgets_it(dashboard, transactional_db):
    proposal = _proposal(("Deploy with the fly CLI from main", "Deploys use the fly CLI from the main branch"))
    page = dashboard.open("/proposals/")
    card = page.locator(f"#proposal-{proposal.pk}")
    box = card.get_by_label("Merged text (edit before accepting)")
    box.fill("Deploy with fly using token ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8")
    card.get_by_role("button", name="Accept").click()
    expect(page.locator(f"#proposal-{proposal.pk} .field-error")).to_be_visible()
    expect(page.locator(f"#proposal-{proposal.pk}").get_by_label("Merged text (edit before accepting)")).to_have_value(
        ""
    )
    assert "ghp_" not in page.content()
    proposal.refresh_from_db()
    assert proposal.status == "pending"
    refused = [e for e in dashboard.errors if "status of 422" in e]
    assert len(refused) == 1, dashboard.errors  # the refusal's own answer, expected
    dashboard.errors[:] = [e for e in dashboard.errors if e not in refused]
