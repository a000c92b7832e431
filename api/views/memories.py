"""/memories: write through the gate, import as given, list, read, edit, delete, refresh, history."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.pagination import CursorPagination
from rest_framework.response import Response

from api import serializers as s
from api.auth import AgentAPIMixin, agent_of
from api.errors import Conflict, error_body
from api.views.common import Timer, errors, parse, parse_query, record_usage
from memoryhub.agents.tools import list_memories
from memoryhub.memories.actors import actor_kinds
from memoryhub.memories.checking import set_expiry
from memoryhub.memories.fields import new_memory
from memoryhub.memories.refresh import refresh_memory
from memoryhub.memories.selectors import MAX_ID, visible_memory
from memoryhub.memories.store import delete_memory
from memoryhub.memories.supersession import restore, with_chains
from memoryhub.models import Memory, MemoryEvent
from memoryhub.writes.exports import event_as_dict, import_items
from memoryhub.writes.gate import admit, edit_memory
from memoryhub.writes.shape import memory_as_dict, write_answer

WRITE_STATUS = {"created": status.HTTP_201_CREATED, "merged": 200, "duplicate": 200, "rejected": 422}


def sqlite_id(value) -> int:
    number = int(value)
    if not 0 < number <= MAX_ID:
        raise ValueError(value)
    return number


class IdCursorPagination(CursorPagination):
    """Newest first by id: stable under concurrent writes, and no page is skipped or repeated."""

    ordering = "-id"
    page_size = 50
    page_size_query_param = "limit"
    max_page_size = 500

    def decode_cursor(self, request):
        invalid = serializers.ValidationError(
            {"cursor": ["this cursor is not valid; follow the `next` link of the previous page"]}
        )
        try:
            cursor = super().decode_cursor(request)
        except NotFound as exc:
            raise invalid from exc
        # DRF trusts the position it finds in the cursor; a crafted one ("p=abc") would fail in the query.
        if cursor is not None and cursor.position is not None:
            try:
                sqlite_id(cursor.position)
            except (TypeError, ValueError) as exc:
                raise invalid from exc
        return cursor


_ID_PARAM = OpenApiParameter("id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The memory's id.")


@extend_schema_view(
    list=extend_schema(
        summary="List memories",
        description=(
            "The memories this token may see (its projects and the globals; every status unless `status` is given), "
            "newest first, with cursor pagination: follow `next`."
        ),
        parameters=[
            s.MemoryListQuerySerializer,
            OpenApiParameter("limit", OpenApiTypes.INT, description="Page size, at most 500 (default 50)."),
        ],
        responses={200: s.MemorySerializer(many=True), **errors(400, 403)},
    ),
    retrieve=extend_schema(
        summary="Read a memory", parameters=[_ID_PARAM], responses={200: s.MemorySerializer, **errors(403, 404)}
    ),
)
class MemoryViewSet(AgentAPIMixin, viewsets.GenericViewSet):
    serializer_class = s.MemorySerializer
    pagination_class = IdCursorPagination
    lookup_value_regex = r"\d+"
    queryset = Memory.objects.none()  # rows come from get_queryset/get_memory, scoped to the token

    def get_memory(self, pk) -> Memory:
        """The memory, or 404; another project's memory answers exactly as a missing one (the domain's rule)."""
        memory = visible_memory(pk, allowed_projects=agent_of(self.request).projects)
        if memory is None:
            raise NotFound(f"no memory #{pk}")
        return memory

    def list(self, request):
        filters = parse_query(s.MemoryListQuerySerializer, request.query_params)
        rows = list_memories(agent=agent_of(request), **filters)
        page = with_chains(list(self.paginate_queryset(rows)))
        return self.get_paginated_response([memory_as_dict(m) for m in page])

    def retrieve(self, request, pk=None):
        return Response(memory_as_dict(self.get_memory(pk)))

    @extend_schema(
        summary="Store a memory (through the write gate)",
        description=(
            "Noise is refused, secrets are refused (naming the kind, never echoing it), a near-duplicate in the same "
            "scope reinforces the existing memory. `outcome` says what happened: 201 created; 200 merged or "
            "duplicate (the existing memory is returned); 422 rejected (with `reason` and the error shape). "
            "`source` is the token's agent name."
        ),
        request=s.MemoryCreateSerializer,
        responses={
            201: s.WriteResultSerializer,
            200: OpenApiResponse(s.WriteResultSerializer, description="Folded into an existing memory."),
            422: OpenApiResponse(s.RejectedWriteSerializer, description="Refused by the gate."),
            **errors(400, 403, 413, 503),
        },
    )
    def create(self, request):
        timer = Timer()
        agent = agent_of(request)
        data = parse(s.MemoryCreateSerializer, request.data)
        agent.check_write(data.get("project") or None)
        # The one typed write, its fields checked here once; the gate judges it, the store trusts it.
        result = admit(new_memory(**data, source=agent.name, trusted=agent.trusted))
        body = write_answer(result)
        if result.outcome == "rejected":
            fields = result.fields or {"content": [result.reason]}
            body |= error_body(f"rejected_{result.kind}", result.reason, fields)
        record_usage(agent, "write", project=data.get("project") or None, timer=timer)
        return Response(body, status=WRITE_STATUS[result.outcome])

    @extend_schema(
        summary="Edit a memory",
        description="Only the fields sent change. The text is re-embedded when it changes and passes the noise rules; "
        "secrets are refused. `status` never enters or leaves `superseded` (a newer memory supersedes one; restore "
        "brings it back), a 400 naming the field. `expires_at` (a moment, or null for never) moves when the memory "
        "leaves search and recall; it is not an edit of the fact.",
        parameters=[_ID_PARAM],
        request=s.MemoryUpdateSerializer,
        responses={200: s.MemorySerializer, **errors(400, 403, 404, 413, 422)},
    )
    def partial_update(self, request, pk=None):
        timer = Timer()
        agent = agent_of(request)
        memory = self.get_memory(pk)
        changes = parse(s.MemoryUpdateSerializer, request.data)
        agent.check_write(memory.project)
        if "project" in changes:
            changes["project"] = changes["project"] or None
            agent.check_write(changes["project"])
        moves_expiry = "expires_at" in changes  # not an edit of the fact: its own rule (memories/checking.py)
        expires_at = changes.pop("expires_at", None)
        if changes or not moves_expiry:
            edit_memory(memory=memory, changes=changes, actor=agent.name, trusted=agent.trusted)
        if moves_expiry:
            set_expiry(memory=memory, expires_at=expires_at, actor=agent.name)
        memory.refresh_from_db()
        record_usage(agent, "write", project=memory.project, timer=timer)
        return Response(memory_as_dict(memory))

    @extend_schema(summary="Delete a memory", parameters=[_ID_PARAM], responses={204: None, **errors(403, 404)})
    def destroy(self, request, pk=None):
        timer = Timer()
        agent = agent_of(request)
        memory = self.get_memory(pk)
        agent.check_write(memory.project)
        project = memory.project
        delete_memory(memory=memory, actor=agent.name)
        record_usage(agent, "write", project=project, timer=timer)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        summary="Import memories as given (no gate)",
        description=(
            "For migration and restore: every item is validated first, then all are stored with their own fields "
            "and timestamps (no zone: UTC; clamped to 2000-01-01..now); `merged_into` must name another memory "
            "of the set (remapped to its new id) or of the store. No noise or duplicate judgement, but a secret "
            "anywhere refuses the whole import with 422 naming the item, field and kind. `source` is the token's "
            "agent name unless the token is listed in MEMORYHUB_RESTORE_AGENTS. Answers the new ids in input order."
        ),
        request=s.MemoryImportDocSerializer,
        responses={201: s.ImportResultSerializer, **errors(400, 403, 413, 422, 503)},
    )
    @action(detail=False, methods=["post"], url_path="import")
    def import_(self, request):
        timer = Timer()
        agent = agent_of(request)
        items = parse(s.MemoryImportSerializer, request.data)["memories"]
        agent.check_may_write()
        for project in {item.get("project") or None for item in items if isinstance(item.get("project"), str | None)}:
            agent.check_write(project)
        keep_source = agent.name in settings.MEMORYHUB_RESTORE_AGENTS
        # A restore keeps what it restores; any other import is judged as writes are (and an untrusted token's waits).
        ids = import_items(
            items=items, source=agent.name, actor=agent.name, keep_source=keep_source, allowed_projects=agent.projects,
            trusted=agent.trusted, judge_text=not keep_source,
        )  # fmt: skip
        record_usage(agent, "write", project=None, timer=timer)
        return Response({"imported": len(ids), "ids": ids}, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="The agent used this memory: reinforce it",
        description="Counts the use (a usage record) and restarts its decay clock; adds a small boost at most once "
        "in MEMORYHUB_REFRESH_BOOST_HOURS and never above MEMORYHUB_REFRESH_IMPORTANCE_CAP. Allowed for read-only "
        "tokens, as search reinforces what it returns.",
        parameters=[_ID_PARAM],
        request=None,
        responses={200: s.MemorySerializer, **errors(403, 404)},
    )
    @action(detail=True, methods=["post"])
    def refresh(self, request, pk=None):
        timer = Timer()
        memory = refresh_memory(memory=self.get_memory(pk), agent=agent_of(request).name, latency_ms=timer.ms)
        return Response(memory_as_dict(memory))

    @extend_schema(
        summary="Restore a superseded (or archived) memory",
        description="A superseded memory becomes active again and the link is undone on both sides: its successor "
        "stays active and no longer lists it, and the pair is remembered as two facts (never asked about again). "
        "An archived memory is brought back as the dashboard's restore does. 409 when it is neither.",
        parameters=[_ID_PARAM],
        request=None,
        responses={200: s.MemorySerializer, **errors(403, 404, 409)},
    )
    @action(detail=True, methods=["post"])
    def restore(self, request, pk=None):
        agent = agent_of(request)
        memory = self.get_memory(pk)
        agent.check_write(memory.project)
        try:
            memory = restore(memory=memory, actor=agent.name)
        except DjangoValidationError as exc:
            raise Conflict(" ".join(exc.messages)) from exc
        return Response(memory_as_dict(memory))

    @extend_schema(
        summary="The memory's history, oldest first",
        parameters=[_ID_PARAM],
        responses={200: s.HistoryResponseSerializer, **errors(403, 404)},
    )
    @action(detail=True, methods=["get"])
    def history(self, request, pk=None):
        memory = self.get_memory(pk)
        events = MemoryEvent.objects.filter(memory_id=memory.pk).order_by("created_at", "id")
        kinds = actor_kinds({e.actor for e in events})  # agent, person or system: the names never collide
        answer = [event_as_dict(e) | {"actor_kind": kinds[e.actor]} for e in events]
        return Response({"memory_id": memory.pk, "events": answer})
