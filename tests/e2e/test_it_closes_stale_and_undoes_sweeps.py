"""In a browser: a proposal whose memory changed closes itself and shows under "stale"; proposals are rejected
in bulk; a decay sweep is previewed, run and undone in one action each."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from memoryhub.memories.store import update_memory
from memoryhub.models import Memory, MemoryEvent, Proposal
from tests.factories import remember

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _proposal(texts: tuple[str, str]) -> Proposal:
    a, b = (remember(t, project="ops") for t in texts)
    return Proposal.objects.create(sources=[a.pk, b.pk], cluster_key=f"{a.pk},{b.pk}", project="ops", content=a.content)


def test_a_stale_proposal_closes_itself(dashboard, transactional_db):
    proposal = _proposal(("The staging database is refreshed every Sunday", "Staging's database is refreshed Sundays"))
    page = dashboard.open("/proposals/")
    expect(page.locator(f"#proposal-{proposal.pk}")).to_be_visible()
    source = Memory.objects.get(pk=proposal.sources[1])
    update_memory(memory=source, changes={"content": "Staging is refreshed on Saturdays now"}, actor="agent")
    page = dashboard.open("/proposals/")
    expect(page.locator(f"#proposal-{proposal.pk}")).to_have_count(0)
    page.get_by_role("link", name="stale").click()
    card = page.locator(f"#proposal-{proposal.pk}")
    expect(card).to_contain_text("Closed as stale")
    expect(card.locator(".badge-stale")).to_have_text("stale")
    assert Proposal.objects.get(pk=proposal.pk).status == "stale"
    dashboard.screenshot("desktop-proposals-stale")


def test_proposals_are_rejected_in_bulk(dashboard, transactional_db):
    one = _proposal(("Use ruff for lint", "Lint with ruff"))
    two = _proposal(("The API listens on port 8080", "The API listens on port 8081"))
    page = dashboard.open("/proposals/")
    expect(page.locator(f"#proposal-{two.pk} .differs")).to_contain_text("8080")
    page.get_by_label(f"Select proposal #{one.pk}").check()
    page.get_by_label(f"Select proposal #{two.pk}").check()
    page.get_by_role("button", name="Reject selected").click()
    expect(page.locator(f"#proposal-{one.pk}")).to_have_count(0)
    expect(page.locator(f"#proposal-{two.pk}")).to_have_count(0)
    assert set(Proposal.objects.values_list("status", flat=True)) == {"rejected"}


def test_a_sweep_is_previewed_run_and_undone_in_one_action(dashboard, transactional_db):
    remember("A fresh memory that stays", project="ops", category="fact", importance=0.9)
    faded = []
    for text in ("The old staging host was called bluebird", "We once used Jenkins for CI"):
        memory = remember(text, project="ops", category="fact", tier="episodic", importance=0.5)
        then = timezone.now() - timedelta(days=60)
        Memory.objects.filter(pk=memory.pk).update(created_at=then, updated_at=then)
        faded.append(memory.pk)
    page = dashboard.open("/decay/")
    page.get_by_role("button", name="Run decay sweep (2)").click()
    page.get_by_role("button", name="Archive these 2").click()  # the preview lists them first (issue 27)
    expect(page.get_by_role("button", name="Undo last sweep (2)")).to_be_visible()
    assert set(Memory.objects.filter(pk__in=faded).values_list("status", flat=True)) == {"archived"}
    dashboard.screenshot("desktop-decay-after-sweep")
    page.get_by_role("button", name="Undo last sweep (2)").click()
    expect(page.locator("#due-now")).to_have_text("0")
    expect(page.get_by_role("button", name="Undo last sweep (2)")).to_have_count(0)
    assert set(Memory.objects.filter(pk__in=faded).values_list("status", flat=True)) == {"active"}
    assert MemoryEvent.objects.filter(memory_id__in=faded, action="restored").count() == 2
