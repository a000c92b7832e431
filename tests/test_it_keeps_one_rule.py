"""Each shared idea has one home, and every reader of it agrees with that home.

- effective importance: memoryhub/models.py, named again by memoryhub.memories.decay (the Python function and the
  SQL expression the dashboard orders by), read the same by the model, the sweep, search's ranking and the
  dashboard's decay page;
- archiving: memoryhub.memories.lifecycle.archive, one history event per memory archived, whatever the path;
- filtering by tag: a whole tag in any case, the same through the API, the agents' tools, search and the dashboard;
- a memory as a dict: memoryhub.writes.shape.memory_as_dict; the tools' compact form is a part of it, with the
  same meaning per key.
"""

from __future__ import annotations

import itertools
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.cache import cache
from django.test import Client
from django.utils import timezone

from memoryhub.consolidation.proposals import merge_memories, proposal_for_merged, undo_proposal
from memoryhub.memories.decay import effective_importance, effective_importance_expression
from memoryhub.memories.lifecycle import archive, archive_memory, below_threshold, run_decay_sweep
from memoryhub.memories.selectors import filter_memories
from memoryhub.models import Membership, Memory, MemoryEvent, Status
from memoryhub.writes.shape import memory_as_dict
from tests.api.conftest import make_agent
from tests.factories import remember

ROOT = Path(__file__).resolve().parent.parent
RATES = {
    "MEMORYHUB_DECAY_CATEGORY_RATES": {"decision": 0.99, "gotcha": 0.9},
    "MEMORYHUB_DECAY_TIER_RATES": {"episodic": 0.8, "procedural": 0.999},
    "MEMORYHUB_DECAY_DEFAULT_RATE": 0.95,
    "MEMORYHUB_CONFIRMED_FLOOR": 0.5,
}


def _grid(now) -> list[Memory]:
    """Every combination of the things the rule looks at: a configured category or not, a configured tier or not
    (so the category's rate must win over the tier's), confirmed or not, importance above and below the floor,
    and the clock set by an access, by an edit, at creation or (by a skewed clock) in the future."""
    clocks = [
        {"last_accessed_at": now - timedelta(days=2), "updated_at": now - timedelta(days=90)},  # the access counts
        {"last_accessed_at": None, "updated_at": now - timedelta(days=30)},  # then the edit
        {"last_accessed_at": None, "updated_at": now - timedelta(days=400)},  # never touched since created
        {"last_accessed_at": now + timedelta(days=1), "updated_at": now},  # not yet: no decay, never growth
    ]
    rows = []
    for n, (category, tier, confirmed, importance, clock) in enumerate(
        itertools.product(
            ["decision", "gotcha", "fact", ""], ["episodic", "procedural", ""], [False, True], [0.9, 0.3], clocks
        )  # fmt: skip
    ):
        rows.append(
            Memory(
                content=f"grid memory {n}",
                category=category,
                tier=tier,
                confirmed=confirmed,
                importance=importance,
                created_at=now - timedelta(days=400),
                **clock,
            )
        )
    return Memory.objects.bulk_create(rows)


def test_the_sql_expression_and_every_reader_agree_with_the_python_rule(db, settings):
    from memoryhub.retrieval.search import _rows
    from ui.decay_figures import BANDS, tally

    for name, value in RATES.items():
        setattr(settings, name, value)
    now = timezone.now()
    _grid(now)
    memories = list(Memory.objects.order_by("pk"))
    assert len(memories) == 4 * 3 * 2 * 2 * 4
    expected = {m.pk: effective_importance(m, now) for m in memories}
    assert len(set(expected.values())) > 20  # the grid really spreads the values

    in_sql = dict(Memory.objects.annotate(value=effective_importance_expression(now)).values_list("pk", "value"))
    swept = dict(below_threshold(now=now, threshold=1.01))  # every active memory is below 1.01
    for pk, value in expected.items():
        assert in_sql[pk] == pytest.approx(value, abs=1e-6), pk
        assert swept[pk] == value, pk
    # The decay page counts memories per 0.01 band of the same value, per tier and category.
    bands: dict = {}
    for memory in memories:
        if memory.status == "active":
            counts = bands.setdefault((memory.tier, memory.category), [0] * BANDS)
            counts[min(int(expected[memory.pk] * BANDS), BANDS - 1)] += 1
    assert tally(now).bands == bands
    # Search and the model read the clock themselves (now, a moment later): a second of decay is far below 1e-5.
    ranked = _rows(list(expected))
    for memory in memories:
        assert ranked[memory.pk].effective == pytest.approx(expected[memory.pk], abs=1e-5)
        assert memory.effective_importance == pytest.approx(expected[memory.pk], abs=1e-5)
        assert memory_as_dict(memory)["effective_importance"] == pytest.approx(expected[memory.pk], abs=1e-5)

    # The category's rate wins over the tier's, and no rule makes a memory gain importance.
    def edited_30_days_ago(category: str, tier: str) -> Memory:
        return next(
            m
            for m in memories
            if (m.category, m.tier, m.confirmed, m.importance) == (category, tier, False, 0.9)
            and m.last_accessed_at is None
            and m.updated_at is not None
        )

    for category, tier, rate in [("gotcha", "procedural", 0.9), ("fact", "episodic", 0.8), ("", "", 0.95)]:
        memory = edited_30_days_ago(category, tier)
        assert expected[memory.pk] == pytest.approx(0.9 * rate**30, abs=1e-6), (category, tier)
    assert all(expected[m.pk] <= m.importance for m in memories)
    # Ordering by the SQL expression is ordering by the Python values.
    by_sql = list(
        Memory.objects.annotate(value=effective_importance_expression(now))
        .order_by("-value", "-pk")
        .values_list("pk", flat=True)
    )
    assert [expected[pk] for pk in by_sql] == pytest.approx(sorted(expected.values(), reverse=True), abs=1e-6)


