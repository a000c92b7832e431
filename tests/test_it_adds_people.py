"""`manage.py add_person` and `manage.py grant`: the contract's commands for scripting a team's hub."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client

from memoryhub.models import Membership


def run(*args: str) -> list[str]:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue().strip().splitlines()


@pytest.fixture(autouse=True)
def _fast_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def test_add_person_takes_the_password_from_the_environment(db, monkeypatch):
    monkeypatch.setenv("MEMORYHUB_PASSWORD", "a-scripted-password-42")
    lines = run("add_person", "dana")
    person = get_user_model().objects.get(username="dana")
    assert person.check_password("a-scripted-password-42")
    assert not person.is_superuser
    assert "/reset/" not in "\n".join(lines)


def test_add_person_without_a_password_prints_a_one_time_link_that_works_once(db, monkeypatch):
    monkeypatch.delenv("MEMORYHUB_PASSWORD", raising=False)
    link = run("add_person", "eli", "--admin")[-1]
    person = get_user_model().objects.get(username="eli")
    assert person.is_superuser and not person.has_usable_password()
    assert link.startswith("/reset/")
    visitor = Client()
    form = visitor.get(link, follow=True)
    assert "new_password1" in form.content.decode()
    new = "eli-chose-this-password"
    visitor.post(form.redirect_chain[-1][0], {"new_password1": new, "new_password2": new})
    person.refresh_from_db()
    assert person.check_password(new)
    assert "has been used or has expired" in Client().get(link, follow=True).content.decode()


def test_add_person_refuses_a_username_that_exists(db, monkeypatch):
    monkeypatch.setenv("MEMORYHUB_PASSWORD", "a-scripted-password-42")
    run("add_person", "fay")
    with pytest.raises(CommandError, match="already exists"):
        run("add_person", "fay")


def test_grant_gives_and_replaces_a_role_in_a_project(db, monkeypatch):
    monkeypatch.setenv("MEMORYHUB_PASSWORD", "a-scripted-password-42")
    run("add_person", "gus")
    assert run("grant", "gus", "viewer", "--project", "apollo") == ["gus is now viewer of apollo."]
    run("grant", "gus", "owner", "--project", "apollo")
    run("grant", "gus", "curator", "--project", "zephyr")
    roles = dict(Membership.objects.filter(user__username="gus").values_list("project", "role"))
    assert roles == {"apollo": "owner", "zephyr": "curator"}


def test_grant_refuses_an_unknown_person_or_role(db):
    with pytest.raises(CommandError, match="no person"):
        run("grant", "nobody", "viewer", "--project", "apollo")
    with pytest.raises(CommandError):
        run("grant", "nobody", "emperor", "--project", "apollo")
    assert not Membership.objects.exists()
