"""GET /proposals, POST proposals/run, accept (optionally edited), reject and undo."""

from __future__ import annotations

import pytest

from memoryhub.memories.store import create_memory
from memoryhub.models import Memory, Proposal
from tests.api.conftest import error_of

pytestmark = pytest.mark.django_db

PROPOSAL_FIELDS = {"id", "status", "sources", "content", "category", "tier", "tags", "importance", "rationale",
                   "merged_memory"}  # fmt: skip


def make_proposal(project: str | None = "alpha", status: str = "pending") -> Proposal:
    a = create_memory(content=f"The {project} API answers on port 8080", project=project)
    b = create_memory(content=f"The {project} API listens on port 8080 over HTTP", project=project)
    return Proposal.objects.create(
        sources=[a.pk, b.pk], cluster_key=f"{a.pk},{b.pk}", project=project, status=status,
        content=f"The {project} API listens on port 8080 (HTTP)", category="fact", tier="semantic", tags=["api"],
        importance=0.6, rationale="two memories say the same thing",
    )  # fmt: skip


def test_the_list_answers_proposals_with_their_fields_and_filters_by_status(curator):
    pending = make_proposal()
    rejected = make_proposal(project="gamma", status="rejected")
    response = curator.get("proposals")
    assert response.status_code == 200
    results = response.json()["results"]
    assert [p["id"] for p in results] == [rejected.pk, pending.pk]
    assert PROPOSAL_FIELDS <= set(results[1])
    assert results[1]["sources"] == pending.sources and results[1]["merged_memory"] is None
    assert [p["id"] for p in curator.get("proposals", status="pending").json()["results"]] == [pending.pk]


def test_a_bad_status_filter_is_a_400(curator):
    response = curator.get("proposals", status="maybe")
    assert response.status_code == 400
    assert list(error_of(response)["fields"]) == ["status"]


def test_a_project_token_sees_only_its_projects_proposals(claude, codex):
    alpha, beta = make_proposal("alpha"), make_proposal("beta")
    assert [p["id"] for p in claude.get("proposals").json()["results"]] == [alpha.pk]
    assert [p["id"] for p in codex.get("proposals").json()["results"]] == [beta.pk]
    assert claude.get(f"proposals/{beta.pk}").status_code == 404


def test_accepting_merges_the_sources_into_a_new_memory(claude):
    proposal = make_proposal()
    response = claude.post(f"proposals/{proposal.pk}/accept", {"content": "The alpha API listens on HTTP port 8080"})
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "accepted"
    assert body["merged_memory"] == body["memory"]["id"]
    assert body["memory"]["content"] == "The alpha API listens on HTTP port 8080"
    sources = Memory.objects.filter(pk__in=proposal.sources)
    assert {m.status for m in sources} == {"archived"}
    assert {m.merged_into_id for m in sources} == {body["merged_memory"]}


def test_accepting_twice_is_a_409_and_undo_restores_the_sources(claude):
    proposal = make_proposal()
    assert claude.post(f"proposals/{proposal.pk}/accept").status_code == 200
    again = claude.post(f"proposals/{proposal.pk}/accept")
    assert again.status_code == 409
    assert "accepted" in error_of(again)["message"]
    undone = claude.post(f"proposals/{proposal.pk}/undo")
    assert undone.status_code == 200
    assert undone.json()["status"] == "undone"
    assert {m.status for m in Memory.objects.filter(pk__in=proposal.sources)} == {"active"}


def test_rejecting_marks_the_proposal_and_leaves_the_memories(claude):
    proposal = make_proposal()
    response = claude.post(f"proposals/{proposal.pk}/reject")
    assert response.status_code == 200
    assert response.json()["status"] == "rejected"
    assert {m.status for m in Memory.objects.filter(pk__in=proposal.sources)} == {"active"}
    assert claude.post(f"proposals/{proposal.pk}/reject").status_code == 409
    assert claude.post(f"proposals/{proposal.pk}/undo").status_code == 409


def test_an_empty_edited_content_is_a_400_naming_it(claude):
    proposal = make_proposal()
    response = claude.post(f"proposals/{proposal.pk}/accept", {"content": 12})
    assert response.status_code == 400
    assert list(error_of(response)["fields"]) == ["content"]
    proposal.refresh_from_db()
    assert proposal.status == "pending"


def test_unknown_proposals_are_404(claude):
    for verb in ("accept", "reject", "undo"):
        assert claude.post(f"proposals/999999/{verb}").status_code == 404


def test_deciding_is_forbidden_across_projects_and_for_read_only_tokens(codex, reader):
    proposal = make_proposal("alpha")
    for verb in ("accept", "reject", "undo"):
        assert codex.post(f"proposals/{proposal.pk}/{verb}").status_code == 404
        assert reader.post(f"proposals/{proposal.pk}/{verb}").status_code == 403
    proposal.refresh_from_db()
    assert proposal.status == "pending"


def test_a_run_proposes_clusters_of_near_duplicates(claude):
    create_memory(content="The alpha API answers requests on port 8080", project="alpha")
    create_memory(content="The alpha API answers requests on port 8080 over HTTP", project="alpha")
    response = claude.post("proposals/run", {"project": "alpha"})
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["created"] == len(body["proposals"]) >= 1
    assert all(p["status"] == "pending" for p in body["proposals"])


def test_running_over_another_project_or_read_only_is_forbidden(claude, reader):
    assert claude.post("proposals/run", {"project": "beta"}).status_code == 403
    assert reader.post("proposals/run", {}).status_code == 403
