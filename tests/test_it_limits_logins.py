"""Failed dashboard logins are limited per username and address (django-axes) and per address across usernames,
with a clear message; the records keep a hash of the username typed, never the text."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fast_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def login(client: Client, password: str, username: str = "curator", address: str = "10.0.0.1"):
    return client.post("/login/", {"username": username, "password": password}, REMOTE_ADDR=address)


def test_after_too_many_failures_even_the_right_password_is_refused_with_a_clear_message(settings):
    get_user_model().objects.create_user("curator", password="the-right-password")
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert login(client, "wrong").status_code == 200  # the form again, with its error
    locked = login(client, "wrong")
    assert locked.status_code == 429
    assert "Too many failed logins" in locked.content.decode()
    assert login(client, "the-right-password").status_code == 429
    assert "_auth_user_id" not in client.session


def test_the_limit_is_per_username_and_address(settings):
    get_user_model().objects.create_user("curator", password="the-right-password")
    get_user_model().objects.create_user("other", password="another-password")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        login(Client(), "wrong")
    assert login(Client(), "another-password", username="other").status_code == 302  # another user
    assert login(Client(), "the-right-password", address="10.0.0.2").status_code == 302  # another address


def test_a_success_resets_the_count(settings):
    get_user_model().objects.create_user("curator", password="the-right-password")
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        login(Client(), "wrong")
    assert login(Client(), "the-right-password").status_code == 302
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        login(Client(), "wrong")
    assert login(Client(), "the-right-password").status_code == 302


def test_one_address_spraying_one_password_over_many_usernames_is_locked_out(settings):
    settings.MEMORYHUB_LOGIN_ADDRESS_FAILURE_LIMIT = 8
    get_user_model().objects.create_user("curator", password="the-right-password")
    for n in range(settings.MEMORYHUB_LOGIN_ADDRESS_FAILURE_LIMIT):  # each name under its own limit of 5
        assert login(Client(), "Summer2026!", username=f"user{n}").status_code == 200
    locked = login(Client(), "the-right-password")
    assert locked.status_code == 429 and "Too many failed logins" in locked.content.decode()
    assert login(Client(), "the-right-password", address="10.0.0.2").status_code == 302  # another address


def test_the_login_records_keep_no_username_as_typed():
    from axes.models import AccessAttempt

    login(Client(), "wrong", username="Tr0ub4dor&3-typed-as-a-name")
    attempt = AccessAttempt.objects.get()
    assert "Tr0ub4dor" not in attempt.username + attempt.post_data + attempt.get_data
