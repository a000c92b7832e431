"""Conflicts go to a person: pairs already in the store that disagree become `kind: conflict` proposals (never
merge proposals), the newer ranks first while they wait, and each of the three answers does what it says."""

from __future__ import annotations

import pytest

from memoryhub.models import Memory, MemoryEvent, Proposal, Status
from tests.api.conftest import make_agent

pytestmark = pytest.mark.django_db

OLD = "The shopfront API listens on port 8000."
NEW = "The shopfront API now listens on port 9000 since the reverse-proxy change."
QUESTION = "What port does the shopfront API listen on?"


@pytest.fixture
def pair(curator):
    """An older and a newer fact stored before supersession existed (an import takes them as given)."""
    items = [
        {"content": OLD, "project": "alpha", "created_at": "2026-01-05T10:00:00Z"},
        {"content": NEW, "project": "alpha", "created_at": "2026-03-01T10:00:00Z"},
        {"content": "Use squash merges for every pull request.", "project": "alpha"},
    ]
    response = curator.post("memories/import", {"memories": items})
    assert response.status_code == 201
    old, new, _ = response.json()["ids"]
    return old, new


def run(curator) -> list[dict]:
    response = curator.post("proposals/run", {"project": "alpha"})
    assert response.status_code == 200
    return response.json()["proposals"]


def search(curator, **fields) -> list[int]:
    body = {"query": QUESTION, "project": "alpha", "min_score": 0, **fields}
    return [r["id"] for r in curator.post("search", body).json()["results"]]


def test_consolidation_puts_a_stored_update_to_a_person_as_a_conflict_not_a_merge(curator, pair):
    old, new = pair
    (proposal,) = run(curator)
    assert (proposal["kind"], proposal["sources"], proposal["status"], proposal["choice"]) == (
        "conflict", [old, new], "pending", "")  # fmt: skip
    assert f"#{old} (older) or #{new} (newer)" in proposal["rationale"]
    assert run(curator) == []  # asked once
    assert Proposal.objects.filter(kind="merge").count() == 0


def test_while_a_conflict_waits_the_newer_ranks_above_the_older(curator, pair):
    old, new = pair
    run(curator)
    ranked = search(curator)
    assert ranked.index(new) < ranked.index(old)


def test_keeping_the_newer_supersedes_the_older(curator, pair):
    old, new = pair
    (proposal,) = run(curator)
    response = curator.post(f"proposals/{proposal['id']}/accept", {"choice": "newer"})
    assert response.status_code == 200
    assert (response.json()["status"], response.json()["choice"], response.json()["memory"]["id"]) == (
        "accepted", "newer", new)  # fmt: skip
    older = Memory.objects.get(pk=old)
    assert (older.status, older.superseded_by_id) == (Status.SUPERSEDED, new)
    found = search(curator)
    assert new in found and old not in found
    assert MemoryEvent.objects.filter(memory_id=old, action="superseded").exists()


def test_keeping_the_older_supersedes_the_newer(curator, pair):
    old, new = pair
    (proposal,) = run(curator)
    response = curator.post(f"proposals/{proposal['id']}/accept", {"choice": "older"})
    assert response.status_code == 200 and response.json()["memory"]["id"] == old
    newer = Memory.objects.get(pk=new)
    assert (newer.status, newer.superseded_by_id) == (Status.SUPERSEDED, old)
    found = search(curator)
    assert old in found and new not in found


def test_keeping_both_leaves_both_active_and_is_never_asked_again(curator, pair):
    old, new = pair
    (proposal,) = run(curator)
    response = curator.post(f"proposals/{proposal['id']}/accept", {"choice": "both"})
    assert response.status_code == 200 and response.json()["choice"] == "both"
    assert set(Memory.objects.filter(pk__in=[old, new]).values_list("status", flat=True)) == {Status.ACTIVE}
    assert run(curator) == []
    assert set(search(curator)) >= {old, new}


def test_rejecting_a_conflict_means_keep_both(curator, pair):
    old, new = pair
    (proposal,) = run(curator)
    response = curator.post(f"proposals/{proposal['id']}/reject")
    assert response.status_code == 200
    assert (response.json()["status"], response.json()["choice"]) == ("accepted", "both")
    assert not Memory.objects.filter(status=Status.SUPERSEDED).exists()


def test_a_decided_conflict_cannot_be_decided_again_or_undone(curator, pair):
    (proposal,) = run(curator)
    assert curator.post(f"proposals/{proposal['id']}/accept", {"choice": "newer"}).status_code == 200
    assert curator.post(f"proposals/{proposal['id']}/accept", {"choice": "older"}).status_code == 409
    assert curator.post(f"proposals/{proposal['id']}/undo").status_code == 409


