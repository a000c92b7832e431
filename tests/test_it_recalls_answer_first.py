"""Recall puts the query's answer first, then the always-on facts, within the budget (real model and tables)."""

from __future__ import annotations

import pytest

from memoryhub.memories.store import create_memory, import_memories
from memoryhub.retrieval.recall import HEADER, build_recall

pytestmark = pytest.mark.django_db


@pytest.fixture
def crowded_store():
    """Many confirmed preferences and project facts: enough to fill a 400-character block on their own."""
    import_memories(
        items=[
            {"content": f"The user prefers review rule {n}: keep functions short and name them well", "confirmed": True,
             "category": "preference", "importance": 0.9}
            for n in range(8)
        ]
        + [
            {"content": f"Alpha service {n} runs three replicas behind the load balancer", "project": "alpha",
             "confirmed": True, "importance": 0.9}
            for n in range(8)
        ]
    )  # fmt: skip
    return create_memory(content="The API uses cursor pagination", project="alpha", importance=0.5)


def test_the_answer_to_the_query_is_the_first_line(crowded_store):
    block = build_recall(project="alpha", query="how do we paginate?", budget_chars=400)
    assert block.memory_ids[0] == crowded_store.pk
    assert block.text.splitlines()[1].endswith(f"[#{crowded_store.pk}]")
    assert len(block.text) <= 400
    # The rest of the budget still carries always-on facts.
    assert len(block.memory_ids) >= 2


def test_without_a_query_the_block_is_the_always_on_facts(crowded_store):
    block = build_recall(project="alpha", budget_chars=400)
    assert crowded_store.pk not in block.memory_ids
    assert block.memory_ids
    assert block.text.splitlines()[0] == HEADER


def test_a_query_that_matches_nothing_adds_no_lines(crowded_store):
    without = build_recall(project="alpha", budget_chars=400)
    nonsense = build_recall(project="alpha", query="purple elephant trampoline", budget_chars=400)
    assert nonsense.memory_ids == without.memory_ids


@pytest.mark.parametrize("budget", [100, 150, 400, 800])
def test_ids_follow_the_lines_and_the_block_fits(crowded_store, budget):
    block = build_recall(project="alpha", query="cursor pagination", budget_chars=budget)
    assert len(block.text) <= budget
    lines = block.text.splitlines()[1:]
    assert [int(line.rsplit("[#", 1)[1].rstrip("]")) for line in lines] == block.memory_ids
    if budget >= 150:
        assert block.memory_ids[0] == crowded_store.pk


def test_a_long_answer_is_trimmed_to_fit_rather_than_dropped():
    long = create_memory(
        content="Pagination: the API uses opaque cursors; " + "the cursor encodes the last id and sort key. " * 20,
        project="alpha",
    )
    block = build_recall(project="alpha", query="how does pagination work in the API", budget_chars=200)
    assert block.memory_ids[0] == long.pk
    assert "…" in block.text
    assert len(block.text) <= 200
