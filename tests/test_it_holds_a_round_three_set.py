"""The round-three sets keep their shape: sizes, halves that do not overlap, changes that name a stored fact,
and fold pairs whose detail is really new (bench/crowded_round3.py, bench/fold_round3.py)."""

from __future__ import annotations

from collections import Counter

from bench import crowded_round3, fold_round3


def test_it_holds_a_crowded_store_of_five_projects_and_the_users_own_facts():
    scopes = Counter(f.project for f in crowded_round3.FACTS)
    assert set(scopes) == {*crowded_round3.PRODUCTS, None}
    assert all(45 <= scopes[p] <= 55 for p in crowded_round3.PRODUCTS)
    assert 25 <= scopes[None] <= 35
    assert len({f.key for f in crowded_round3.FACTS}) == len(crowded_round3.FACTS)
    assert len({(f.project, f.text) for f in crowded_round3.FACTS}) == len(crowded_round3.FACTS)


def test_it_holds_changes_with_and_without_a_cue_and_additions():
    changes = crowded_round3.CHANGES
    assert 65 <= len(changes) <= 80
    assert 35 <= sum(c.cue for c in changes) <= 45
    assert 25 <= sum(not c.cue for c in changes) <= 35
    assert 45 <= len(crowded_round3.ADDITIONS) <= 55


def test_every_change_names_one_stored_fact_of_its_own_scope():
    facts = {f.key: f for f in crowded_round3.FACTS}
    for change in crowded_round3.CHANGES:
        assert change.replaces in facts, change.key
        assert facts[change.replaces].project == change.project, change.key
        assert change.text != facts[change.replaces].text, change.key
    replaced = [c.replaces for c in crowded_round3.CHANGES]
    assert len(replaced) == len(set(replaced))  # one change per fact: each replacement is judged on its own


def test_additions_and_changes_are_new_writes():
    stored = {f.text for f in crowded_round3.FACTS}
    keys = {f.key for f in crowded_round3.FACTS}
    for item in (*crowded_round3.CHANGES, *crowded_round3.ADDITIONS):
        assert item.text not in stored and item.key not in keys, item.key
        assert item.question.endswith("?"), item.key


def test_the_crowded_halves_do_not_overlap_and_cover_every_change_and_addition():
    dev, held = crowded_round3.half("dev"), crowded_round3.half("held_out")
    assert {c.key for c in dev.changes}.isdisjoint({c.key for c in held.changes})
    assert {a.key for a in dev.additions}.isdisjoint({a.key for a in held.additions})
    assert len(dev.changes) + len(held.changes) == len(crowded_round3.CHANGES)
    assert len(dev.additions) + len(held.additions) == len(crowded_round3.ADDITIONS)
    # the facts a half's changes replace belong to that half alone
    assert {c.replaces for c in dev.changes}.isdisjoint({c.replaces for c in held.changes})
    assert all(crowded_round3.FACT_HALF[c.replaces] == "dev" for c in dev.changes)
    for part in (dev, held):
        assert part.facts == crowded_round3.FACTS  # the store stays crowded in both
        assert sum(c.cue for c in part.changes) >= 15 and sum(not c.cue for c in part.changes) >= 10
        assert len(part.additions) >= 20


def test_the_split_is_every_other_fact_per_scope():
    for scope in (*crowded_round3.PRODUCTS, None):
        keys = [f.key for f in crowded_round3.FACTS if f.project == scope]
        assert [crowded_round3.FACT_HALF[k] for k in keys[:4]] == ["dev", "held_out", "dev", "held_out"]


def test_it_holds_fold_pairs_that_add_a_detail_and_paraphrases():
    pairs = fold_round3.PAIRS
    adds = [p for p in pairs if p.adds_detail]
    same = [p for p in pairs if not p.adds_detail]
    assert len(adds) >= 60 and len(same) >= 60
    assert len({p.key for p in pairs}) == len(pairs)
    for pair in adds:
        assert pair.detail and pair.detail in pair.write, pair.key
        assert pair.detail.lower() not in pair.stored.lower(), pair.key
    assert all(not p.detail for p in same)
    assert len(Counter(p.domain for p in pairs)) >= 5


def test_the_fold_halves_do_not_overlap_and_share_no_stored_sentence():
    dev, held = fold_round3.half("dev"), fold_round3.half("held_out")
    assert {p.key for p in dev}.isdisjoint({p.key for p in held})
    assert {p.stored for p in dev}.isdisjoint({p.stored for p in held})
    assert len(dev) + len(held) == len(fold_round3.PAIRS)
    for part in (dev, held):
        assert sum(p.adds_detail for p in part) >= 30 and sum(not p.adds_detail for p in part) >= 30
