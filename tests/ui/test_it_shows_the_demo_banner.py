"""While demo memories are in the store, every dashboard page says so and offers to remove them (a POST, confirmed)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from memoryhub.memories.demo import seed_demo
from memoryhub.models import Memory

pytestmark = pytest.mark.django_db


def test_the_dashboard_shows_a_banner_and_removes_the_demo_with_one_post(ui):
    seed_demo()
    page = ui.get(reverse("ui:memories")).content.decode()
    assert 'id="demo-banner"' in page and "demo-shopfront" in page
    assert 'hx-confirm="Remove every demo memory? Your own memories stay."' in page

    assert ui.get(reverse("ui:remove_demo")).status_code == 405  # a GET removes nothing
    response = ui.post(reverse("ui:remove_demo"), headers={"HX-Request": "true"})

    assert (response.status_code, response["HX-Redirect"]) == (200, reverse("ui:memories"))
    assert not Memory.objects.exists()
    page = ui.get(reverse("ui:memories")).content.decode()
    assert 'id="demo-banner"' not in page and "Removed 20 demo memories." in page
