"""The team pages: an owner's agents' tokens (made, used over REST and MCP, revoked), changes signed by the person,
the project's activity page, and an admin adding a person with a one-time set-password link."""

from __future__ import annotations

import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from memoryhub.models import ApiToken, Membership, MemoryEvent, Proposal
from tests.factories import remember

PASSWORD = "a-long-test-password"
PING = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})


@pytest.fixture
def team(db, settings) -> dict:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    User = get_user_model()
    people = {}
    for name, role, project in (
        ("olivia", "owner", "apollo"),
        ("carl", "curator", "apollo"),
        ("vera", "viewer", "apollo"),
    ):
        people[name] = User.objects.create_user(name, password=PASSWORD)
        Membership.objects.create(user=people[name], project=project, role=role)
    people["admin"] = User.objects.create_superuser("admin", password=PASSWORD)
    return people


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def bearer(raw: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


def made_token(answer) -> str:
    return re.search(r"data-new-token>([^<]+)<", answer.content.decode()).group(1)


def test_a_token_made_in_the_dashboard_works_over_rest_and_mcp_with_its_scope_until_revoked(team):
    remember("Apollo builds are cached in the shared bucket", project="apollo")
    remember("Zephyr builds are not cached at all anywhere", project="zephyr")
    owner = logged_in(team["olivia"])

    answer = owner.post(reverse("ui:token_create"), {"name": "apollo-bot", "projects": ["apollo"], "read_only": "on"})
    assert answer.status_code == 201
    raw = made_token(answer)
    assert owner.get(reverse("ui:tokens")).content.decode().count(raw) == 0  # shown once

    agent = bearer(raw)
    listed = agent.get("/api/v1/memories").json()["results"]
    assert {m["project"] for m in listed} == {"apollo"}
    assert agent.get("/api/v1/memories", {"project": "zephyr"}).status_code == 403
    write = agent.post(
        "/api/v1/memories", {"content": "Apollo uses trunk based development", "project": "apollo"}, format="json"
    )
    assert write.status_code == 403  # read-only, as chosen
    mcp = Client().post(
        "/mcp",
        data=PING,
        content_type="application/json",
        headers={"Authorization": f"Bearer {raw}", "X-MemoryHub-Project": "zephyr"},
    )
    assert mcp.status_code == 403
    page = owner.get(reverse("ui:tokens")).content.decode()
    assert "apollo-bot" in page and "never" not in page.split("apollo-bot", 1)[1].split("</tr>", 1)[0]  # last use

    token = ApiToken.objects.get(name="apollo-bot")
    assert owner.post(reverse("ui:token_revoke", args=[token.pk])).status_code == 302
    assert agent.get("/api/v1/memories").status_code == 401
    revoked_mcp = Client().post(
        "/mcp", data=PING, content_type="application/json", headers={"Authorization": f"Bearer {raw}"}
    )
    assert revoked_mcp.status_code == 401


def test_an_owner_may_not_make_a_token_for_a_project_they_do_not_own_nor_for_every_project(team):
    owner = logged_in(team["olivia"])
    assert owner.post(reverse("ui:token_create"), {"name": "sneaky", "projects": ["zephyr"]}).status_code == 403
    assert owner.post(reverse("ui:token_create"), {"name": "everything"}).status_code == 422
    assert owner.post(reverse("ui:token_create"), {"name": "carl", "projects": ["apollo"]}).status_code == 422
    assert not ApiToken.objects.exists()
    assert logged_in(team["carl"]).get(reverse("ui:tokens")).status_code == 403


def test_an_owner_lists_only_the_tokens_of_their_projects(team):
    from memoryhub.agents.tokens import create_token

    create_token(name="apollo-reader", projects=["apollo"])
    create_token(name="zephyr-writer", projects=["zephyr"])
    create_token(name="everywhere")
    page = logged_in(team["olivia"]).get(reverse("ui:tokens")).content.decode()
    assert "apollo-reader" in page and "zephyr-writer" not in page and "everywhere" not in page


def test_dashboard_changes_are_signed_by_the_person_and_agents_by_their_token(team):
    memory = remember("Apollo releases are cut on Thursdays after lunch", project="apollo", source="claude")
    curator = logged_in(team["carl"])
    curator.post(reverse("ui:confirm", args=[memory.pk]), {"confirmed": "1"})
    curator.post(reverse("ui:archive", args=[memory.pk]))
    actors = list(MemoryEvent.objects.filter(memory_id=memory.pk).values_list("action", "actor"))
    assert actors == [("created", "claude"), ("confirmed", "carl"), ("archived", "carl")]

    detail = curator.get(reverse("ui:memory", args=[memory.pk])).content.decode()
    assert "by carl" in detail and "person</span>" in detail
    history = bearer(_token_for("apollo")).get(f"/api/v1/memories/{memory.pk}/history").json()
    assert [event["actor"] for event in history["events"] if event["action"] != "created"] == ["carl", "carl"]


def _token_for(project: str) -> str:
    from memoryhub.agents.tokens import create_token

    return create_token(name=f"{project}-reader", projects=[project], read_only=True)[1]


def test_a_proposal_decision_names_the_person(team):
    first = remember("Apollo staging runs on port 8080 for now", project="apollo")
    second = remember("Apollo staging listens on port 8080 today", project="apollo")
    proposal = Proposal.objects.create(
        sources=[first.pk, second.pk], cluster_key=f"{first.pk},{second.pk}", project="apollo", content="x"
    )
    logged_in(team["carl"]).post(reverse("ui:reject", args=[proposal.pk]))
    proposal.refresh_from_db()
    assert proposal.status == "rejected" and proposal.decided_by == "carl"


def test_the_activity_page_shows_who_did_what_with_filters_by_person_and_action(team):
    memory = remember("Apollo nightly job starts at two in the morning", project="apollo", source="codex")
    other = remember("Zephyr nightly job starts at three in the morning", project="zephyr", source="codex")
    logged_in(team["carl"]).post(reverse("ui:confirm", args=[memory.pk]), {"confirmed": "1"})
    logged_in(team["olivia"]).post(reverse("ui:refresh", args=[memory.pk]))
    logged_in(team["admin"]).post(reverse("ui:confirm", args=[other.pk]), {"confirmed": "1"})
    viewer = logged_in(team["vera"])
    url = reverse("ui:activity", args=["apollo"])

    everything = viewer.get(url).content.decode()
    rows = re.findall(r'<tr id="event-\d+">.*?</tr>', everything, re.S)
    assert len(rows) == 3  # created by codex, confirmed by carl, refreshed by olivia; nothing of zephyr
    assert "admin" not in "".join(rows)
    by_carl = re.findall(r'<tr id="event-\d+">.*?</tr>', viewer.get(url, {"actor": "carl"}).content.decode(), re.S)
    assert len(by_carl) == 1 and "confirmed" in by_carl[0] and "person</span>" in by_carl[0]
    refreshed = viewer.get(url, {"action": "refreshed"}).content.decode()
    assert len(re.findall(r'<tr id="event-\d+">', refreshed)) == 1 and "olivia" in refreshed
    assert viewer.get(reverse("ui:activity", args=["zephyr"])).status_code == 404


def test_an_admin_adds_a_person_whose_one_time_link_sets_a_password(team):
    admin = logged_in(team["admin"])
    answer = admin.post(reverse("ui:person_create"), {"username": "nina"})
    assert answer.status_code == 201
    link = re.search(r"data-set-password-link>([^<]+)<", answer.content.decode()).group(1)
    assert link.startswith("http://testserver/reset/")
    assert admin.get(reverse("ui:people")).content.decode().count(link) == 0  # shown once

    visitor = Client()
    form_page = visitor.get(link, follow=True)  # Django swaps the token for a session marker, then shows the form
    assert form_page.status_code == 200 and "new_password1" in form_page.content.decode()
    new_password = "a-fresh-password-for-nina"
    done = visitor.post(form_page.redirect_chain[-1][0], {"new_password1": new_password, "new_password2": new_password})
    assert done.status_code == 302
    assert get_user_model().objects.get(username="nina").check_password(new_password)
    again = Client().get(link, follow=True).content.decode()
    assert "has been used or has expired" in again

    assert admin.post(reverse("ui:grant"), {"username": "nina", "role": "curator", "project": "apollo"}).status_code
    assert Membership.objects.get(user__username="nina").role == "curator"
    admin.post(reverse("ui:revoke_role"), {"username": "nina", "project": "apollo"})
    assert not Membership.objects.filter(user__username="nina").exists()


def test_an_owner_manages_the_people_of_their_project_only(team):
    owner = logged_in(team["olivia"])
    assert owner.post(reverse("ui:grant"), {"username": "vera", "role": "curator", "project": "apollo"}).status_code
    assert Membership.objects.get(user__username="vera", project="apollo").role == "curator"
    refused = owner.post(reverse("ui:grant"), {"username": "vera", "role": "owner", "project": "zephyr"})
    assert refused.status_code == 403
    assert not Membership.objects.filter(project="zephyr").exists()
    assert owner.post(reverse("ui:person_create"), {"username": "mallory"}).status_code == 403
    assert not get_user_model().objects.filter(username="mallory").exists()


def test_an_owner_sweeps_and_undoes_only_their_projects_and_a_curator_may_not(team):
    ours = remember("Apollo once used a staging box called tiger", project="apollo", importance=0.05)
    theirs = remember("Zephyr once used a staging box called lion", project="zephyr", importance=0.05)
    shared = remember("The user once used a laptop called otter", importance=0.05)
    owner = logged_in(team["olivia"])
    assert "Run decay sweep (1)" in owner.get(reverse("ui:decay")).content.decode()
    assert logged_in(team["carl"]).post(reverse("ui:decay_sweep")).status_code == 403
    assert "Run decay sweep" not in logged_in(team["carl"]).get(reverse("ui:decay")).content.decode()

    owner.post(reverse("ui:decay_sweep"))
    statuses = {m.pk: m.status for m in (ours, theirs, shared) if not m.refresh_from_db()}
    assert statuses == {ours.pk: "archived", theirs.pk: "active", shared.pk: "active"}
    assert MemoryEvent.objects.get(memory_id=ours.pk, action="archived").actor == "olivia"

    owner.post(reverse("ui:decay_undo_sweep"))
    ours.refresh_from_db()
    assert ours.status == "active"
    assert MemoryEvent.objects.filter(memory_id=ours.pk, action="restored", actor="olivia").exists()
