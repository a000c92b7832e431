"""Request bodies and query strings are parsed with shallow copies of each serializer's declared fields
(api.serializers.RequestSerializer) instead of DRF's deep copies: the same validated data and the same errors, and
the declared fields themselves are never bound, so one request's parse leaves nothing for the next."""

from __future__ import annotations

import copy
import threading

import pytest
from rest_framework import serializers

from api import serializers as s
from api.views.common import parse

REQUESTS = [
    s.SearchRequestSerializer, s.RecallRequestSerializer, s.MemoryCreateSerializer, s.MemoryUpdateSerializer,
    s.MemoryImportSerializer, s.MemoryListQuerySerializer, s.ToolCallRequestSerializer,
    s.ProposalListQuerySerializer, s.ProposalRunSerializer, s.ProposalAcceptSerializer, s.ExportQuerySerializer,
]  # fmt: skip

BODIES = [
    {"query": "how do we deploy", "project": "alpha", "k": 5, "mode": "keyword", "tags": ["ops", "deploy"]},
    {"query": "  spaced  ", "as_of": "2024-05-01", "status": "any", "include_superseded": True, "min_score": 0.2},
    {"query": 3, "k": 0, "mode": "nope", "tags": ["x" * 70, 5], "status": "gone", "min_score": 2},
    {"content": "The CI runs on every push", "tags": "not a list", "importance": 1.5, "metadata": []},
    {"content": "Deploys go through Jenkins", "category": "fact", "tier": "semantic", "valid_to": "tomorrow"},
    {"memories": [{"content": "a"}, "not an object"], "project": None},
    {"name": "search", "arguments": {"query": "x"}, "turn_id": "t1", "budget_chars": 10, "format": "yaml"},
    {},
]


def _stock(serializer_class):
    """The same serializer as DRF makes it: every declared field deep-copied."""

    class Stock(serializer_class):
        def get_fields(self):
            return copy.deepcopy(self._declared_fields)

    return Stock


def _outcome(serializer_class, body):
    serializer = serializer_class(data=body)
    valid = serializer.is_valid()
    return valid, dict(serializer.validated_data) if valid else serializer.errors


@pytest.mark.parametrize("serializer_class", REQUESTS, ids=lambda c: c.__name__)
def test_a_request_parses_as_with_drfs_own_copies(serializer_class):
    assert issubclass(serializer_class, s.RequestSerializer)
    for body in BODIES:
        assert _outcome(serializer_class, body) == _outcome(_stock(serializer_class), body)


def test_the_declared_fields_are_never_bound_and_each_parse_binds_its_own():
    first, second = s.SearchRequestSerializer(data=BODIES[0]), s.SearchRequestSerializer(data=BODIES[1])
    assert first.fields["query"] is not second.fields["query"]
    assert first.fields["query"].parent is first and second.fields["query"].parent is second
    for field in s.SearchRequestSerializer._declared_fields.values():
        assert field.parent is None and field.field_name is None


def test_parses_on_several_threads_at_once_each_get_their_own_answer():
    wrong: list[object] = []

    def parse_many(k: int) -> None:
        for _ in range(200):
            data = parse(s.SearchRequestSerializer, {"query": f"q{k}", "k": k, "tags": [f"t{k}"]})
            if (data["query"], data["k"], data["tags"]) != (f"q{k}", k, [f"t{k}"]):
                wrong.append(data)

    threads = [threading.Thread(target=parse_many, args=(k,)) for k in range(1, 5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []
    with pytest.raises(serializers.ValidationError) as refused:
        parse(s.SearchRequestSerializer, {"query": "x", "tags": ["ok", 7]})
    assert refused.value.detail == {"tags": {1: [serializers.ErrorDetail("Not a valid string.", code="invalid")]}}
