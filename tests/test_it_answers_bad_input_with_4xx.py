"""Bad input answers 400/422 in the error shape, never 500; imported fields are checked like any write."""

from __future__ import annotations

import base64
from datetime import UTC, datetime

import pytest
from django.test import Client
from django.utils import timezone

from memoryhub.memories.store import create_memory
from memoryhub.models import Memory
from tests.api.conftest import error_of, make_agent

pytestmark = pytest.mark.django_db
FACT = "Alpha caches sessions in Redis 7"


def _import(agent, **item):
    return agent.post("memories/import", {"memories": [{"content": FACT, "project": "alpha", **item}]})


@pytest.mark.parametrize("raw", ["p=abc", "r=1&p=1e999", "p=-1", "p=0", "o=-5", "p=1&o=1e5", "p=" + "9" * 30])
@pytest.mark.parametrize("path", ["memories", "proposals"])
def test_a_crafted_cursor_is_a_400_naming_it(curator, path, raw):
    response = curator.get(path, cursor=base64.b64encode(raw.encode()).decode())
    assert response.status_code == 400, response.content
    assert "cursor" in error_of(response)["fields"]


def test_a_timestamp_without_a_zone_is_read_as_utc(curator):
    response = _import(curator, created_at="2024-01-02T03:04:05", updated_at="2024-01-02")
    assert response.status_code == 201, response.content
    memory = Memory.objects.get()
    assert memory.created_at == datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert memory.updated_at == datetime(2024, 1, 2, tzinfo=UTC)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("9999-12-31T23:59:59-05:00", "now"),  # past the end of the calendar in UTC
        ("0001-01-01T00:00:00+05:00", "earliest"),  # before its start
        ("2999-01-01T00:00:00Z", "now"),  # would never decay
        ("1970-01-01T00:00:00Z", "earliest"),
    ],
)
def test_timestamps_at_the_edges_are_clamped_to_a_sane_range(curator, value, expected):
    before = timezone.now()
    response = _import(curator, last_accessed_at=value, created_at=value)
    assert response.status_code == 201, response.content
    memory = Memory.objects.get()
    if expected == "now":
        assert before <= memory.last_accessed_at <= timezone.now()
    else:
        assert memory.created_at == datetime(2000, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize("value", ["2024-13-01T00:00:00Z", "yesterday", "2024-02-30", 12345])
def test_an_impossible_timestamp_is_a_400_naming_the_item_and_field(curator, value):
    response = _import(curator, created_at=value)
    assert response.status_code == 400
    assert "memories.0.created_at" in error_of(response)["fields"]
    assert Memory.objects.count() == 0


def test_a_blank_project_is_a_422_on_import_and_create(curator):
    response = _import(curator, project="   ")
    assert response.status_code == 422
    assert "memories.0.project" in error_of(response)["fields"]
    response = curator.store(FACT, project="  ")
    assert response.status_code == 422 and "project" in error_of(response)["fields"]
    assert Memory.objects.count() == 0


def test_merged_into_must_name_another_existing_memory(curator):
    assert _import(curator, id=5, merged_into=5).status_code == 400
    response = _import(curator, id=5, merged_into=424242)
    assert response.status_code == 400 and "memories.0.merged_into" in error_of(response)["fields"]
    assert _import(curator, id=5, merged_into=2**70).status_code == 400
    target = create_memory(content="Alpha caches sessions in Redis", project="alpha")
    response = _import(curator, id=5, merged_into=target.pk, status="archived")
    assert response.status_code == 201
    assert Memory.objects.get(pk=response.json()["ids"][0]).merged_into_id == target.pk
    # Another project's memory is not a target either: its id answers as a missing one would.
    hidden = create_memory(content="Beta deploys with Helm 3", project="beta")
    claude = make_agent("claude", projects=["alpha"])
    answers = [_import(claude, id=5, merged_into=pk) for pk in (hidden.pk, 999_999)]
    assert [a.status_code for a in answers] == [400, 400]


def test_an_agent_may_not_claim_to_be_another_unless_it_may_restore(curator, settings):
    response = _import(curator, source="ui:admin")
    assert response.status_code == 201
    assert Memory.objects.get(pk=response.json()["ids"][0]).source == "curator"
    settings.MEMORYHUB_RESTORE_AGENTS = ["curator"]
    response = curator.post("memories/import", {"memories": [{"content": "Beta uses Bazel", "source": "old-bot"}]})
    assert Memory.objects.get(pk=response.json()["ids"][0]).source == "old-bot"


def test_the_chat_proxy_answers_hostile_bodies_with_a_400(curator):
    client = Client()
    nested = b'{"model": "m", "messages": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    surrogate = b'{"model": "m", "messages": [{"role": "user", "content": "\\ud800"}]}'
    deep_but_valid = b'{"model": "m", "messages": [{"role": "user", "content": "x", "extra": ' + b"[" * 100
    deep_but_valid += b"]" * 100 + b"}]}"
    for body in (nested, surrogate, deep_but_valid):
        response = client.post(
            "/v1/chat/completions", body, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {curator.raw}"
        )
        assert response.status_code == 400, response.content
        assert response.json()["error"]["type"] == "invalid_request_error"


def test_another_projects_memory_answers_exactly_like_a_missing_one_on_every_route(db):
    claude = make_agent("claude", projects=["alpha"])
    hidden = create_memory(content="Beta deploys with Helm 3", project="beta")
    missing = hidden.pk + 1000
    routes = [
        ("get", "memories/{}", None),
        ("get", "memories/{}/history", None),
        ("patch", "memories/{}", {"content": "Taken over by alpha"}),
        ("delete", "memories/{}", None),
        ("post", "memories/{}/refresh", None),
    ]
    for method, path, body in routes:
        answers = []
        for pk in (hidden.pk, missing):
            call = getattr(claude, method)
            response = call(path.format(pk), body) if body is not None else call(path.format(pk))
            answers.append((response.status_code, error_of(response)["message"].replace(str(pk), "N")))
        assert answers[0] == answers[1] == (404, "no memory #N"), (path, answers)
        assert "beta" not in str(answers)
    assert Memory.objects.get(pk=hidden.pk).content == "Beta deploys with Helm 3"