def test_a_bad_choice_is_a_400_naming_the_field(curator, pair):
    (proposal,) = run(curator)
    response = curator.post(f"proposals/{proposal['id']}/accept", {"choice": "neither"})
    assert response.status_code == 400
    assert "choice" in response.json()["error"]["fields"]
    assert Proposal.objects.get(pk=proposal["id"]).status == "pending"


def test_a_repeated_superseded_fact_decided_as_older_brings_it_back(curator):
    agent = make_agent("claude", projects=["alpha"])
    old = agent.store(OLD, project="alpha").json()["memory"]["id"]
    new = agent.store(NEW, project="alpha").json()["memory"]["id"]
    conflict = agent.store(OLD, project="alpha").json()["conflicts"][0]
    response = curator.post(f"proposals/{conflict}/accept", {"choice": "older"})
    assert response.status_code == 200
    rows = Memory.objects.in_bulk([old, new])
    assert (rows[old].status, rows[old].superseded_by_id) == (Status.ACTIVE, None)
    assert (rows[new].status, rows[new].superseded_by_id) == (Status.SUPERSEDED, old)


REPLICAS_OLD = "The checkout service runs 4 replicas in Kubernetes."
REPLICAS_NEW = "In Kubernetes, 6 replicas of the checkout service run."


def test_a_reworded_disagreement_at_write_time_keeps_both_and_asks_a_person(curator):
    agent = make_agent("claude", projects=["alpha"])
    old = agent.store(REPLICAS_OLD, project="alpha").json()["memory"]["id"]
    body = agent.store(REPLICAS_NEW, project="alpha").json()
    new = body["memory"]["id"]
    assert body["outcome"] == "created" and "supersedes" not in body
    proposal = Proposal.objects.get(pk=body["conflicts"][0])
    assert (proposal.kind, proposal.sources) == ("conflict", [old, new])
    assert f"asked a person which is current (proposal #{proposal.pk})" in body["reason"]
    assert set(Memory.objects.values_list("status", flat=True)) == {Status.ACTIVE}
    question = {"query": "How many replicas does the checkout service run?", "project": "alpha", "min_score": 0}
    ranked = [r["id"] for r in agent.post("search", question).json()["results"]]
    assert ranked.index(new) < ranked.index(old)


def test_with_an_llm_judge_an_unsure_pair_gets_a_second_opinion_and_a_bad_answer_leaves_the_rules(settings):
    import json

    from tests.fake_openai import FakeOpenAI, chat_answer

    with FakeOpenAI() as fake:
        settings.MEMORYHUB_LLM_BASE_URL, settings.MEMORYHUB_LLM_MODEL = fake.base_url, "fake"
        settings.MEMORYHUB_LLM_RETRIES = 0
        settings.MEMORYHUB_GATE_LLM_JUDGE = True
        # One answer for every question of the gate: the noise judge reads `durable`, the update judge `verdict`.
        fake.default = chat_answer(json.dumps({"durable": True, "verdict": "replaces"}))
        agent = make_agent("claude", projects=["alpha"])
        old = agent.store(REPLICAS_OLD, project="alpha").json()["memory"]["id"]
        body = agent.store(REPLICAS_NEW, project="alpha").json()
        assert body["supersedes"] == [old] and "the LLM judged: supersede" in body["reason"]
        asked = [json.loads(r.json["messages"][1]["content"]) for r in fake.chat_requests if "older" in
                 r.json["messages"][1]["content"]]  # fmt: skip
        assert asked == [{"older": REPLICAS_OLD, "newer": REPLICAS_NEW}]
        # An empty answer: the rules' verdict stands (a conflict for a person).
        fake.default = chat_answer("")
        other = make_agent("codex", projects=["beta"])
        first = other.store(REPLICAS_OLD, project="beta").json()["memory"]["id"]
        second = other.store(REPLICAS_NEW, project="beta").json()
        assert "supersedes" not in second
        assert Proposal.objects.get(pk=second["conflicts"][0]).sources == [first, second["memory"]["id"]]


def test_the_proposal_list_filters_by_kind(curator, pair):
    (proposal,) = run(curator)
    Proposal.objects.create(sources=[1, 2], cluster_key="1,2", project="alpha", content="A merge proposal")
    conflicts = curator.get("proposals", kind="conflict").json()["results"]
    assert [p["id"] for p in conflicts] == [proposal["id"]]
    assert {p["kind"] for p in curator.get("proposals", kind="merge").json()["results"]} == {"merge"}
