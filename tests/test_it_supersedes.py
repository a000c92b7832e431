"""Supersession through the API: a newer fact that says it changed (or edits one value of the same statement)
replaces the older one, which stays, linked, out of search and recall, and comes back in one restore."""

from __future__ import annotations

import pytest

from memoryhub.models import Memory, MemoryEvent, Proposal, Status
from memoryhub.storage import sql, vector_index
from tests.api.conftest import make_agent, write

pytestmark = pytest.mark.django_db

OLD = "The shopfront API listens on port 8000."
NEW = "The shopfront API now listens on port 9000 since the reverse-proxy change."


def search(claude, query: str, **fields) -> list[int]:
    response = claude.post("search", {"query": query, "project": "alpha", "min_score": 0, **fields})
    assert response.status_code == 200
    return [r["id"] for r in response.json()["results"]]


def test_a_newer_fact_that_says_it_changed_supersedes_the_older(claude):
    old = write(claude, OLD)["memory"]
    body = write(claude, NEW)
    new = body["memory"]
    assert body["outcome"] == "created"
    assert body["supersedes"] == [old["id"]]
    assert f"supersedes memory #{old['id']}" in body["reason"]
    older = Memory.objects.get(pk=old["id"])
    assert (older.status, older.superseded_by_id) == (Status.SUPERSEDED, new["id"])
    shown = claude.get(f"memories/{old['id']}").json()
    assert (shown["status"], shown["superseded_by"], shown["supersedes"]) == ("superseded", new["id"], [])
    assert claude.get(f"memories/{new['id']}").json()["supersedes"] == [old["id"]]
    actions = {e.memory_id: e.action for e in MemoryEvent.objects.filter(action__in=["superseded", "supersedes"])}
    assert actions == {old["id"]: "superseded", new["id"]: "supersedes"}


def test_the_superseded_fact_leaves_search_and_recall_but_include_superseded_finds_it(claude):
    old = write(claude, OLD)["memory"]["id"]
    new = write(claude, NEW)["memory"]["id"]
    assert search(claude, "What port does the shopfront API listen on?") == [new]
    assert set(search(claude, "shopfront API port", include_superseded=True)) == {old, new}
    assert [m["id"] for m in claude.get("memories", project="alpha", status="superseded").json()["results"]] == [old]
    recall = claude.post("recall", {"project": "alpha", "query": "What port does the shopfront API listen on?"})
    assert recall.json()["memory_ids"] == [new]
    assert "9000" in recall.json()["text"] and "8000" not in recall.json()["text"]
    since = Memory.objects.get(pk=new).valid_from.date().isoformat()
    assert recall.json()["text"].endswith(f"[#{new}, since {since}]")  # the date of a value that changed


def test_the_vector_copy_drops_a_superseded_row_at_once(claude, monkeypatch):
    monkeypatch.setattr(vector_index, "EXACT_KNN_MAX", 0)  # every search ranks on the in-process copy
    old = write(claude, OLD)["memory"]["id"]
    assert old in search(claude, "shopfront API port")
    new = write(claude, NEW)["memory"]["id"]
    # SQLite ranks on the in-process copy here; PostgreSQL, inside the test's transaction, ranks in the database
    # under the status filter (its copy follows only what is committed).
    assert bool(vector_index._copies) == (not sql.FILTERED_KNN)
    assert search(claude, "shopfront API port") == [new]


def test_an_edit_of_one_value_without_a_cue_asks_a_person_and_ranks_the_newer_first(claude):
    old = write(claude, "The bastion host is bastion-1.")["memory"]["id"]
    body = write(claude, "The bastion host is bastion-3.")
    new = body["memory"]["id"]
    assert body["outcome"] == "created" and "supersedes" not in body
    proposal = Proposal.objects.get(pk=body["conflicts"][0])
    assert (proposal.kind, proposal.sources, proposal.status) == ("conflict", [old, new], "pending")
    assert set(Memory.objects.filter(pk__in=[old, new]).values_list("status", flat=True)) == {Status.ACTIVE}
    assert search(claude, "What is the bastion host?")[:2] == [new, old]


def test_look_alikes_that_differ_in_a_qualifier_stay_two_facts(claude):
    staging = write(claude, "The staging cluster has 3 nodes.")["memory"]["id"]
    body = write(claude, "The production cluster has 12 nodes.")
    assert body["outcome"] == "created" and "supersedes" not in body
    assert set(Memory.objects.values_list("status", flat=True)) == {Status.ACTIVE}
    assert Proposal.objects.count() == 0
    assert search(claude, "How many nodes does the staging cluster have?")[0] == staging


def test_a_paraphrase_of_the_same_value_is_not_an_update(claude):
    write(claude, "The billing service is owned by Alice.")
    body = write(claude, "Alice owns the billing service.")
    assert "supersedes" not in body
    assert not Memory.objects.filter(status=Status.SUPERSEDED).exists()
    assert Proposal.objects.count() == 0


def test_restoring_undoes_the_link_on_both_sides_and_is_not_asked_again(claude):
    old = write(claude, OLD)["memory"]["id"]
    new = write(claude, NEW)["memory"]["id"]
    response = claude.post(f"memories/{old}/restore")
    assert response.status_code == 200
    assert (response.json()["status"], response.json()["superseded_by"]) == ("active", None)
    assert claude.get(f"memories/{new}").json()["supersedes"] == []
    assert set(search(claude, "shopfront API port")) == {old, new}
    assert MemoryEvent.objects.filter(memory_id=new, action="supersession_undone").count() == 1
    assert claude.post(f"memories/{old}/restore").status_code == 409  # active now: nothing to restore
    # The pair is settled as two facts: consolidation does not put it to a person again.
    from memoryhub.consolidation.proposals import run_consolidation

    made = run_consolidation(project="alpha", llm=False)
    assert [p for p in made if set(p.sources) == {old, new}] == []


