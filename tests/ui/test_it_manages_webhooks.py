"""Webhooks on the dashboard: an owner adds a hook for their project (the secret shown once), sees its deliveries in
the log and removes it; a URL the server must not call is refused with a message; hub-wide hooks are for hub admins."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from memoryhub.models import Membership, Webhook
from memoryhub.operations import deliveries
from tests.factories import remember
from tests.test_it_sends_webhooks import Receiver

pytestmark = pytest.mark.django_db(transaction=True)


def login(username: str, *, admin: bool = False, owns: str | None = None) -> Client:
    User = get_user_model()
    user = User.objects.create_user(username, password="a-long-test-password", is_superuser=admin, is_staff=admin)
    if owns:
        Membership.objects.create(user=user, project=owns, role="owner")
    client = Client()
    client.force_login(user)
    return client


def test_an_owner_adds_reads_the_log_and_removes(settings):
    settings.MEMORYHUB_WEBHOOK_ALLOW_PRIVATE = True
    owner = login("olga", owns="shop")
    receiver = Receiver().start()
    try:
        page = owner.get("/webhooks/")
        assert page.status_code == 200 and "No webhooks for your projects yet." in page.content.decode()
        assert 'href="/webhooks/"' in page.content.decode()  # in the navigation

        made = owner.post("/webhooks/new/", {"url": receiver.url, "project": "shop", "events": ["memory.created"]})
        assert made.status_code == 201
        hook = Webhook.objects.get()
        assert (hook.project, hook.events, hook.created_by) == ("shop", ["memory.created"], "olga")
        assert hook.secret in made.content.decode()
        assert hook.secret not in owner.get("/webhooks/").content.decode()  # shown once

        memory = remember("The shop's checkout runs on port 8443", project="shop")
        deliveries.deliver_due()
        assert [body["memory"]["id"] for body in receiver.bodies()] == [memory.pk]
        log = owner.get("/webhooks/").content.decode()
        assert "memory.created" in log and f"#{memory.pk}" in log and "204" in log

        removed = owner.post(f"/webhooks/{hook.pk}/remove/")
        assert removed.status_code == 302
        assert not Webhook.objects.exists()
    finally:
        receiver.stop()


def test_refusals_say_why(settings):
    settings.MEMORYHUB_WEBHOOK_ALLOW_PRIVATE = False
    owner = login("olga", owns="shop")
    private = owner.post("/webhooks/new/", {"url": "http://127.0.0.1:9000/hook", "project": "shop"})
    assert private.status_code == 422
    assert "MEMORYHUB_WEBHOOK_ALLOW_PRIVATE" in private.content.decode()
    assert owner.post("/webhooks/new/", {"url": "ftp://93.184.216.34/x", "project": "shop"}).status_code == 422
    hub_wide = owner.post("/webhooks/new/", {"url": "http://93.184.216.34/hook", "project": ""})
    assert hub_wide.status_code == 422 and "hub admins" in hub_wide.content.decode()
    assert owner.post("/webhooks/new/", {"url": "http://93.184.216.34/hook", "project": "blog"}).status_code == 403
    assert not Webhook.objects.exists()

    admin = login("ada", admin=True)
    assert admin.post("/webhooks/new/", {"url": "http://93.184.216.34/hook", "project": ""}).status_code == 201
    assert Webhook.objects.get().project is None
    # The owner sees only their projects' hooks: the hub-wide one is not theirs to see or remove.
    assert "93.184.216.34" not in owner.get("/webhooks/").content.decode()
    assert owner.post(f"/webhooks/{Webhook.objects.get().pk}/remove/").status_code == 404
