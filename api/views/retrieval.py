"""Health, search, recall, export and the agents' tools."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpResponse, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from api import serializers as s
from api.auth import AgentAPIMixin, agent_of
from api.views.common import Timer, errors, parse_query, reading, record_usage
from memoryhub.agents.tools import call_tool, tool_schemas
from memoryhub.embeddings import get_embedder
from memoryhub.memories.supersession import with_chains
from memoryhub.models import Memory
from memoryhub.retrieval.moments import statuses_at, then_and_now
from memoryhub.retrieval.recall import build_recall
from memoryhub.retrieval.search import MemoryFilter, search_memories, wanted_statuses
from memoryhub.writes.exports import export_jsonl, export_markdown, export_queryset
from memoryhub.writes.importers import export_mcp_memory
from memoryhub.writes.shape import memory_as_dict


class HealthView(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]

    @extend_schema(summary="Is the service up (no token needed)", auth=[], responses={200: s.HealthSerializer})
    def get(self, request):
        return Response({"status": "ok", "memories": Memory.objects.count(), "embed_model": get_embedder().model_id})


class SearchView(AgentAPIMixin, APIView):
    @extend_schema(
        summary="Hybrid search (keyword + semantic), best first",
        description=(
            "Searches `project` and the global memories (globals only without `project`), within the token's "
            "scope. Results carry every memory field plus `score` (their order) and `explain`; returning them "
            "reinforces them. Only results that clear the relevance floor are returned, so a query that matches "
            'nothing answers `{"results": []}`: `explain.match` (0-1) is how well the memory matches whatever '
            "else the store holds, and `explain.channels` names the channels that matched and how strongly: "
            "`words` (share of the query's words it holds), `identifier` (share of the query's identifiers found "
            "verbatim) and `meaning` (embedding similarity, 0 at what unrelated text gets). `min_score` sets the "
            "floor for one request (default: the MEMORYHUB_SEARCH_MIN_SCORE setting). With `as_of` (ISO 8601) it "
            "finds the memories true at that moment (superseded ones included, later ones and those expired by then "
            "left out), and each result carries `true_now`: whether that fact still holds. Without it, a memory "
            "past its `expires_at` is never returned."
        ),
        request=s.SearchRequestSerializer,
        responses={200: s.SearchResponseSerializer, **errors(400, 403, 413, 503)},
    )
    def post(self, request):
        timer = Timer()
        agent, data, project = reading(request, s.SearchRequestSerializer)
        as_of = data.get("as_of")
        status = wanted_statuses(data.get("status"), include_superseded=data.get("include_superseded", False))
        within = MemoryFilter(
            visible_from=project, allowed_projects=agent.projects, category=data.get("category"),
            tier=data.get("tier"), tags=data.get("tags") or None, source=data.get("source") or None,
            status=statuses_at(status, as_of), as_of=as_of,
        )  # fmt: skip
        hits = search_memories(query=data["query"], within=within, k=data["k"], mode=data["mode"],
                               reinforce_results=as_of is None, min_score=data.get("min_score"))  # fmt: skip
        with_chains([h.memory for h in hits])
        results = [memory_as_dict(h.memory) | {"score": h.score, "explain": h.explain} | then_and_now(h.memory, as_of)
                   for h in hits]  # fmt: skip
        record_usage(agent, "search", project=project, timer=timer)
        return Response({"results": results})


class RecallView(AgentAPIMixin, APIView):
    @extend_schema(
        summary="A compact block of what the agent should already know",
        description=(
            f"Within `budget_chars` (default {settings.MEMORYHUB_RECALL_BUDGET_CHARS}, the server's "
            "MEMORYHUB_RECALL_BUDGET_CHARS), answer first: with a `query`, its best matches that clear the "
            "search relevance floor come first, best first (at most 5); what is left of the budget then holds the "
            "always-on facts: the person's global preferences and environment, and the project's confirmed, "
            "important or recently used facts, by effective importance. Without a `query` (or when nothing "
            "matches it) the block is only the always-on facts. One line per memory, trimmed to fit, ending with "
            "its id; `memory_ids` lists the ids in the order shown. Never longer than `budget_chars`."
        ),
        request=s.RecallRequestSerializer,
        responses={200: s.RecallResponseSerializer, **errors(400, 403, 413, 503)},
    )
    def post(self, request):
        timer = Timer()
        agent, data, project = reading(request, s.RecallRequestSerializer)
        block = build_recall(
            project=project,
            query=data.get("query") or None,
            budget_chars=data.get("budget_chars"),
            allowed_projects=agent.projects,
            as_of=data.get("as_of"),
        )
        record_usage(agent, "recall", project=project, timer=timer, recall_chars=len(block.text))
        return Response({"text": block.text, "memory_ids": block.memory_ids})


class ToolsView(AgentAPIMixin, APIView):
    @extend_schema(
        summary="Memory tools in OpenAI function-calling shape",
        responses={200: s.ToolsResponseSerializer, **errors()},
    )
    def get(self, request):
        return Response({"tools": tool_schemas()})


class ToolCallView(AgentAPIMixin, APIView):
    @extend_schema(
        summary="Run one memory tool call",
        description=(
            "Same code paths and gate as the REST calls. With a `turn_id`, at most MEMORYHUB_TOOL_CALLS_PER_TURN "
            "calls run per turn; past that the answer (200, `limited: true`) tells the model to use what it has."
        ),
        request=s.ToolCallRequestSerializer,
        responses={200: s.ToolCallResponseSerializer, **errors(400, 403, 404, 413, 422, 503)},
    )
    def post(self, request):
        agent, data, project = reading(request, s.ToolCallRequestSerializer)
        answer = call_tool(
            name=data["name"], arguments=data.get("arguments"), agent=agent, turn_id=data.get("turn_id") or None,
            default_project=project or agent.default_project(),
        )  # fmt: skip
        return Response(answer)


class IgnoreFormatParam(BaseContentNegotiation):
    """`?format=` is this endpoint's own parameter, not DRF's renderer switch (which would 404 on `jsonl`)."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class ExportView(AgentAPIMixin, APIView):
    content_negotiation_class = IgnoreFormatParam

    @extend_schema(
        summary="Export everything the token may see",
        description="`jsonl` (default): one memory per line with every field, importable by POST memories/import. "
        "`markdown`: a readable file grouped by project and category. `mcp-memory`: the reference MCP memory "
        "server's file (entities and relations, one JSON object a line).",
        parameters=[
            OpenApiParameter(
                "format", OpenApiTypes.STR, enum=["jsonl", "markdown", "mcp-memory"], description="Default jsonl."
            ),
        ],
        responses={
            (200, "application/x-ndjson"): OpenApiResponse(OpenApiTypes.STR, description="JSON lines."),
            (200, "text/markdown"): OpenApiResponse(OpenApiTypes.STR, description="Markdown."),
            **errors(400),
        },
    )
    def get(self, request):
        agent = agent_of(request)
        chosen = parse_query(s.ExportQuerySerializer, request.query_params).get("format") or "jsonl"
        rows = export_queryset(agent.projects)
        if chosen == "mcp-memory":
            response = StreamingHttpResponse(export_mcp_memory(rows.iterator()), content_type="application/x-ndjson")
            response["Content-Disposition"] = 'attachment; filename="memory.json"'
            return response
        if chosen == "markdown":
            response = HttpResponse(export_markdown(rows.iterator()), content_type="text/markdown; charset=utf-8")
            response["Content-Disposition"] = 'attachment; filename="memoryhub-export.md"'
            return response
        response = StreamingHttpResponse(export_jsonl(rows.iterator()), content_type="application/x-ndjson")
        response["Content-Disposition"] = 'attachment; filename="memoryhub-export.jsonl"'
        return response
