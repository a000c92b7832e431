"""What a token is (whoami), and the ways memories move in from other tools: session capture and imports."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from api.auth import AgentAPIMixin, agent_of
from api.views.common import errors, parse
from memoryhub.agents.capture import capture_session
from memoryhub.agents.tokens import Agent
from memoryhub.writes.importers import FORMATS, OUTCOMES, ImportFormatError, import_from, parse_text


class WhoamiSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="The agent name: the `source` of everything this token writes.")
    projects = serializers.ListField(
        child=serializers.CharField(), allow_null=True, help_text="The projects it may touch; null: every project."
    )
    read_only = serializers.BooleanField()
    default_project = serializers.CharField(
        allow_null=True,
        help_text="Where MCP, the chat proxy and tool calls work when a request names no project: the token's only "
        "project, else the server's MEMORYHUB_DEFAULT_PROJECT; null: none, so a write must name a project (or ask "
        'for "scope": "global").',
    )


class WhoamiView(AgentAPIMixin, APIView):
    @extend_schema(
        summary="The token's name, projects, read-only flag and default project",
        description=(
            "Hooks and the command-line client ask it to pick the project: a token limited to exactly one project "
            "works in that project unless MEMORYHUB_PROJECT says otherwise."
        ),
        responses={200: WhoamiSerializer, **errors()},
    )
    def get(self, request):
        agent = agent_of(request)
        projects = list(agent.projects) if agent.projects is not None else None
        return Response(
            {
                "name": agent.name,
                "projects": projects,
                "read_only": agent.read_only,
                "default_project": agent.default_project(),
            }
        )


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
    supersedes = serializers.ListField(
        child=serializers.IntegerField(), required=False, help_text="Memories this item replaced (now superseded)."
    )


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


def _checked_project(agent: Agent, data: dict) -> str | None:
    """The project a request works in, checked against the token: a dry run only reads, a real run writes."""
    project = default_project(agent, data.get("project"))
    if data["dry_run"]:
        agent.check_read(project)
    else:
        agent.check_write(project)
    return project


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
        project = _checked_project(agent, data)
        files = data.get("files") or [
            {"name": data.get("name") or f"upload.{data['format']}", "content": data["content"]}
        ]
        try:
            items = [
                item for f in files for item in parse_text(format=data["format"], text=f["content"], name=f["name"])
            ]
            report = import_from(format=data["format"], items=items, project=project, source=agent.name,
                                 dry_run=data["dry_run"], trusted=agent.trusted)  # fmt: skip
        except ImportFormatError as exc:
            raise serializers.ValidationError({"content": [str(exc)]}) from exc
        return Response(report.counts | {"summary": report.summary(), "dry_run": report.dry_run,
                                         "items": [o.as_dict() for o in report.outcomes]})  # fmt: skip


# --- capture at session end -------------------------------------------------------------------------------------

MAX_TURNS = 5000


class TurnSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=[("user", "user"), ("assistant", "assistant")])
    text = serializers.CharField(trim_whitespace=False)


class CaptureSerializer(serializers.Serializer):
    turns = TurnSerializer(many=True, help_text="The session's said text, oldest first (scripts/hooks reads it).")
    project = serializers.CharField(
        required=False, allow_null=True, allow_blank=True, max_length=200,
        help_text="Default: the token's only project, else global.",
    )  # fmt: skip
    session_id = serializers.CharField(required=False, allow_blank=True, max_length=200, default="")
    dry_run = serializers.BooleanField(default=False)

    def validate_turns(self, turns):
        if len(turns) > MAX_TURNS:
            raise serializers.ValidationError(f"at most {MAX_TURNS} turns; send the end of the session")
        return turns


class CapturedItemSerializer(serializers.Serializer):
    content = serializers.CharField(help_text="The fact; a secret in it is redacted.")
    category = serializers.CharField(allow_blank=True)
    rule = serializers.CharField(help_text="The rule that picked it, or llm.")
    outcome = serializers.ChoiceField(choices=[(o, o) for o in OUTCOMES])
    reason = serializers.CharField()
    memory_id = serializers.IntegerField(allow_null=True)


class CaptureResultSerializer(serializers.Serializer):
    extractor = serializers.CharField(help_text="rules, or llm:<model>")
    note = serializers.CharField(allow_blank=True, help_text="Why the rules ran although an LLM is configured.")
    dry_run = serializers.BooleanField()
    counts = serializers.DictField(child=serializers.IntegerField())
    items = CapturedItemSerializer(many=True)


class CaptureView(AgentAPIMixin, APIView):
    @extend_schema(
        summary="Capture the durable facts of a session, each through the write gate",
        description=(
            "Picks decisions, gotchas met and fixed, preferences the person stated and procedures that worked from "
            "the turns (an LLM when one is configured, otherwise rules), at most MEMORYHUB_CAPTURE_MAX_PER_SESSION, "
            "and sends each through the gate with `session_id` in metadata. With `dry_run` nothing is stored and "
            "each item says what the gate would decide."
        ),
        request=CaptureSerializer,
        responses={200: CaptureResultSerializer, **errors(400, 403, 413, 503)},
    )
    def post(self, request):
        agent = agent_of(request)
        data = parse(CaptureSerializer, request.data)
        project = _checked_project(agent, data)
        turns = [{"role": t["role"], "text": t["text"]} for t in data["turns"]]
        report = capture_session(turns=turns, project=project, session_id=data["session_id"], source=agent.name,
                                 dry_run=data["dry_run"], trusted=agent.trusted)  # fmt: skip
        return Response({"extractor": report.extractor, "note": report.note, "dry_run": report.dry_run,
                         "counts": report.counts, "items": [i.as_dict() for i in report.items]})  # fmt: skip
