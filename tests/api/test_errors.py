"""One JSON error shape across the API, including Django's own 404 and wrong methods and media types."""

from __future__ import annotations

import pytest

from tests.api.conftest import error_of

pytestmark = pytest.mark.django_db


def test_an_unknown_api_path_is_a_json_404(curator):
    response = curator.get("/api/v1/no-such-thing")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert error_of(response) == {
        "code": "not_found",
        "message": "no such endpoint: GET /api/v1/no-such-thing",
        "fields": {},
    }


def test_a_wrong_method_is_a_405_in_the_error_shape(curator):
    response = curator.client.put("/api/v1/search", {}, format="json")
    assert response.status_code == 405
    assert error_of(response)["code"] == "method_not_allowed"


def test_a_body_that_is_not_json_is_a_415(curator):
    response = curator.client.post("/api/v1/search", "query=x", content_type="application/x-www-form-urlencoded")
    assert response.status_code == 415
    assert error_of(response)["code"] == "unsupported_media_type"


def test_a_failing_embedder_is_a_503_and_nothing_is_written(curator, failing_embedder):
    from memoryhub.models import Memory

    response = curator.store("Alpha caches sessions in Redis", project="alpha")
    assert response.status_code == 503
    assert error_of(response)["code"] == "unavailable"
    assert Memory.objects.count() == 0


def test_pages_outside_the_api_keep_django_handlers(db, client):
    response = client.get("/definitely-not-a-page-xyz/")
    assert response.status_code in (302, 404)  # the dashboard may ask for a login first
    assert not response.get("Content-Type", "").startswith("application/json")
