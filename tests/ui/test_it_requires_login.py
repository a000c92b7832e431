"""Every dashboard page asks for a login first; logged in, every page links to every screen."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.ui.conftest import HX

PAGES = ["/", "/decay/", "/proposals/", "/gate/", "/overview/", "/memories/1/", "/counters/"]
NAV = ['href="/"', 'href="/decay/"', 'href="/proposals/"', 'href="/gate/"', 'href="/overview/"']


@pytest.mark.django_db
@pytest.mark.parametrize("path", PAGES)
def test_an_anonymous_visitor_is_sent_to_the_login_page(path):
    response = Client().get(path)
    assert response.status_code == 302
    assert response["Location"].startswith("/login/?next=")


@pytest.mark.django_db
def test_an_anonymous_post_changes_nothing_and_asks_for_a_login(store):
    memory = store["deploy"]
    response = Client().post(f"/memories/{memory.pk}/archive/")
    assert response.status_code == 302
    memory.refresh_from_db()
    assert memory.status == "active"


@pytest.mark.django_db
def test_an_htmx_request_with_an_expired_session_redirects_the_whole_page():
    response = Client().get("/?q=x", HTTP_HX_CURRENT_URL="http://testserver/?q=x", **HX)
    assert response.status_code == 200
    assert response["HX-Redirect"] == "/login/?next=%2F%3Fq%3Dx"


@pytest.mark.django_db
def test_the_login_page_logs_a_person_in_and_sends_them_on(curator):
    client = Client()
    page = client.get("/login/?next=/decay/")
    assert page.status_code == 200
    assert b'name="username"' in page.content and b'name="password"' in page.content
    response = client.post("/login/", {"username": "curator", "password": "a-long-test-password", "next": "/decay/"})
    assert response.status_code == 302 and response["Location"] == "/decay/"
    assert client.get("/decay/").status_code == 200


@pytest.mark.django_db
def test_a_wrong_password_is_refused_with_a_message(curator):
    response = Client().post("/login/", {"username": "curator", "password": "wrong"})
    assert response.status_code == 200
    assert b"did not match" in response.content


@pytest.mark.parametrize("path", ["/", "/decay/", "/proposals/", "/gate/", "/overview/"])
def test_every_page_has_the_navigation_and_the_csrf_header(ui, store, path):
    html = ui.get(path).content.decode()
    for link in NAV:
        assert link in html
    assert 'hx-headers=\'{"X-CSRFToken": "' in html
    assert "/static/vendor/htmx-2.0.11.min.js" in html


def test_logging_out_ends_the_session(ui):
    assert ui.post("/logout/").status_code == 302
    assert ui.get("/").status_code == 302
