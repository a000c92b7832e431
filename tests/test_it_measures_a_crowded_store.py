"""The crowded-store set (bench/crowded_set.py) has the shape it promises, passes the gate's pure checks,
and its evaluation (bench/crowded_eval.py) counts right through the real API, in process and over HTTP."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from bench import crowded_eval
from bench import crowded_set as cs
from bench.crowded_set import Addition, Change, CrowdedHalf, Fact
from memoryhub.agents.tokens import create_token
from memoryhub.memories.secrets import find_secrets
from memoryhub.models import Memory
from memoryhub.writes.noise import noise_reason

EVERY = (*cs.FACTS, *cs.CHANGES, *cs.ADDITIONS)


def test_it_holds_six_projects_of_about_fifty_facts_and_about_forty_globals():
    per_scope = Counter(f.project for f in cs.FACTS)
    assert len(cs.FACTS) >= 340
    assert set(per_scope) == {*cs.PRODUCTS, None}
    assert all(45 <= per_scope[p] <= 55 for p in cs.PRODUCTS), per_scope
    assert 36 <= per_scope[None] <= 46


def test_it_holds_changes_with_and_without_a_cue_and_additions():
    cue = sum(1 for c in cs.CHANGES if c.cue)
    assert len(cs.CHANGES) >= 80 and cue >= 40 and len(cs.CHANGES) - cue >= 30
    assert len(cs.ADDITIONS) >= 70
    assert {c.project for c in cs.CHANGES} == {a.project for a in cs.ADDITIONS} == {*cs.PRODUCTS, None}


def test_every_key_is_unique_and_every_item_has_a_question():
    keys = [item.key for item in EVERY]
    assert len(keys) == len(set(keys))
    assert all(item.question.strip().endswith("?") for item in EVERY)
    assert all(item.key.split(".")[0] == (item.project or cs.GLOBAL) for item in EVERY)


def test_every_change_replaces_one_existing_fact_of_its_own_scope():
    facts = {f.key: f for f in cs.FACTS}
    for change in cs.CHANGES:
        assert change.replaces in facts, change.key
        assert facts[change.replaces].project == change.project, change.key
        assert change.text != facts[change.replaces].text
    assert max(Counter(c.replaces for c in cs.CHANGES).values()) == 1


def test_the_look_alikes_are_stored_facts_of_one_scope():
    facts = {f.key: f for f in cs.FACTS}
    named = {key for pair in cs.LOOK_ALIKES for key in pair}
    assert len(named) >= 30
    for a, b in cs.LOOK_ALIKES:
        assert a != b and facts[a].project == facts[b].project


def test_a_project_s_facts_often_name_its_product():
    for project, product in cs.PRODUCTS.items():
        texts = [f.text for f in cs.FACTS if f.project == project]
        naming = sum(1 for t in texts if product.split()[0] in t)
        assert naming >= len(texts) // 2, (project, naming)


@pytest.mark.parametrize("item", EVERY, ids=lambda item: item.key)
def test_no_text_holds_a_secret_or_reads_as_noise(item):
    assert find_secrets(item.text) == []
    assert noise_reason(item.text) is None


def test_the_split_is_drawn_by_the_seed_and_the_halves_cover_the_set_once():
    assert set(cs.DEV_PROJECTS).isdisjoint(cs.HELD_OUT_PROJECTS)
    assert set(cs.DEV_PROJECTS) | set(cs.HELD_OUT_PROJECTS) == set(cs.PRODUCTS)
    assert len(cs.HELD_OUT_PROJECTS) == len(cs.DEV_PROJECTS) == 3
    assert set(cs.HELD_OUT_PROJECTS) == set(random.Random(cs.SPLIT_SEED).sample(sorted(cs.PRODUCTS), 3))
    dev, held = cs.half("dev"), cs.half("held out")
    for name, every in (("facts", cs.FACTS), ("changes", cs.CHANGES), ("additions", cs.ADDITIONS)):
        ours, theirs = getattr(dev, name), getattr(held, name)
        assert {i.key for i in ours}.isdisjoint(i.key for i in theirs)
        assert {i.key for i in ours} | {i.key for i in theirs} == {i.key for i in every}
    held_globals = [f for f in held.facts if f.project is None]
    assert abs(len(held_globals) - len([f for f in dev.facts if f.project is None])) <= 1
    for part in (dev, held):
        keys = {f.key for f in part.facts}
        assert all(c.replaces in keys for c in part.changes)  # a change goes with its fact
        assert {f.project for f in part.facts} - {None} == set(part.projects)
    with pytest.raises(ValueError):
        cs.half("test")


# The evaluation on a tiny slice. The shop API pair is the one tests/test_it_supersedes.py holds the gate to: the
# newer supersedes the older. It is written three times, each labelled differently, to check what is counted.
OLD = "The shopfront API listens on port 8000."
NEW = "The shopfront API now listens on port 9000 since the reverse-proxy change."
OTHER = "Shopfront release notes go out every Friday afternoon in the #releases channel."
QUESTION = "What port does the shopfront API listen on?"
SLICE = CrowdedHalf(
    name="slice",
    projects=("alpha", "beta", "gamma"),
    facts=(
        Fact("alpha.port", "alpha", OLD, QUESTION),
        Fact("alpha.notes", "alpha", OTHER, "When do shopfront release notes go out?"),
        Fact("beta.port", "beta", OLD, QUESTION),
        Fact("beta.notes", "beta", OTHER, "When do shopfront release notes go out?"),
        Fact("gamma.port", "gamma", OLD, QUESTION),
    ),
    changes=(
        Change("alpha.port-9000", "alpha", NEW, "alpha.port", True, QUESTION),  # labelled right
        Change("beta.port-9000", "beta", NEW, "beta.notes", True, QUESTION),  # labelled as replacing another fact
    ),
    additions=(Addition("gamma.port-9000", "gamma", NEW, QUESTION),),  # labelled as adding a fact
)


def _check_slice(report: crowded_eval.HalfReport) -> None:
    ids = {w.item.key: w.memory_id for w in report.written}
    assert [w.outcome for w in report.written] == ["created"] * 8
    rows = Memory.objects.filter(pk__in=ids.values(), superseded_by__isnull=False)
    assert sorted(report.links) == sorted(rows.values_list("pk", "superseded_by_id"))  # the API agrees with the rows
    assert sorted(report.links) == sorted(
        [(ids["alpha.port"], ids["alpha.port-9000"]), (ids["beta.port"], ids["beta.port-9000"]),
         (ids["gamma.port"], ids["gamma.port-9000"])]
    )  # fmt: skip
    assert report.right == {(ids["alpha.port"], ids["alpha.port-9000"])}
    assert len(report.wrong) == 2
    assert sorted(w.item.key for w in report.hidden_facts) == ["beta.port", "gamma.port"]
    assert [w.item.key for w in report.additive] == ["gamma.port-9000"]
    handled = {r.change.key: r.handled for r in report.changes}
    assert handled == {"alpha.port-9000": True, "beta.port-9000": False}
    alpha = next(r for r in report.changes if r.change.key == "alpha.port-9000")
    assert (alpha.superseded, alpha.newer_first, alpha.recall_clean) == (True, True, True)
    # Still true by the labels: alpha's notes (found), beta's and gamma's ports (superseded, so missed).
    assert report.found == {"facts": (1, 3), "additions": (1, 1)}
    lines = crowded_eval.report_lines(report, SLICE)
    assert "  wrong: 2 wrong in 3 supersessions (per 100: 66.7)" in lines
    assert "additions that superseded something: 1/1 (100%)" in lines
    assert "true facts hidden (no change replaces them, now superseded): 2/3 (67%)" in lines
    misses = "\n".join(crowded_eval.miss_lines(report))
    assert f"{OLD!r} -> {NEW!r}" in misses and "[beta.port-9000, cue]" in misses


@pytest.mark.django_db
def test_it_counts_a_slice_through_the_api_in_process():
    _, raw = create_token(name="eval-crowded")
    report = crowded_eval.measure_half(crowded_eval.InProcessApi(raw), SLICE)
    _check_slice(report)
    assert set(Memory.objects.values_list("project", flat=True)) == {"alpha", "beta", "gamma"}


@pytest.mark.django_db
def test_it_counts_a_slice_over_http_in_projects_named_for_the_run(wsgi_transport):
    _, raw = create_token(name="eval-crowded")
    scopes = crowded_eval.Scopes.live()
    api = crowded_eval.HttpApi("http://localhost", raw, transport=wsgi_transport)
    try:
        report = crowded_eval.measure_half(api, SLICE, scopes=scopes)
    finally:
        api.close()
    _check_slice(report)
    assert scopes.prefix.startswith("crowd-") and len(scopes.prefix) == len("crowd-12345678-")
    assert set(Memory.objects.values_list("project", flat=True)) == {f"{scopes.prefix}{p}" for p in SLICE.projects}
    assert scopes.project(None) == f"{scopes.prefix}me"
