"""The supersession chain never breaks, whatever path a memory leaves by, and a proposal is decided only about the
memories it showed: a source whose text, project or status changed since makes it stale (409), a source the caller
cannot see refuses it (403), and `choice` is a conflict's answer alone (400 otherwise, on every face)."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction
from django.test import Client
from django.utils import timezone

from memoryhub.consolidation.proposals import accept_proposal, undo_proposal
from memoryhub.memories.chain import orphaned_superseded
from memoryhub.memories.health import run_checks
from memoryhub.memories.lifecycle import run_decay_sweep
from memoryhub.memories.supersession import queue_conflict, supersede
from memoryhub.models import Memory, MemoryEvent, Proposal, ProposalKind, Status
from tests.api.conftest import error_of
from tests.factories import remember

pytestmark = pytest.mark.django_db

OLD = "The shopfront API listens on port 8000."
NEW = "The shopfront API now listens on port 9000 since the reverse-proxy change."
QUESTION = "What port does the shopfront API listen on?"
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def ui(db) -> Client:
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("person", password="a-long-test-password"))
    return client


@pytest.fixture
def chain(claude) -> tuple[int, int]:
    """OLD superseded by NEW, both written by an agent through the gate."""
    old = claude.store(OLD, project="alpha").json()["memory"]["id"]
    body = claude.store(NEW, project="alpha").json()
    assert body["supersedes"] == [old]
    return old, body["memory"]["id"]


@pytest.fixture
def conflict(curator) -> dict:
    """A pending conflict about a pair stored before supersession existed (an import takes them as given)."""
    items = [
        {"content": OLD, "project": "alpha", "created_at": "2026-01-05T10:00:00Z"},
        {"content": NEW, "project": "alpha", "created_at": "2026-03-01T10:00:00Z"},
    ]
    assert curator.post("memories/import", {"memories": items}).status_code == 201
    (proposal,) = curator.post("proposals/run", {"project": "alpha"}).json()["proposals"]
    assert proposal["kind"] == "conflict"
    return proposal


@pytest.fixture
def merge(db) -> Proposal:
    a = remember("Run the shopfront tests with pytest -n auto and --reuse-db in about four minutes", project="alpha")
    b = remember("The shopfront tests run with pytest -n auto --reuse-db", project="alpha")
    text = "Run the shopfront tests with pytest -n auto --reuse-db (about four minutes)"
    proposal = Proposal(sources=[a.pk, b.pk], cluster_key=f"{a.pk},{b.pk}", project="alpha", content=text)
    proposal.mark_sources([a, b])
    proposal.save()
    return proposal


def search(agent, **fields) -> list[int]:
    body = {"query": QUESTION, "project": "alpha", "min_score": 0, **fields}
    return [r["id"] for r in agent.post("search", body).json()["results"]]


def assert_current_again(old: int, new: int, action: str) -> None:
    older = Memory.objects.get(pk=old)
    assert (older.status, older.superseded_by_id) == (Status.ACTIVE, None)
    event = MemoryEvent.objects.filter(memory_id=old).order_by("-id").first()
    assert event.action == "restored"
    assert f"its successor #{new} was {action}" in event.note
    assert (event.after["successor_left"], event.after["because"]) == (new, action)
    assert orphaned_superseded() == []


# --- 1. a conflict whose source moved or changed ---------------------------------------------------------------


def test_the_first_projects_token_cannot_accept_a_conflict_whose_newer_moved_to_another_project(
    claude, curator, conflict
):
    old, new = conflict["sources"]
    assert curator.patch(f"memories/{new}", {"project": "beta"}).status_code == 200
    response = claude.post(f"proposals/{conflict['id']}/accept", {"choice": "newer"})
    assert response.status_code == 403
    assert error_of(response)["code"] == "forbidden"
    assert "cannot see" in error_of(response)["message"] and "beta" not in error_of(response)["message"]
    assert Memory.objects.get(pk=old).status == Status.ACTIVE


def test_a_conflict_whose_source_moved_since_it_was_made_is_stale_for_everyone(curator, conflict):
    old, new = conflict["sources"]
    assert curator.patch(f"memories/{new}", {"project": "beta"}).status_code == 200
    response = curator.post(f"proposals/{conflict['id']}/accept", {"choice": "newer"})
    assert response.status_code == 409
    assert error_of(response) == {
        "code": "conflict",
        "message": f"proposal #{conflict['id']} is stale: memory #{new}'s project changed since it was made; "
        "it is closed and nothing changed",
        "fields": {},
    }
    assert curator.get(f"proposals/{conflict['id']}").json()["status"] == "stale"
    assert Memory.objects.get(pk=old).status == Status.ACTIVE
    assert curator.post(f"proposals/{conflict['id']}/reject").status_code == 409  # closed: nothing to decide


def test_a_conflict_whose_source_changed_status_since_it_was_made_is_stale(curator, conflict):
    old, new = conflict["sources"]
    third = remember("The shopfront API now listens on port 9100.", project="alpha")
    supersede(older=Memory.objects.get(pk=old), newer=third, actor="test", reason="changed again")  # no edit clock
    response = curator.post(f"proposals/{conflict['id']}/accept", {"choice": "older"})
    assert response.status_code == 409
    assert error_of(response)["message"].startswith(f"proposal #{conflict['id']} is stale: memory #{old}'s status")
    assert Memory.objects.get(pk=new).status == Status.ACTIVE
    assert Memory.objects.get(pk=old).superseded_by_id == third.pk


def test_a_token_cannot_accept_a_proposal_whose_sources_it_cannot_all_see(claude):
    theirs = remember(OLD, project="beta", source="codex")
    ours = remember(NEW, project="alpha")
    proposal = queue_conflict(older=theirs, newer=ours, reason="planted across projects")
    for verb, body in (("accept", {"choice": "newer"}), ("reject", {})):
        response = claude.post(f"proposals/{proposal.pk}/{verb}", body)
        assert response.status_code == 403, verb
    assert Memory.objects.get(pk=theirs.pk).status == Status.ACTIVE
    proposal.refresh_from_db()
    assert proposal.status == "pending"


def test_the_dashboard_refuses_a_stale_conflict_and_one_with_sources_the_person_cannot_see(ui, curator, conflict):
    old, new = conflict["sources"]
    assert curator.patch(f"memories/{new}", {"content": NEW + " Behind nginx."}).status_code == 200
    response = ui.post(f"/proposals/{conflict['id']}/accept/", {"choice": "newer"}, **HX)
    assert response.status_code == 409
    assert "is stale" in response.content.decode() and "text changed" in response.content.decode()
    assert Memory.objects.get(pk=old).status == Status.ACTIVE
    assert Proposal.objects.get(pk=conflict["id"]).status == "stale"


def test_a_proposal_made_before_marks_existed_goes_stale_on_an_edit(curator, merge):
    Proposal.objects.filter(pk=merge.pk).update(source_marks={})
    source = merge.sources[0]
    assert curator.patch(f"memories/{source}", {"content": "Run the shopfront tests with tox"}).status_code == 200
    response = curator.post(f"proposals/{merge.pk}/accept")
    assert response.status_code == 409
    assert f"memory #{source} was edited" in error_of(response)["message"]


# --- 2. a successor that leaves --------------------------------------------------------------------------------


def test_deleting_the_newer_memory_brings_the_older_back_with_a_history_event(claude, chain):
    old, new = chain
    assert claude.delete(f"memories/{new}").status_code == 204
    assert_current_again(old, new, "deleted")
    assert search(claude) == [old]
    again = claude.store(OLD, project="alpha").json()
    assert f"which memory #{old} superseded" not in again["reason"]


def test_archiving_the_newer_memory_by_patch_brings_the_older_back(claude, chain):
    old, new = chain
    assert claude.patch(f"memories/{new}", {"status": "archived"}).status_code == 200
    assert_current_again(old, new, "archived")


def test_the_dashboards_archive_bulk_archive_and_delete_bring_the_older_back(ui, claude, chain):
    old, new = chain
    assert ui.post(f"/memories/{new}/archive/", **HX).status_code == 200
    assert_current_again(old, new, "archived")

    newest = remember("The shopfront API now listens on port 9100.", project="alpha")
    supersede(older=Memory.objects.get(pk=old), newer=newest, actor="test", reason="changed again")
    assert ui.post("/memories/bulk/", {"action": "archive", "selected": [newest.pk]}, **HX).status_code == 200
    assert_current_again(old, newest.pk, "archived")

    last = remember("The shopfront API now listens on port 9200.", project="alpha")
    supersede(older=Memory.objects.get(pk=old), newer=last, actor="test", reason="and again")
    assert ui.post(f"/memories/{last.pk}/delete/", **HX).status_code == 200
    assert_current_again(old, last.pk, "deleted")


def test_archiving_a_memory_with_its_successor_archives_both(ui, chain):
    old, new = chain
    assert ui.post("/memories/bulk/", {"action": "archive", "selected": [old, new]}, **HX).status_code == 200
    assert list(Memory.objects.filter(pk__in=[old, new]).values_list("status", "superseded_by")) == [
        (Status.ARCHIVED, None), (Status.ARCHIVED, None)]  # fmt: skip
    assert orphaned_superseded() == []


def test_the_decay_sweep_archiving_the_newer_brings_the_older_back(chain):
    old, new = chain
    report = run_decay_sweep(now=timezone.now() + timedelta(days=3650))
    assert new in report.archived_ids and old not in report.archived_ids
    assert_current_again(old, new, "archived")


def test_deleting_a_link_in_the_middle_passes_the_chain_on(claude, chain):
    old, middle = chain
    newest = remember("The shopfront API now listens on port 9100.", project="alpha")
    supersede(older=Memory.objects.get(pk=middle), newer=newest, actor="test", reason="changed again")
    assert claude.delete(f"memories/{middle}").status_code == 204
    older = Memory.objects.get(pk=old)
    assert (older.status, older.superseded_by_id) == (Status.SUPERSEDED, newest.pk)
    event = MemoryEvent.objects.filter(memory_id=old).order_by("-id").first()
    assert event.action == "succession_passed" and f"#{middle} was deleted" in event.note
    assert orphaned_superseded() == []


def test_merging_a_successor_passes_the_chain_to_the_merged_memory_and_undo_gives_it_back(chain):
    old, new = chain
    twin = remember("The shopfront API listens on port 9000 behind the reverse proxy.", project="alpha")
    proposal = Proposal(sources=[new, twin.pk], cluster_key=f"{new},{twin.pk}", project="alpha",
                        content="The shopfront API listens on port 9000 behind the reverse proxy.")  # fmt: skip
    proposal.mark_sources(list(Memory.objects.filter(pk__in=[new, twin.pk])))
    proposal.save()
    merged = accept_proposal(proposal=proposal, actor="test")
    assert Memory.objects.get(pk=old).superseded_by_id == merged.pk
    undo_proposal(proposal=proposal, actor="test")
    older = Memory.objects.get(pk=old)
    assert (older.status, older.superseded_by_id) == (Status.SUPERSEDED, new)
    assert orphaned_superseded() == []


def test_a_delete_that_skips_the_rule_fails_instead_of_breaking_the_chain(chain):
    _, new = chain
    Memory.objects.get(pk=new).delete()  # the ORM alone, no domain call: the link is left as it was
    # What a commit would do: the deferred foreign key refuses it (in a savepoint, so that PostgreSQL's transaction
    # goes on after the error).
    with pytest.raises(IntegrityError), transaction.atomic():
        connection.check_constraints()
    Memory.objects.filter(superseded_by_id=new).delete()  # so the test's own teardown check passes


# --- 3. merges: stale and choice -------------------------------------------------------------------------------


def test_a_merge_whose_source_was_edited_is_refused_as_stale_through_the_api(curator, merge):
    source = merge.sources[1]
    assert curator.patch(f"memories/{source}", {"content": "The shopfront tests run with tox -p"}).status_code == 200
    response = curator.post(f"proposals/{merge.pk}/accept")
    assert response.status_code == 409
    assert error_of(response)["message"] == (
        f"proposal #{merge.pk} is stale: memory #{source}'s text changed since it was made; "
        "it is closed and nothing changed"
    )
    merge.refresh_from_db()
    assert (merge.status, merge.merged_memory_id) == ("stale", None)
    assert Memory.objects.get(pk=source).status == Status.ACTIVE  # the added fact stays in search


def test_a_choice_is_a_conflicts_answer_alone_through_the_api(curator, merge, conflict):
    response = curator.post(f"proposals/{merge.pk}/accept", {"choice": "newer"})
    assert response.status_code == 400
    assert error_of(response)["fields"] == {
        "choice": ["a merge proposal takes no choice (only a conflict does); send none"]
    }
    response = curator.post(f"proposals/{conflict['id']}/accept", {"choice": "foo"})
    assert response.status_code == 400 and "choice" in error_of(response)["fields"]
    assert Proposal.objects.filter(status="pending").count() == 2


@pytest.mark.parametrize("choice", ["foo", "newer"])
def test_the_dashboard_refuses_a_choice_on_a_merge_and_merges_nothing(ui, merge, choice):
    response = ui.post(f"/proposals/{merge.pk}/accept/", {"choice": choice}, **HX)
    html = response.content.decode()
    assert response.status_code == 400
    assert "Conflict decided" not in html and "Choice:" in html
    merge.refresh_from_db()
    assert (merge.status, merge.merged_memory_id) == ("pending", None)


def test_the_dashboard_refuses_an_unknown_choice_on_a_conflict(ui, conflict):
    response = ui.post(f"/proposals/{conflict['id']}/accept/", {"choice": "foo"}, **HX)
    assert response.status_code == 400
    assert "must be one of: newer, older, both" in response.content.decode()
    assert Proposal.objects.get(pk=conflict["id"]).status == "pending"


def test_the_dashboard_refuses_a_merge_whose_source_was_edited(ui, curator, merge):
    source = merge.sources[0]
    assert curator.patch(f"memories/{source}", {"content": "Run the shopfront tests with tox"}).status_code == 200
    response = ui.post(f"/proposals/{merge.pk}/accept/", {f"p{merge.pk}-content": ""}, **HX)
    assert response.status_code == 409 and "is stale" in response.content.decode()
    assert Proposal.objects.get(pk=merge.pk).merged_memory_id is None


def test_a_conflict_proposal_remembers_its_sources_when_made(conflict):
    proposal = Proposal.objects.get(pk=conflict["id"])
    assert proposal.kind == ProposalKind.CONFLICT
    assert set(proposal.source_marks) == {str(i) for i in conflict["sources"]}
    assert {m["status"] for m in proposal.source_marks.values()} == {"active"}


# --- 4. the invariant, checked and repaired --------------------------------------------------------------------


def test_the_store_check_names_a_superseded_memory_without_a_successor_and_repairs_it(chain):
    old, _ = chain
    Memory.objects.filter(pk=old).update(superseded_by=None)  # as an older version left it
    report = run_checks()
    assert report.superseded_orphans == [old] and not report.ok
    assert any(f"superseded memories without a successor: 1 (ids {old})" in line for line in report.lines())
    out = io.StringIO()
    call_command("check", "--store-only", "--repair-chains", stdout=out)
    assert "superseded memories without a successor restored: 1" in out.getvalue()
    assert Memory.objects.get(pk=old).status == Status.ACTIVE
    assert MemoryEvent.objects.filter(memory_id=old, action="restored", actor="check --repair-chains").exists()
    assert run_checks().ok
