"""Consolidation: clusters within one scope become proposals; accept, reject and undo keep the store, its FTS and
vector tables and the history exactly as specified. Deterministic proposals (no LLM) throughout."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command

from bench.consolidation import generate, score
from memoryhub.consolidation.proposals import (
    accept_proposal,
    merge_memories,
    proposal_for_merged,
    reject_proposal,
    run_consolidation,
    undo_proposal,
)
from memoryhub.memories.store import create_memory, import_memories
from memoryhub.models import Memory, MemoryEvent, Proposal, Status
from memoryhub.retrieval.search import MemoryFilter, search_memories
from memoryhub.storage import sql

pytestmark = pytest.mark.django_db


def consolidate(project: str | None = None) -> list[Proposal]:
    return run_consolidation(project=project, actor="tester", llm=False)


def assert_indexes_hold_every_row() -> None:
    ids = set(Memory.objects.values_list("pk", flat=True))
    assert sql.fts_ids() == ids
    assert sql.vector_ids() == ids
    sql.fts_integrity_check()


def row_state(memory: Memory) -> dict:
    memory.refresh_from_db()
    return {f.attname: getattr(memory, f.attname) for f in Memory._meta.concrete_fields}


def searched(query: str, project: str = "alpha") -> set[int]:
    return {
        h.memory.pk
        for h in search_memories(query=query, within=MemoryFilter(visible_from=project), k=20, mode="keyword")
    }


@pytest.fixture
def twins():
    """Two ways of saying one thing in project alpha, and an unrelated memory beside them."""
    first = create_memory(
        content="payments-api listens on port 8443.",
        project="alpha",
        category="environment",
        tags=["payments"],
        importance=0.5,
        metadata={"file": "compose.yml"},
    )
    second = create_memory(
        content="Port 8443 is where payments-api listens, behind the nginx proxy.",
        project="alpha",
        category="environment",
        tags=["ports", "payments"],
        importance=0.8,
    )
    other = create_memory(content="Use squash merges for every pull request.", project="alpha", importance=0.6)
    return first, second, other


@pytest.fixture
def proposal(twins):
    """The one proposal a consolidation pass makes of the twins, pending."""
    (made,) = consolidate("alpha")
    return made


def test_it_proposes_a_cluster_with_merged_text_tags_and_a_rationale(twins, proposal):
    first, second, _ = twins
    assert proposal.status == "pending"
    assert proposal.sources == [first.pk, second.pk]
    assert proposal.cluster_key == f"{first.pk},{second.pk}"
    assert proposal.project == "alpha"
    assert proposal.content == second.content  # the most informative of the two
    assert proposal.tags == ["payments", "ports"]
    assert proposal.category == "environment"
    assert proposal.importance == 0.8
    assert proposal.generator == "deterministic"
    assert proposal.rationale.startswith("2 memories in project alpha say nearly the same thing")
    # Proposing changes nothing in the store.
    assert Memory.objects.filter(status=Status.ACTIVE).count() == 3


def test_it_never_proposes_across_projects_or_between_a_project_and_the_globals():
    text = "payments-api listens on port 8443."
    for project in ("alpha", "beta", None):
        create_memory(content=text, project=project)
    assert consolidate() == []


def test_global_memories_are_consolidated_among_themselves():
    a = create_memory(content="The user prefers pytest fixtures over setUp methods.")
    b = create_memory(content="Prefer pytest fixtures over setUp methods, says the user.")
    create_memory(content="The user prefers pytest fixtures over setUp methods.", project="alpha")
    (proposal,) = consolidate()
    assert proposal.sources == [a.pk, b.pk]
    assert proposal.project is None


def test_a_duplicate_with_a_detail_added_or_in_other_case_is_proposed():
    plain = create_memory(content="payments-api listens on port 8443.", project="alpha")
    detailed = create_memory(
        content="payments-api listens on port 8443; set PAYMENTS_PORT to move it.", project="alpha"
    )
    shouted = create_memory(content="PAYMENTS-API LISTENS ON PORT 8443", project="alpha")
    (proposal,) = consolidate("alpha")
    assert proposal.sources == [plain.pk, detailed.pk, shouted.pk]
    assert proposal.content == detailed.content


def test_memories_about_different_things_are_not_proposed():
    create_memory(content="billing-api listens on port 8080.", project="alpha")
    create_memory(content="search-api listens on port 8080.", project="alpha")
    create_memory(content="Ask Greta to review the billing pull requests.", project="alpha")
    create_memory(content="Review pull requests for billing with Rosa.", project="alpha")
    assert consolidate("alpha") == []


def test_a_cluster_already_proposed_is_not_proposed_again(twins):
    assert len(consolidate("alpha")) == 1
    assert consolidate("alpha") == []
    assert Proposal.objects.count() == 1


def test_a_rejected_cluster_is_not_proposed_again(proposal):
    reject_proposal(proposal=proposal, actor="me")
    assert proposal.status == "rejected"
    assert proposal.decided_by == "me"
    assert proposal.decided_at is not None
    assert consolidate("alpha") == []
    # Not even when the same memories come up again next to a new, unrelated one.
    create_memory(content="Deploys run from the main branch only.", project="alpha")
    assert consolidate("alpha") == []


def test_rejecting_records_it_in_the_sources_history_and_changes_nothing_else(twins):
    first, second, _ = twins
    before = [row_state(first), row_state(second)]
    (proposal,) = consolidate("alpha")
    reject_proposal(proposal=proposal, actor="me")
    assert [row_state(first), row_state(second)] == before
    for memory in (first, second):
        event = MemoryEvent.objects.filter(memory_id=memory.pk).last()
        assert (event.action, event.actor, event.note) == ("merge_rejected", "me", f"proposal #{proposal.pk} rejected")
    assert_indexes_hold_every_row()
    with pytest.raises(ValidationError, match="is rejected; it must be pending to be accepted"):
        accept_proposal(proposal=proposal, actor="me")


def test_accepting_creates_the_merged_memory_and_archives_the_sources_into_it(twins, proposal):
    first, second, other = twins
    merged = accept_proposal(proposal=proposal, actor="me")

    assert merged.content == second.content
    assert (merged.project, merged.category, merged.tags, merged.importance) == (
        "alpha",
        "environment",
        ["payments", "ports"],
        0.8,
    )
    assert merged.metadata == {"file": "compose.yml", "merged_from": [first.pk, second.pk]}
    assert merged.status == Status.ACTIVE
    for source in (first, second):
        source.refresh_from_db()
        assert (source.status, source.merged_into_id) == (Status.ARCHIVED, merged.pk)
    assert proposal.status == "accepted"
    assert proposal.merged_memory_id == merged.pk
    assert proposal.decided_by == "me"
    assert proposal_for_merged(merged) == proposal

    # The merged memory is indexed; the sources stay in the indexes but no longer answer searches.
    assert_indexes_hold_every_row()
    assert searched("payments-api port 8443") == {merged.pk}
    assert {
        h.memory.pk
        for h in search_memories(query="payments-api port 8443", within=MemoryFilter(visible_from="alpha", status=None))
    } >= {
        first.pk,
        second.pk,
        merged.pk,
    }

    first_events = list(MemoryEvent.objects.filter(memory_id=first.pk).values_list("action", "before", "after"))
    assert first_events[-1] == (
        "merged",
        {"status": "active", "merged_into": None},
        {"status": "archived", "merged_into": merged.pk},
    )
    merged_events = list(MemoryEvent.objects.filter(memory_id=merged.pk).values_list("action", "actor"))
    assert merged_events == [("created", "me"), ("merged", "me")]
    assert Memory.objects.get(pk=other.pk).status == Status.ACTIVE


def test_accepting_with_edited_text_uses_that_text(proposal):
    merged = accept_proposal(proposal=proposal, content="  payments-api: port 8443, behind nginx.  ", actor="me")
    assert merged.content == "payments-api: port 8443, behind nginx."
    assert searched("nginx") == {merged.pk}


def test_accepting_with_empty_text_is_refused_and_writes_nothing(proposal):
    count, events = Memory.objects.count(), MemoryEvent.objects.count()
    with pytest.raises(ValidationError) as caught:
        accept_proposal(proposal=proposal, content="   ", actor="me")
    assert "content" in caught.value.message_dict
    assert (Memory.objects.count(), MemoryEvent.objects.count()) == (count, events)
    proposal.refresh_from_db()
    assert proposal.status == "pending"


def test_accepting_is_one_transaction(twins, proposal, monkeypatch):
    first, second, _ = twins
    count, events = Memory.objects.count(), MemoryEvent.objects.count()

    def explode(self, *args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(Proposal, "save", explode)  # the very last write of an accept
    with pytest.raises(RuntimeError):
        accept_proposal(proposal=proposal, actor="me")
    monkeypatch.undo()
    assert (Memory.objects.count(), MemoryEvent.objects.count()) == (count, events)
    assert set(Memory.objects.values_list("status", flat=True)) == {Status.ACTIVE}
    assert Memory.objects.filter(merged_into__isnull=False).count() == 0
    assert_indexes_hold_every_row()
    proposal.refresh_from_db()
    assert proposal.status == "pending"


def test_a_proposal_whose_source_was_archived_since_is_refused(twins, proposal):
    first, _, _ = twins
    Memory.objects.filter(pk=first.pk).update(status=Status.ARCHIVED)
    with pytest.raises(ValidationError, match="is stale: memory #.*status changed \\(now archived\\)"):
        accept_proposal(proposal=proposal, actor="me")
    assert Memory.objects.count() == 3


def test_undo_restores_the_sources_exactly_and_archives_the_merged_memory(twins):
    first, second, _ = twins
    before = {m.pk: row_state(m) for m in (first, second)}
    (proposal,) = consolidate("alpha")
    merged = accept_proposal(proposal=proposal, actor="me")
    undo_proposal(proposal=proposal, actor="you")

    assert proposal.status == "undone"
    assert proposal.decided_by == "you"
    assert {m.pk: row_state(m) for m in (first, second)} == before
    merged.refresh_from_db()
    assert merged.status == Status.ARCHIVED
    assert_indexes_hold_every_row()
    assert searched("payments-api port 8443") == {first.pk, second.pk}

    for source in (first, second):
        event = MemoryEvent.objects.filter(memory_id=source.pk).last()
        assert (event.action, event.actor) == ("unmerged", "you")
        assert event.before == {"status": "archived", "merged_into": merged.pk}
        assert event.after == {"status": "active", "merged_into": None}
    last = MemoryEvent.objects.filter(memory_id=merged.pk).last()
    assert (last.action, last.after) == ("archived", {"status": "archived"})
    # The person took it apart: the same cluster is not proposed again.
    assert consolidate("alpha") == []


def test_only_an_accepted_proposal_can_be_undone(proposal):
    with pytest.raises(ValidationError, match="is pending; it must be accepted to be undone"):
        undo_proposal(proposal=proposal, actor="me")
    accept_proposal(proposal=proposal, actor="me")
    undo_proposal(proposal=proposal, actor="me")
    with pytest.raises(ValidationError, match="is undone"):
        undo_proposal(proposal=proposal, actor="me")


def test_a_merge_that_was_merged_again_cannot_be_undone_first(twins, proposal):
    first, second, other = twins
    merged = accept_proposal(proposal=proposal, actor="me")
    merge_memories(memory_ids=[merged.pk, other.pk], content="Two facts, merged by hand.", actor="me")
    with pytest.raises(ValidationError, match="undo that merge first"):
        undo_proposal(proposal=proposal, actor="me")


def test_a_selection_merged_by_hand_is_recorded_and_can_be_undone(twins):
    first, second, other = twins
    merged = merge_memories(
        memory_ids=[other.pk, first.pk], content="Squash merges; payments-api on 8443.", actor="me", tags=["mixed"]
    )
    assert (merged.content, merged.tags, merged.project) == ("Squash merges; payments-api on 8443.", ["mixed"], "alpha")
    assert merged.importance == 0.6
    proposal = proposal_for_merged(merged)
    assert (proposal.generator, proposal.status, proposal.sources) == ("manual", "accepted", [first.pk, other.pk])
    undo_proposal(proposal=proposal, actor="me")
    assert set(Memory.objects.filter(status=Status.ACTIVE).values_list("pk", flat=True)) == {
        first.pk,
        second.pk,
        other.pk,
    }


@pytest.mark.parametrize(
    ("selection", "message"),
    [
        ("one", "at least two different memories"),
        ("missing", "no such memories"),
        ("archived", "only active memories can be merged"),
        ("two projects", "different projects"),
    ],
)
def test_a_bad_selection_is_refused_with_a_clear_message(twins, selection, message):
    first, second, other = twins
    beta = create_memory(content="payments-api listens on port 8443.", project="beta")
    ids = {
        "one": [first.pk, first.pk],
        "missing": [first.pk, 999_999],
        "archived": [first.pk, second.pk],
        "two projects": [first.pk, beta.pk],
    }[selection]
    if selection == "archived":
        Memory.objects.filter(pk=second.pk).update(status=Status.ARCHIVED)
    count = Memory.objects.count()
    with pytest.raises(ValidationError, match=message):
        merge_memories(memory_ids=ids, content=None, actor="me")
    assert Memory.objects.count() == count
    assert not Proposal.objects.exists()


def test_memories_waiting_in_a_pending_proposal_are_left_out_of_new_clusters(twins, proposal):
    first, second, _ = twins
    create_memory(content="payments-api listens on port 8443 in every environment.", project="alpha")
    assert consolidate("alpha") == []
    reject_proposal(proposal=proposal, actor="me")
    # Decided: the new memory may now join the others in a new, larger cluster.
    (bigger,) = consolidate("alpha")
    assert set(proposal.sources) < set(bigger.sources)


def test_the_consolidate_command_prints_the_proposals_it_made(twins):
    out = StringIO()
    call_command("consolidate", "--project", "alpha", "--no-llm", stdout=out)
    proposal = Proposal.objects.get()
    assert f"proposal #{proposal.pk} [alpha] merges #{twins[0].pk}, #{twins[1].pk} (deterministic)" in out.getvalue()
    assert "Made 1 new proposals in project alpha." in out.getvalue()


def test_planted_clusters_in_a_small_synthetic_store_are_found():
    data = generate(150, clusters=12, projects=2, seed=3, cross_project=8)
    ids = import_memories(items=data.items, source="test")
    proposals = consolidate()
    result = score([p.sources for p in proposals], [[ids[i] for i in c] for c in data.planted])
    assert result.recall >= 0.9
    assert result.false_proposals == 0
    assert all(len({m.project for m in Memory.objects.filter(pk__in=p.sources)}) == 1 for p in proposals)
