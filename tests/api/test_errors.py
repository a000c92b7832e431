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


def post_raw(agent, path: str, body: bytes):
    return agent.client.post(path, data=body, content_type="application/json")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (b'{"content": "lone \\ud800 surrogate about the build", "project": "alpha"}', "content"),
        (b'{"content": "The build runs nightly", "metadata": {"note": "\\udc00"}}', "metadata.note"),
        (b'{"content": "The build runs nightly", "tags": ["ok", "\\udfff"]}', "tags.1"),
        (b'{"content": "The build runs nightly", "importance": NaN}', "importance"),
        (b'{"content": "The build runs nightly", "importance": Infinity}', "importance"),
    ],
)
def test_values_that_cannot_be_stored_safely_are_a_400_naming_the_field(curator, body, field):
    from memoryhub.models import Memory

    response = post_raw(curator, "/api/v1/memories", body)
    assert response.status_code == 400
    assert list(error_of(response)["fields"]) == [field]
    assert Memory.objects.count() == 0


def test_json_nested_too_deeply_is_a_400(curator):
    deep = b'{"content": "The build runs nightly", "metadata": ' + b'{"a":' * 40 + b"1" + b"}" * 41
    response = post_raw(curator, "/api/v1/memories", deep)
    assert response.status_code == 400
    assert "nested deeper than 32 levels" in error_of(response)["message"]
    very_deep = b'{"query": ' + b"[" * 50_000 + b"]" * 50_000 + b"}"
    response = post_raw(curator, "/api/v1/search", very_deep)
    assert response.status_code == 400
    assert "nested too deeply" in error_of(response)["message"]


def test_an_id_too_large_for_sqlite_is_simply_not_found(curator):
    huge = "9" * 30
    assert curator.get(f"memories/{huge}").status_code == 404
    assert curator.post(f"proposals/{huge}/accept").status_code == 404
    tool = curator.post("tools/call", {"name": "memory_refresh", "arguments": {"id": 10**30}})
    assert tool.status_code == 400
    assert list(error_of(tool)["fields"]) == ["id"]
