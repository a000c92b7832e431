"""An agent never passes for a person: a token may not take a person's username or a reserved word (case, accents
and separators aside), on the command line, through the API's helpers or the dashboard's Tokens page, and a person
may not take an agent's name; the history says whether an agent, a person or the system made each change; the
grant form answers an owner the same whether or not the username exists."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from memoryhub.agents.tokens import create_token
from memoryhub.memories.actors import RESERVED_NAMES
from memoryhub.models import ApiToken, Membership
from memoryhub.people.persons import add_person
from tests.api.conftest import make_agent

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-test-password"


@pytest.fixture
def alice(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    user = get_user_model().objects.create_user("alice", password=PASSWORD)
    Membership.objects.create(user=user, project="apollo", role="owner")
    return user


@pytest.mark.parametrize("name", ["alice", "Alice", " ALICE ", "al-ice", "Álice", "admin", "Admin", "SYSTEM", "person",
                                  "agent", "Agents", "root", "manage.py", "assistant", "scrub"])  # fmt: skip
def test_a_token_may_not_take_a_persons_name_or_a_reserved_word(alice, name):
    with pytest.raises(ValidationError) as refused:
        create_token(name=name)
    message = " ".join(refused.value.message_dict["name"])
    assert "person's username" in message or "reserved word" in message
    assert not ApiToken.objects.exists()


def test_the_create_token_command_refuses_with_a_clear_error(alice):
    with pytest.raises(CommandError, match="person's username"):
        call_command("create_token", "Alice")
    with pytest.raises(CommandError, match="reserved word"):
        call_command("create_token", "Admin")
    call_command("create_token", "alice-laptop-agent")  # a name of its own is fine
    assert list(ApiToken.objects.values_list("name", flat=True)) == ["alice-laptop-agent"]


def test_the_tokens_page_refuses_a_persons_name(alice):
    client = Client()
    client.force_login(alice)
    response = client.post("/tokens/new/", {"name": "ALICE", "projects": ["apollo"]}, HTTP_HX_REQUEST="true")
    assert response.status_code == 422 and "username" in response.content.decode()
    assert not ApiToken.objects.exists()


def test_a_person_may_not_take_an_agents_name(alice):
    create_token(name="claude-code")
    with pytest.raises(ValidationError, match="agent's name"):
        add_person(username="Claude_Code")
    assert not get_user_model().objects.filter(username="Claude_Code").exists()


def test_the_reserved_words_include_the_ones_people_would_read_as_a_role():
    assert {"admin", "system", "person", "agent"} <= RESERVED_NAMES


def test_history_says_agent_person_or_system(alice):
    agent = make_agent("claude-code", projects=["apollo"])
    created = agent.store("Apollo releases are cut from the release branch on Thursdays", project="apollo")
    memory_id = created.json()["memory"]["id"]
    client = Client()
    client.force_login(alice)
    page = client.get(f"/memories/{memory_id}/edit/").content.decode()
    version = page.split(f'name="m{memory_id}-version" value="')[1].split('"')[0]
    text = "Apollo releases are cut from the release branch on Thursdays after the freeze"
    edited = client.post(
        f"/memories/{memory_id}/edit/", {f"m{memory_id}-content": text, f"m{memory_id}-version": version}
    )
    assert edited.status_code in (200, 302)
    events = agent.get(f"memories/{memory_id}/history").json()["events"]
    assert [(e["actor"], e["actor_kind"]) for e in events][:2] == [("claude-code", "agent"), ("alice", "person")]
    detail = client.get(f"/memories/{memory_id}/").content.decode()
    assert ">agent</span>" in detail and ">person</span>" in detail


def test_a_name_both_sets_hold_from_an_older_store_reads_as_an_agent(alice):
    ApiToken.objects.create(name="alice", token_hash="x" * 64, prefix="mh_old")  # made before the rule
    from memoryhub.memories.actors import actor_kinds

    assert actor_kinds(["alice", "scrub"]) == {"alice": "agent", "scrub": "system"}


def test_the_grant_form_answers_an_owner_the_same_for_unknown_and_known_usernames(alice):
    get_user_model().objects.create_user("bob", password=PASSWORD)
    client = Client()
    client.force_login(alice)
    answers = []
    for username in ("bob", "nobody-by-this-name"):
        data = {"username": username, "role": "viewer", "project": "apollo"}
        response = client.post("/people/grant/", data)
        notice = client.get(response["Location"]).content.decode().split('class="message-text">')[1].split("<")[0]
        answers.append((response.status_code, response["Location"], notice.replace(username, "NAME")))
    assert answers[0] == answers[1]
    assert answers[0][0] == 302 and "If NAME has a login" in answers[0][2]
    assert Membership.objects.filter(user__username="bob", project="apollo", role="viewer").exists()


def test_an_admin_still_hears_that_a_username_does_not_exist(alice):
    admin = get_user_model().objects.create_superuser("hubadmin", password=PASSWORD)
    client = Client()
    client.force_login(admin)
    response = client.post("/people/grant/", {"username": "nobody-by-this-name", "role": "viewer",
                                              "project": "apollo"}, HTTP_HX_REQUEST="true")  # fmt: skip
    assert response.status_code == 422 and "there is no person" in response.content.decode()
