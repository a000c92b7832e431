"""What a token is (whoami), and the ways memories move in from other tools: session capture and imports."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from api.auth import AgentAPIMixin, agent_of
from api.views.common import errors


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
