"""What the views share: parsing with a serializer, the start of a read, the usage log, and the error responses for the
schema."""

from __future__ import annotations

import time
from typing import Any

from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers

from api.auth import agent_of
from api.serializers import ErrorSerializer
from memoryhub.agents.tokens import Agent
from memoryhub.memories import bookkeeping
from memoryhub.memories.bookkeeping import UsageKind

_ERROR_TEXT = {
    400: "A bad field, named in error.fields.",
    401: "No token, or a bad or revoked one.",
    403: "The token is read-only, or limited to other projects.",
    404: "No such id.",
    409: "The object is not in a state that allows this.",
    413: "The request body is too large.",
    422: "Refused: a secret (its kind and field named, never its value) or a blank project; nothing was stored.",
    503: "A service this call needs is unavailable.",
}


def errors(*codes: int) -> dict[int, OpenApiResponse]:
    """Documented error answers, all in the one error shape. 401 is implied for every authenticated call."""
    return {code: OpenApiResponse(ErrorSerializer, description=_ERROR_TEXT[code]) for code in sorted({401, *codes})}


def parse(serializer_class: type[serializers.Serializer], data: Any) -> dict[str, Any]:
    """Validated data, or the one 400 answer naming the bad fields (raised)."""
    if not isinstance(data, dict):
        raise serializers.ValidationError({"non_field_errors": ["the body must be a JSON object"]})
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def reading(request, serializer_class: type[serializers.Serializer]) -> tuple[Agent, dict[str, Any], str | None]:
    """What a read endpoint starts with: the calling agent, its validated body, and the project it reads (None: the
    globals), which the token must be allowed to read (else the one 403)."""
    agent = agent_of(request)
    data = parse(serializer_class, request.data)
    project = data.get("project") or None
    agent.check_read(project)
    return agent, data, project


def parse_query(serializer_class: type[serializers.Serializer], params) -> dict[str, Any]:
    serializer = serializer_class(data={k: params.get(k) for k in params})
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


class Timer:
    def __init__(self) -> None:
        self.started = time.perf_counter()

    @property
    def ms(self) -> float:
        return (time.perf_counter() - self.started) * 1000.0


def record_usage(agent: Agent, kind: UsageKind, *, project: str | None, timer: Timer, recall_chars: int = 0) -> None:
    """The view's call counted for the overview (write, search, recall; tools/call records its own): the domain's
    one usage record (`bookkeeping.record_usage`), with the latency measured now."""
    bookkeeping.record_usage(
        agent=agent.name, kind=kind, project=project, latency_ms=timer.ms, recall_chars=recall_chars
    )
