"""The reads every API call makes (its token) and every search makes (the memories it returns) go through one plain
statement each (memoryhub/storage/by_key.py) instead of the ORM's query building: they give the same instances,
field for field, so a search answers the same ids, in the same order, with the same fields."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from memoryhub.agents.tokens import create_token, hash_token, revoke_token, verify_token
from memoryhub.memories.store import create_memory
from memoryhub.memories.supersession import with_chains
from memoryhub.models import ApiToken, Memory
from memoryhub.storage import by_key
from memoryhub.writes.shape import memory_as_dict
from tests.api.conftest import make_agent

pytestmark = pytest.mark.django_db


def _fields(instance) -> dict:
    return {field.attname: getattr(instance, field.attname) for field in type(instance)._meta.concrete_fields}


@pytest.fixture
def memories(db):
    plain = create_memory(content="Deploys to staging go through the Jenkins pipeline", project="alpha")
    rich = create_memory(
        content="The user wants deploy notices in the #ops Slack channel",
        category="preference",
        tags=["deploy", "slack"],
        metadata={"path": "docs/deploy.md", "lines": [3, 9], "nested": {"ok": True}},
        importance=0.8,
        confirmed=True,
    )
    Memory.objects.filter(pk=rich.pk).update(
        expires_at=timezone.now() + timedelta(days=30), last_accessed_at=timezone.now() - timedelta(days=2)
    )
    old = create_memory(content="Deploys to staging went through Travis CI", project="alpha")
    Memory.objects.filter(pk=old.pk).update(superseded_by=plain, status="superseded", valid_to=timezone.now())
    return [plain, rich, old]


def test_rows_by_id_gives_the_instances_in_bulk_gives_field_for_field(memories):
    ids = [m.pk for m in memories]
    # Missing ids are left out, repeats read once, and more ids than one statement takes are read in parts.
    wanted = [*ids, ids[0], *range(10_000, 11_200)]
    fast, orm = by_key.rows_by_id(Memory, wanted), Memory.objects.in_bulk(wanted)
    assert set(fast) == set(orm) == set(ids)
    for pk in ids:
        assert type(fast[pk]) is Memory
        assert _fields(fast[pk]) == _fields(orm[pk])
        assert set(vars(fast[pk])) == set(vars(orm[pk]))  # nothing more read than the model's own columns
    assert [memory_as_dict(m) for m in with_chains([fast[pk] for pk in ids])] == [
        memory_as_dict(m) for m in with_chains([orm[pk] for pk in ids])
    ]
    assert by_key.rows_by_id(Memory, []) == {}


def test_a_token_is_found_by_its_hash_as_the_orm_finds_it_and_a_revoked_one_is_refused(db):
    token, raw = create_token(name="claude", projects=["alpha", "beta"], read_only=True)
    fast = by_key.row_where(ApiToken, "token_hash", hash_token(raw))
    assert _fields(fast) == _fields(ApiToken.objects.get(pk=token.pk))
    assert fast.projects == ["alpha", "beta"] and fast.read_only is True
    assert by_key.row_where(ApiToken, "token_hash", hash_token(raw + "x")) is None
    assert verify_token(raw).pk == token.pk
    revoke_token(token=token)
    assert verify_token(raw) is None


def test_a_search_over_the_api_answers_every_field_as_the_orm_reads_it(memories):
    claude = make_agent("claude", projects=["alpha"])
    expected = {m.pk: memory_as_dict(m) for m in with_chains(list(Memory.objects.all()))}
    for mode in ("keyword", "semantic", "hybrid"):
        response = claude.post(
            "search", {"query": "deploys staging jenkins", "project": "alpha", "mode": mode, "status": "any"}
        )
        results = response.json()["results"]
        assert results, mode
        for result in results:
            answered = {key: value for key, value in result.items() if key not in ("score", "explain")}
            # The answer is built before the search's own use is counted, from the rows as they were.
            assert answered == expected[result["id"]], mode
        expected = {m.pk: memory_as_dict(m) for m in with_chains(list(Memory.objects.all()))}
