"""Each role in headless Chromium: what a viewer cannot see or do, what a curator can, what an owner can (tokens).
Every test checks what the page shows and what the store holds."""

from __future__ import annotations

import re

import httpx
import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from memoryhub.models import ApiToken, Membership, Memory, MemoryEvent
from tests.e2e.conftest import PASSWORD, Dashboard
from tests.factories import remember

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def team(transactional_db) -> dict:
    rows = {
        "ours": remember("Apollo deploys go out on Tuesdays after the standup", project="apollo"),
        "theirs": remember("Zephyr keeps its secrets manager in another region", project="zephyr"),
    }
    User = get_user_model()
    for name, role in (("vera", "viewer"), ("carl", "curator"), ("olivia", "owner")):
        Membership.objects.create(user=User.objects.create_user(name, password=PASSWORD), project="apollo", role=role)
    return rows


@pytest.fixture
def tab(browser, live_server):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    context.set_default_timeout(15_000)
    dashboard = Dashboard(context.new_page(), live_server.url)
    yield dashboard
    context.close()


def test_a_viewer_reads_their_project_and_cannot_change_it_or_see_another(tab, team):
    page = tab.log_in("vera")
    ours, theirs = team["ours"], team["theirs"]
    expect(page.locator(f"#memory-{ours.pk}")).to_contain_text("Apollo deploys")
    expect(page.locator(f"#memory-{theirs.pk}")).to_have_count(0)
    expect(page.get_by_text("Zephyr keeps")).to_have_count(0)
    row = page.locator(f"#memory-{ours.pk}")
    for label in ("Confirm", "Archive", "Edit", "Delete"):
        expect(row.get_by_role("button", name=label, exact=True)).to_have_count(0)
    expect(page.get_by_role("link", name="Tokens")).to_have_count(0)
    expect(page.get_by_role("link", name="People")).to_have_count(0)

    page.goto(tab.base_url + f"/memories/{theirs.pk}/")
    expect(page.get_by_text(f"Memory #{theirs.pk} does not exist")).to_be_visible()
    expect(page.get_by_text("Zephyr keeps")).to_have_count(0)
    # The memory's own page offers nothing to change either.
    page.goto(tab.base_url + f"/memories/{ours.pk}/")
    expect(page.get_by_text("your role does not change it")).to_be_visible()
    ours.refresh_from_db()
    assert not ours.confirmed and ours.status == "active"


def test_a_curator_confirms_and_the_history_names_them_but_cannot_delete(tab, team):
    page = tab.log_in("carl")
    ours = team["ours"]
    row = page.locator(f"#memory-{ours.pk}")
    row.get_by_role("button", name=f"Actions on memory #{ours.pk}").click()  # the row's menu holds all but Confirm
    expect(row.get_by_role("button", name="Archive")).to_be_visible()
    expect(row.get_by_role("button", name="Delete memory", exact=False)).to_have_count(0)
    row.get_by_role("button", name="Confirm", exact=True).click()
    expect(row.get_by_text("confirmed")).to_be_visible()
    ours.refresh_from_db()
    assert ours.confirmed
    assert MemoryEvent.objects.filter(memory_id=ours.pk, action="confirmed", actor="carl").exists()

    page.goto(tab.base_url + f"/memories/{ours.pk}/")
    expect(page.locator(".event", has=page.locator(".event-action", has_text="confirmed"))).to_contain_text("by carl")
    page.goto(tab.base_url + "/projects/apollo/activity/")
    expect(page.locator("tr", has=page.get_by_text("confirmed", exact=True))).to_contain_text("carl")
    assert tab.errors == []


def test_an_owner_makes_a_token_that_works_until_they_revoke_it(tab, team, live_server):
    page = tab.log_in("olivia")
    page.get_by_role("link", name="Tokens").click()
    page.get_by_label("Agent name").fill("apollo-ci")
    page.get_by_label("apollo").check()
    page.get_by_role("button", name="Make token").click()
    raw = page.locator("[data-new-token]").inner_text().strip()
    assert re.fullmatch(r"mh_[\w-]+", raw)

    api = httpx.Client(base_url=live_server.url, headers={"Authorization": f"Bearer {raw}"}, timeout=30)
    listed = api.get("/api/v1/memories").json()["results"]
    assert [m["project"] for m in listed] == ["apollo"]
    assert api.get("/api/v1/memories", params={"project": "zephyr"}).status_code == 403

    page.goto(tab.base_url + "/tokens/")
    expect(page.locator("[data-new-token]")).to_have_count(0)  # shown once
    token = ApiToken.objects.get(name="apollo-ci")
    page.locator(f"#token-{token.pk}").get_by_role("button", name="Revoke").click()
    expect(page.locator(f"#token-{token.pk}")).to_contain_text("revoked")
    assert api.get("/api/v1/memories").status_code == 401
    # An owner may also delete in their project, which a curator may not.
    page.goto(tab.base_url + "/")
    page.get_by_role("button", name=f"Actions on memory #{team['ours'].pk}").click()
    expect(page.locator(f"#memory-{team['ours'].pk}").get_by_role("button", name=re.compile("Delete"))).to_have_count(1)
    assert Memory.objects.filter(pk=team["ours"].pk).exists()