def test_a_write_repeating_a_superseded_fact_does_not_revive_it_and_asks_a_person(claude):
    old = write(claude, OLD)["memory"]["id"]
    new = write(claude, NEW)["memory"]["id"]
    before = Memory.objects.get(pk=old)
    body = write(claude, OLD)
    assert body["outcome"] == "duplicate" and body["memory"]["id"] == old
    assert f"memory #{new} superseded" in body["reason"]
    after = Memory.objects.get(pk=old)
    assert (after.status, after.access_count, after.importance) == (Status.SUPERSEDED, before.access_count,
                                                                    before.importance)  # fmt: skip
    proposal = Proposal.objects.get(pk=body["conflicts"][0])
    assert (proposal.kind, proposal.sources, proposal.status) == ("conflict", [old, new], "pending")


def test_a_write_dated_before_the_stored_fact_is_stored_already_superseded(claude):
    current = write(claude, NEW, valid_from="2026-06-01T00:00:00Z")["memory"]["id"]
    body = write(claude, OLD, valid_from="2025-01-01T00:00:00Z")
    assert body["outcome"] == "created" and "supersedes" not in body
    assert body["memory"]["valid_from"] == "2025-01-01T00:00:00Z"
    assert Memory.objects.get(pk=body["memory"]["id"]).superseded_by_id == current
    assert f"superseded by memory #{current}" in body["reason"]


def test_the_tools_route_answers_supersedes_too(claude):
    old = write(claude, OLD)["memory"]["id"]
    response = claude.post("tools/call", {"name": "memory_store", "arguments": {"content": NEW, "project": "alpha"}})
    assert response.status_code == 200
    assert response.json()["result"]["supersedes"] == [old]


def test_exports_carry_the_status_and_the_link_and_an_import_keeps_them(claude):
    curator = make_agent("curator")
    old = write(claude, OLD)["memory"]["id"]
    new = write(claude, NEW)["memory"]["id"]
    import json

    lines = [json.loads(line) for line in b"".join(curator.get("export").streaming_content).decode().splitlines()]
    by_id = {m["id"]: m for m in lines}
    assert (by_id[old]["status"], by_id[old]["superseded_by"], by_id[new]["supersedes"]) == ("superseded", new, [old])
    Memory.objects.all().delete()
    ids = curator.post("memories/import", {"memories": lines}).json()["ids"]
    moved = dict(zip([m["id"] for m in lines], ids, strict=True))
    restored = Memory.objects.get(pk=moved[old])
    assert (restored.status, restored.superseded_by_id) == (Status.SUPERSEDED, moved[new])


def test_an_import_from_mem0_keeps_the_source_dates_and_answers_what_it_superseded(claude):
    import json

    results = [
        {"id": "a", "memory": "The main database is MySQL 5.7.", "updated_at": "2025-02-01T09:00:00Z"},
        {"id": "b", "memory": "The main database was migrated to PostgreSQL 16.", "created_at": "2025-09-01T09:00:00Z"},
    ]
    body = {"format": "mem0", "content": json.dumps({"results": results}), "project": "alpha"}
    response = claude.post("import_from", body)
    assert response.status_code == 200, response.json()
    first, second = response.json()["items"]
    assert second["supersedes"] == [first["memory_id"]]
    assert "supersedes" not in first
    rows = Memory.objects.in_bulk([first["memory_id"], second["memory_id"]])
    assert rows[first["memory_id"]].valid_from.isoformat() == "2025-02-01T09:00:00+00:00"
    assert rows[first["memory_id"]].superseded_by_id == second["memory_id"]


def test_a_dry_run_import_says_what_it_would_supersede_and_changes_nothing(claude):
    old = write(claude, "The main database is MySQL 5.7.")["memory"]["id"]
    text = "- The main database was migrated to PostgreSQL 16.\n"
    body = {"format": "markdown", "content": text, "name": "notes.md", "project": "alpha", "dry_run": True}
    response = claude.post("import_from", body)
    assert response.status_code == 200, response.json()
    (item,) = response.json()["items"]
    assert item["outcome"] == "created" and item["supersedes"] == [old]
    assert f"superseding memory #{old}" in item["reason"]
    assert Memory.objects.get(pk=old).status == Status.ACTIVE


PRODUCT_FACTS = [
    "tollgate redacts card numbers before they reach the logs.",
    "tollgate's staging database is pg-tollgate-stg.",
    "tollgate retries a failed capture three times.",
    "tollgate exposes its health check at /healthz.",
    "The tollgate dashboard lives in Grafana.",
    "tollgate's webhooks are signed with HMAC-SHA256.",
    "tollgate refunds need a second approver above 500 EUR.",
    "tollgate deploys go out on Tuesdays.",
    "Alerts for tollgate page the payments on-call.",
]


def test_a_products_name_shared_by_the_project_is_no_subject(claude):
    for text in PRODUCT_FACTS:
        write(claude, text)
    cache = write(claude, "tollgate uses Redis.")["memory"]["id"]
    body = write(claude, "tollgate's event bus moved to Kafka last month.")
    assert body.get("supersedes", []) == []
    assert Memory.objects.get(pk=cache).status == Status.ACTIVE
    # The same store still takes a change to that fact.
    change = write(claude, "tollgate now uses Memcached instead of Redis.")
    assert change["supersedes"] == [cache]