TAGGED = {
    "whole": ("Alpha deploys with the blue green script", ["Deploy"]),
    "other case": ("Alpha deploy windows are Tuesday mornings", ["ops", "DEPLOY"]),
    "longer tag": ("Alpha legacy deploy used rsync over ssh", ["deploy-legacy"]),
    "no tag": ("Alpha deploy pager rotation is weekly", ["ops"]),
}


@pytest.fixture
def tagged(db) -> dict[str, Memory]:
    cache.clear()  # the tools' per-turn counters and the dashboard's menus live in the cache
    return {key: remember(content, project="alpha", tags=tags) for key, (content, tags) in TAGGED.items()}


@pytest.mark.parametrize("asked", ["deploy", "DEPLOY", "Deploy", "dePloY"])
def test_a_tag_filter_means_the_same_through_the_api_the_tools_search_and_the_dashboard(tagged, asked, settings):
    from django.contrib.auth import get_user_model

    from tests.ui.conftest import HX, row_ids

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    wanted = {tagged["whole"].pk, tagged["other case"].pk}
    agent = make_agent("claude", projects=["alpha"])
    person = Client()
    viewer = get_user_model().objects.create_user("curator", password="a-long-test-password")
    Membership.objects.create(user=viewer, project="alpha", role="viewer")  # a role in alpha is enough to read it
    person.force_login(viewer)

    assert set(filter_memories(tag=asked).values_list("pk", flat=True)) == wanted
    listed = agent.get("memories", tag=asked).json()["results"]
    assert {m["id"] for m in listed} == wanted
    tool = agent.post("tools/call", {"name": "memory_list", "arguments": {"project": "alpha", "tag": asked}})
    assert {m["id"] for m in tool.json()["result"]["memories"]} == wanted
    tool_search = agent.post(
        "tools/call",
        {"name": "memory_search", "arguments": {"query": "deploy", "project": "alpha", "tags": [asked], "k": 10}},
    )
    assert {m["id"] for m in tool_search.json()["result"]["results"]} == wanted
    searched = agent.post("search", {"query": "deploy", "project": "alpha", "tags": [asked], "k": 10}).json()
    assert {m["id"] for m in searched["results"]} == wanted
    assert set(row_ids(person.get("/", {"tag": asked}, **HX).content.decode())) == wanted
    assert set(row_ids(person.get("/", {"tag": asked, "q": "deploy"}, **HX).content.decode())) == wanted


def test_a_part_of_a_tag_is_not_the_tag(tagged):
    assert list(filter_memories(tag="dep")) == []
    assert list(filter_memories(tag="legacy")) == []
    assert list(filter_memories(tag="deploy-legacy").values_list("pk", flat=True)) == [tagged["longer tag"].pk]


def _archive_events(memory: Memory) -> list[MemoryEvent]:
    return list(MemoryEvent.objects.filter(memory_id=memory.pk, after__status=Status.ARCHIVED))


def test_every_way_of_archiving_writes_one_event_per_memory(db):
    from ui.services import bulk_archive

    by_hand = remember("The staging database is reset every Sunday night")
    in_bulk = [remember(f"Bulk archived note {n} about the build cache") for n in range(2)]
    faded = remember("An old note about the intranet wiki that nobody reads")
    Memory.objects.filter(pk=faded.pk).update(importance=0.31, updated_at=timezone.now() - timedelta(days=365))
    sources = [
        remember("The API listens on port 8080 in development"),
        remember("In development the API's port is 8080"),
    ]

    archive_memory(memory=by_hand, actor="me", reason="superseded")
    assert bulk_archive(memories=in_bulk, actor="me") == 2
    assert faded.pk in run_decay_sweep(actor="decay").archived_ids
    merged = merge_memories(memory_ids=[m.pk for m in sources], content=None, actor="me")
    undo_proposal(proposal=proposal_for_merged(merged), actor="me")

    for memory in [by_hand, *in_bulk, faded, *sources, merged]:
        memory.refresh_from_db()
        events = _archive_events(memory)
        assert len(events) == 1, memory.content
        assert events[0].before["status"] == Status.ACTIVE
    for memory in [by_hand, *in_bulk, faded, merged]:
        assert memory.status == Status.ARCHIVED
    merge_events = [_archive_events(m)[0] for m in sources]
    assert {e.action for e in merge_events} == {"merged"}
    assert {e.after["merged_into"] for e in merge_events} == {merged.pk}

    # Archiving what is already archived changes nothing and writes nothing.
    before = MemoryEvent.objects.count()
    assert archive(memory_ids=[by_hand.pk, faded.pk], actor="me") == []
    assert run_decay_sweep(actor="decay").archived_ids == []
    assert MemoryEvent.objects.count() == before


