"""What a token is (whoami), and the ways memories move in from other tools: session capture and imports."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from api.auth import AgentAPIMixin, agent_of
from api.views.common import errors, parse
from memoryhub.agents.tokens import Agent
from memoryhub.memories.importers import FORMATS, OUTCOMES, ImportFormatError, import_from, parse_text


class WhoamiSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="The agent name: the `source` of everything this token writes.")
    projects = serializers.ListField(
        child=serializers.CharField(), allow_null=True, help_text="The projects it may touch; null: every project."
    )
    read_only = serializers.BooleanField()


class WhoamiView(AgentAPIMixin, APIView):
    @extend_schema(
        summary="The token's name, projects and read-only flag",
        description=(
            "Hooks and the command-line client ask it to pick the project: a token limited to exactly one project "
            "works in that project unless MEMORYHUB_PROJECT says otherwise."
        ),
        responses={200: WhoamiSerializer, **errors()},
    )
    def get(self, request):
        agent = agent_of(request)
        projects = list(agent.projects) if agent.projects is not None else None
        return Response({"name": agent.name, "projects": projects, "read_only": agent.read_only})


# --- moving in from other tools -------------------------------------------------------------------------------


class ImportFileSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=500, help_text="The file's path as shown in the report, e.g. CLAUDE.md.")
    content = serializers.CharField(allow_blank=True, trim_whitespace=False)


class ImportFromSerializer(serializers.Serializer):
    format = serializers.ChoiceField(choices=[(f, f) for f in FORMATS])
    content = serializers.CharField(
        required=False, allow_blank=True, trim_whitespace=False, help_text="The file's text (one file)."
    )
    name = serializers.CharField(required=False, max_length=500, help_text="The file's name, for the report.")
    files = ImportFileSerializer(many=True, required=False, help_text="Several files (markdown): a folder's worth.")
    project = serializers.CharField(
        required=False, allow_null=True, allow_blank=True, max_length=200,
        help_text="Where every item goes. Default: the token's only project, else global.",
    )  # fmt: skip
    dry_run = serializers.BooleanField(default=False)

    def validate(self, attrs):
        if ("content" in attrs) == bool(attrs.get("files")):
            raise serializers.ValidationError({"content": ["give the file's text in content, or files, not both"]})
        return attrs


class ImportItemResultSerializer(serializers.Serializer):
    origin = serializers.CharField()
    content = serializers.CharField(help_text="The item's text; a secret in it is redacted.")
    outcome = serializers.ChoiceField(choices=[(o, o) for o in OUTCOMES])
    reason = serializers.CharField()
    memory_id = serializers.IntegerField(allow_null=True)


class ImportFromResultSerializer(serializers.Serializer):
    created = serializers.IntegerField()
    merged = serializers.IntegerField()
    duplicate = serializers.IntegerField()
    rejected = serializers.IntegerField()
    summary = serializers.CharField(help_text="'N created, N merged, N duplicate, N rejected'")
    dry_run = serializers.BooleanField()
    items = ImportItemResultSerializer(many=True)


def default_project(agent: Agent, requested: str | None) -> str | None:
    """The project named, else the token's only project, else none (global)."""
    if requested:
        return requested.strip()
    if agent.projects is not None and len(agent.projects) == 1:
        return agent.projects[0]
    return None


class ImportFromView(AgentAPIMixin, APIView):
    @extend_schema(
        summary="Import another tool's memories through the write gate",
        description=(
            "`format`: `mcp-memory` (the reference MCP memory server's file), `mem0` (mem0's get_all JSON) or "
            "`markdown` (CLAUDE.md, AGENTS.md, .cursorrules, Basic Memory notes). Every item passes the gate "
            "(secrets refused, duplicates folded, noise refused); the answer counts and lists what happened to "
            "each. With `dry_run` nothing is stored and the answer says what the gate would decide."
        ),
        request=ImportFromSerializer,
        responses={200: ImportFromResultSerializer, **errors(400, 403, 413, 503)},
    )
    def post(self, request):
        agent = agent_of(request)
        data = parse(ImportFromSerializer, request.data)
        project = default_project(agent, data.get("project"))
        if data["dry_run"]:
            agent.check_read(project)
        else:
            agent.check_write(project)
        files = data.get("files") or [
            {"name": data.get("name") or f"upload.{data['format']}", "content": data["content"]}
        ]
        try:
            items = [
                item for f in files for item in parse_text(format=data["format"], text=f["content"], name=f["name"])
            ]
            report = import_from(format=data["format"], items=items, project=project, source=agent.name,
                                 dry_run=data["dry_run"])  # fmt: skip
        except ImportFormatError as exc:
            raise serializers.ValidationError({"content": [str(exc)]}) from exc
        return Response(report.counts | {"summary": report.summary(), "dry_run": report.dry_run,
                                         "items": [o.as_dict() for o in report.outcomes]})  # fmt: skip
