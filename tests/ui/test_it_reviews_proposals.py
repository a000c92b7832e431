"""Consolidation review: the queue with sources beside the proposed text, accept (edited), reject, undo, run."""

from __future__ import annotations

import json

import pytest

from memoryhub.models import Memory, Proposal
from tests.ui.conftest import HX, remember


@pytest.fixture
def proposal(db) -> Proposal:
    a = remember("Run the shopfront tests with pytest -n auto and --reuse-db in about four minutes", project="shop")
    b = remember("The shopfront tests run with pytest -n auto --reuse-db", project="shop")
    return Proposal.objects.create(
        sources=[a.pk, b.pk],
        cluster_key=f"{a.pk},{b.pk}",
        project="shop",
        category="skill",
        tier="procedural",
        tags=["testing"],
        content="Run the shopfront tests with pytest -n auto --reuse-db (about four minutes on CI)",
        rationale="2 memories say nearly the same thing",
    )


def test_the_queue_shows_sources_beside_the_proposal_with_the_differences_marked(ui, proposal):
    html = ui.get("/proposals/").content.decode()
    card = html[html.index(f'id="proposal-{proposal.pk}"') :]
    assert "2 memories say nearly the same thing" in card
    assert "<del>run</del>" in card  # a word of a source the proposal dropped (moved, here)
    assert "<del>in</del>" not in card and "<del>and</del>" not in card  # words that carry no fact are not marked
    assert "<ins>CI)</ins>" in card  # words the proposal added
    assert f'name="p{proposal.pk}-content"' in card
    assert ">Accept<" in card and ">Reject<" in card


def test_accepting_with_an_edited_text_merges_the_sources(ui, proposal):
    response = ui.post(
        f"/proposals/{proposal.pk}/accept/", {f"p{proposal.pk}-content": "Edited merged text here"}, **HX
    )
    html = response.content.decode()
    proposal.refresh_from_db()
    merged = proposal.merged_memory
    assert response.status_code == 200
    assert proposal.status == "accepted" and merged.content == "Edited merged text here"
    assert set(Memory.objects.filter(merged_into=merged).values_list("pk", flat=True)) == set(proposal.sources)
    assert ">accepted<" in html and "Undo merge" in html
    assert json.loads(response["HX-Trigger"])["notice"]["text"].endswith(f"merged into memory #{merged.pk}.")


def test_accepting_without_an_edit_keeps_the_proposed_text(ui, proposal):
    ui.post(f"/proposals/{proposal.pk}/accept/", {f"p{proposal.pk}-content": ""}, **HX)
    proposal.refresh_from_db()
    assert proposal.merged_memory.content == proposal.content


def test_undo_brings_the_sources_back(ui, proposal):
    ui.post(f"/proposals/{proposal.pk}/accept/", {}, **HX)
    proposal.refresh_from_db()
    merged_id = proposal.merged_memory_id
    html = ui.post(f"/proposals/{proposal.pk}/undo/", **HX).content.decode()
    proposal.refresh_from_db()
    assert proposal.status == "undone" and ">undone<" in html
    assert set(Memory.objects.filter(pk__in=proposal.sources).values_list("status", flat=True)) == {"active"}
    assert Memory.objects.get(pk=merged_id).status == "archived"


def test_rejecting_records_the_decision_and_changes_no_memory(ui, proposal):
    html = ui.post(f"/proposals/{proposal.pk}/reject/", **HX).content.decode()
    proposal.refresh_from_db()
    assert proposal.status == "rejected" and proposal.decided_by == "curator"
    assert ">rejected<" in html
    assert set(Memory.objects.filter(pk__in=proposal.sources).values_list("status", flat=True)) == {"active"}


def test_accepting_twice_is_refused_with_a_message(ui, proposal):
    ui.post(f"/proposals/{proposal.pk}/accept/", {}, **HX)
    response = ui.post(f"/proposals/{proposal.pk}/accept/", {}, **HX)
    assert response.status_code == 409
    assert f"Proposal #{proposal.pk} is accepted" in response.content.decode()
    assert Memory.objects.filter(merged_into__isnull=False).count() == 2


def test_a_missing_proposal_gets_a_message(ui, db):
    for action in ("accept", "reject", "undo"):
        response = ui.post(f"/proposals/999/{action}/", **HX)
        assert response.status_code == 404 and "Proposal #999 does not exist" in response.content.decode()


def test_the_status_tabs_filter_the_queue(ui, proposal):
    ui.post(f"/proposals/{proposal.pk}/reject/", **HX)
    assert f'id="proposal-{proposal.pk}"' not in ui.get("/proposals/", **HX).content.decode()
    assert f'id="proposal-{proposal.pk}"' in ui.get("/proposals/?status=rejected", **HX).content.decode()
    assert "Unknown status" in ui.get("/proposals/?status=bogus").content.decode()


def test_running_a_pass_proposes_the_planted_duplicates(ui, db):
    a = remember("Celery workers must be restarted after changing the beat schedule", project="shop")
    b = remember("Celery workers must be restarted after changing the beat schedule setting", project="shop")
    response = ui.post("/proposals/run/", {"project": "shop"}, **HX)
    html = response.content.decode()
    proposal = Proposal.objects.get()
    assert set(proposal.sources) == {a.pk, b.pk} and proposal.status == "pending"
    assert f'id="proposal-{proposal.pk}"' in html
    assert json.loads(response["HX-Trigger"])["notice"]["text"] == "Consolidation pass done: 1 new proposal."


def test_the_tabs_count_each_status_and_kind_and_the_kind_filter_keeps_one(ui, proposal):
    older = remember("The shop's CI runs on Jenkins", project="shop")
    newer = remember("The shop's CI runs on Buildkite", project="shop")
    conflict = Proposal.objects.create(
        kind="conflict", sources=[older.pk, newer.pk], cluster_key=f"conflict:{older.pk},{newer.pk}", project="shop",
        content=newer.content, rationale="Which is current?",
    )  # fmt: skip
    html = ui.get("/proposals/").content.decode()
    assert 'pending <span class="count">2</span>' in html
    assert 'merges <span class="count">1</span>' in html and 'conflicts <span class="count">1</span>' in html
    only = ui.get("/proposals/?kind=conflict").content.decode()
    assert f'id="proposal-{conflict.pk}"' in only and f'id="proposal-{proposal.pk}"' not in only
    assert 'pending <span class="count">1</span>' in only
    assert "Unknown kind" in ui.get("/proposals/?kind=foo").content.decode()


def test_rejecting_a_merge_offers_undo_and_the_undo_makes_it_pending_again(ui, proposal):
    response = ui.post(f"/proposals/{proposal.pk}/reject/", **HX)
    assert f"/proposals/{proposal.pk}/undo/" in response["HX-Trigger"]
    proposal.refresh_from_db()
    assert proposal.status == "rejected"
    ui.post(f"/proposals/{proposal.pk}/undo/", **HX)
    proposal.refresh_from_db()
    assert (proposal.status, proposal.decided_by) == ("pending", "")


def test_a_merge_card_shows_what_a_source_would_lose(ui, proposal):
    source = Memory.objects.get(pk=proposal.sources[0])
    Memory.objects.filter(pk=source.pk).update(tags=["testing", "flaky"], confirmed=True, access_count=3)
    card = ui.get("/proposals/").content.decode()
    assert "<strong>confirmed</strong>" in card and "used 3 times" in card
    assert '<del title="not in the proposal\'s tags">flaky</del>' in card
    assert '<del title="not in the proposal\'s tags">testing</del>' not in card  # the proposal keeps that tag