def test_the_tools_compact_form_is_part_of_the_api_shape(db):
    from memoryhub.writes.shape import compact_memory as compact

    memory = remember("The release branch is cut on Thursdays", tags=["release"], importance=0.8)
    Memory.objects.filter(pk=memory.pk).update(updated_at=timezone.now() - timedelta(days=60))
    memory.refresh_from_db()
    full = memory_as_dict(memory)
    small = compact(memory)
    assert small.items() <= full.items()
    assert small["importance"] == 0.8  # the stored value, as in the API and exports
    assert small["effective_importance"] < small["importance"]  # the decayed one, under its own name


# --- the old duplicates are gone ------------------------------------------------------------------------------


def _sources(*roots: str) -> dict[Path, str]:
    return {
        path: path.read_text()
        for root in roots
        for path in (ROOT / root).rglob("*.py")
        if "migrations" not in path.parts
    }


def _holders(pattern: str, flags: int = 0) -> set[str]:
    found = re.compile(pattern, flags)
    return {str(p.relative_to(ROOT)) for p, text in _sources("memoryhub", "api", "ui").items() if found.search(text)}


def test_each_idea_is_written_in_one_place():
    decay = "memoryhub/models.py"  # beside the row, below the domain (memories/decay.py names it for readers)
    # The decay clock, the rate rule and the formula.
    assert _holders(r"last_accessed_at\s+or\b") <= {decay}
    assert _holders(r"coalesce\(\s*['\"]?(m\.)?last_accessed_at", re.I) <= {decay}
    assert _holders(r"\bdecayed\(") == {decay}
    assert _holders(r"MEMORYHUB_DECAY_(CATEGORY|TIER)_RATES") <= {decay, "memoryhub/settings/__init__.py"}
    assert _holders(r"function=.pow.") <= {decay, "ui/selectors.py"}  # the dashboard only asks if SQLite has pow
    # Archiving: one place sets the status and writes the event.
    lifecycle = "memoryhub/memories/lifecycle.py"
    assert _holders(r"\.status\s*=\s*Status\.ARCHIVED") <= {lifecycle}
    assert _holders(r"update\([^)]*status=Status\.ARCHIVED") <= {lifecycle}
    assert _holders(r"\"archived\",\s*\n?\s*actor=") == set()
    # Tag matching: one SQL condition.
    assert _holders(r"json_each\(") == {"memoryhub/storage/sqlite/queries.py"}
    assert _holders(r"jsonb_array_elements_text\(") == {"memoryhub/storage/postgres/queries.py"}
    assert _holders(r"tags__i?contains") == set()
    # A memory as a dict.
    assert _holders(r"\"access_count\":\s*memory\.access_count") == {"memoryhub/writes/shape.py"}
    # Dead code stays dead.
    for name in ("import_jsonl", "active_model_id", "embed_one", "model_field_names", "MIN_BUDGET", "with_tag",
                 "_effective_from_values", "delete_memories", "parse_jsonl"):  # fmt: skip
        assert _holders(rf"\b{name}\b") == set(), name


def test_fusion_takes_its_defaults_from_the_tuning_table_alone(tuned):
    """`fusion.Params` has no defaults of its own that could disagree with the tuning table; `from_defaults` fills
    every field from it, and a changed value is what search uses. No setting names a fusion weight."""
    from dataclasses import MISSING, fields

    from django.conf import settings

    from memoryhub.retrieval import fusion, tuning

    assert [f.name for f in fields(fusion.Params) if f.default is not MISSING] == []
    assert {f.name for f in fields(fusion.Params)} <= {f.name for f in fields(tuning.Tuning)}
    tuned(rrf_k=7, semantic_weight=0.4, answer_share=0.3)
    params = fusion.Params.from_defaults(answer_top=2)
    assert (params.rrf_k, params.semantic_weight, params.answer_share, params.answer_top) == (7, 0.4, 0.3, 2)
    assert fusion.Params.from_defaults().answer_top == tuning.DEFAULTS.answer_top
    assert _holders(r"\bParams\(") <= {"memoryhub/retrieval/fusion.py"}
    for name in ("RRF_K", "SEMANTIC_WEIGHT", "ANSWER_SHARE", "SEARCH_POOL", "KNN_MAX_FETCH", "FUSION_NORMALISED"):
        assert not hasattr(settings, f"MEMORYHUB_{name}"), name


def test_the_query_length_limit_is_written_once():
    # (scripts/hooks/memoryhub_recall.py runs without MemoryHub installed and keeps its own copy.)
    assert _holders(r"^MAX_QUERY_CHARS\s*=", re.M) == {"memoryhub/retrieval/query_text.py"}
