"""/proposals: consolidation proposals, a consolidation run, and a person's (or agent's) decisions."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import Q
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from api import serializers as s
from api.auth import AgentAPIMixin, agent_of
from api.errors import Conflict
from api.views.common import errors, parse, parse_query
from api.views.memories import IdCursorPagination, sqlite_id
from memoryhub.agents.tokens import AccessDenied, Agent
from memoryhub.consolidation.proposals import (
    accept_proposal,
    reject_proposal,
    run_consolidation,
    source_projects,
    undo_proposal,
)
from memoryhub.models import Proposal
from memoryhub.writes.shape import memory_as_dict

_ID_PARAM = OpenApiParameter("id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The proposal's id.")


def _decide(call, **kwargs):
    """The domain raises ValidationError for a proposal in the wrong state (409) or a bad field (400)."""
    try:
        return call(**kwargs)
    except DjangoValidationError as exc:
        if hasattr(exc, "error_dict") and set(exc.error_dict) - {"__all__", "status", "proposal"}:
            raise
        raise Conflict(" ".join(exc.messages)) from exc


@extend_schema_view(
    list=extend_schema(
        summary="List consolidation proposals",
        parameters=[s.ProposalListQuerySerializer],
        responses={200: s.ProposalSerializer(many=True), **errors(400)},
    ),
    retrieve=extend_schema(
        summary="Read a proposal", parameters=[_ID_PARAM], responses={200: s.ProposalSerializer, **errors(403, 404)}
    ),
)
class ProposalViewSet(AgentAPIMixin, viewsets.GenericViewSet):
    serializer_class = s.ProposalSerializer
    pagination_class = IdCursorPagination
    lookup_value_regex = r"\d+"
    queryset = Proposal.objects.none()

    def scoped(self):
        agent = agent_of(self.request)
        rows = Proposal.objects.all()
        if agent.projects is not None:
            rows = rows.filter(Q(project__in=agent.projects) | Q(project__isnull=True))
        return rows

    def get_proposal(self, pk) -> Proposal:
        try:
            proposal = Proposal.objects.get(pk=sqlite_id(pk))
        except (Proposal.DoesNotExist, ValueError) as exc:
            raise NotFound(f"no proposal #{pk}") from exc
        if not agent_of(self.request).may_see(proposal.project):
            raise NotFound(f"no proposal #{pk}")  # exactly as a missing one: no oracle for ids
        return proposal

    def check_decide(self, agent: Agent, proposal: Proposal) -> None:
        """Deciding needs write access to the proposal's project and sight of every source: a memory moved to a
        project the token cannot see is never superseded or merged from here."""
        agent.check_write(proposal.project)
        if not all(agent.may_see(project) for project in source_projects(proposal)):
            raise AccessDenied(f"proposal #{proposal.pk} has sources this token cannot see; nothing changed")

    def list(self, request):
        filters = parse_query(s.ProposalListQuerySerializer, request.query_params)
        rows = self.scoped()
        for name in ("status", "kind"):
            if filters.get(name):
                rows = rows.filter(**{name: filters[name]})
        page = self.paginate_queryset(rows)
        return self.get_paginated_response([s.proposal_as_dict(p) for p in page])

    def retrieve(self, request, pk=None):
        return Response(s.proposal_as_dict(self.get_proposal(pk)))

    @extend_schema(
        summary="Run a consolidation pass",
        description="Clusters related or duplicate memories into pending proposals. A project-scoped token runs it "
        "over its own projects.",
        request=s.ProposalRunSerializer,
        responses={200: s.ProposalRunResponseSerializer, **errors(400, 403, 503)},
    )
    @action(detail=False, methods=["post"])
    def run(self, request):
        agent = agent_of(request)
        project = parse(s.ProposalRunSerializer, request.data or {}).get("project") or None
        if project or agent.projects is None:
            agent.check_write(project)  # a scoped token may not run over global memories
        else:
            agent.check_may_write()
        targets = [project] if project or agent.projects is None else list(agent.projects)
        proposals = [p for target in targets for p in run_consolidation(project=target, actor=agent.name)]
        return Response({"created": len(proposals), "proposals": [s.proposal_as_dict(p) for p in proposals]})

    @extend_schema(
        summary="Accept a proposal (optionally with edited content; a conflict with its `choice`)",
        description="A merge proposal: the merged memory is created and the sources archived into it. A conflict "
        "proposal (`kind: conflict`, sources older first): `choice` newer (default) supersedes the older, older "
        "supersedes the newer, both keeps both and the pair is never asked about again. Rejecting a conflict is "
        "the same as `both`. `choice` on a merge proposal, or an unknown one, is a 400 naming the field. 409 when "
        "the proposal is not pending, or went stale: a source's text, project or status changed since it was made "
        "(it is then closed as `stale`). 403 when a source is in a project the token cannot see.",
        parameters=[_ID_PARAM],
        request=s.ProposalAcceptSerializer,
        responses={200: s.ProposalDecisionSerializer, **errors(400, 403, 404, 409, 422, 503)},
    )
    @action(detail=True, methods=["post"])
    def accept(self, request, pk=None):
        agent = agent_of(request)
        proposal = self.get_proposal(pk)
        data = parse(s.ProposalAcceptSerializer, request.data or {})
        self.check_decide(agent, proposal)
        memory = _decide(accept_proposal, proposal=proposal, content=data.get("content") or None,
                         choice=data.get("choice") or None, actor=agent.name)  # fmt: skip
        proposal.refresh_from_db()
        return Response(s.proposal_as_dict(proposal) | {"memory": memory_as_dict(memory) if memory else None})

    @extend_schema(
        summary="Reject a proposal",
        parameters=[_ID_PARAM],
        request=None,
        responses={200: s.ProposalSerializer, **errors(403, 404, 409, 503)},
    )
    @action(detail=True, methods=["post"])
    def reject(self, request, pk=None):
        return self._decision(request, pk, reject_proposal)

    @extend_schema(
        summary="Undo an accepted proposal (restores the source memories)",
        parameters=[_ID_PARAM],
        request=None,
        responses={200: s.ProposalSerializer, **errors(403, 404, 409, 503)},
    )
    @action(detail=True, methods=["post"])
    def undo(self, request, pk=None):
        return self._decision(request, pk, undo_proposal)

    def _decision(self, request, pk, decide) -> Response:
        agent = agent_of(request)
        proposal = self.get_proposal(pk)
        self.check_decide(agent, proposal)
        _decide(decide, proposal=proposal, actor=agent.name)
        proposal.refresh_from_db()
        return Response(s.proposal_as_dict(proposal))
