"""Round three of the crowded store: five projects and the user's own facts, then the writes that change them.

Written blind to the gate's rules and to the earlier sets' sentences, in the voices agents and people use: an
agent's third person ("Keelson's CI runs ..."), the user's first person ("I moved to ..."), terse notes
("targetSdk is 34."), long sentences, and the vocabularies of infrastructure (Keelson), a mobile app (Wayfarer),
data science (Almanac), finance (Coffer), device firmware (Ember) and personal preferences (the globals).

- `FACTS`: what the store holds (about fifty per project, about thirty of the user's own, project None).
- `CHANGES`: each replaces exactly one stored fact, named by `replaces`; `cue` says whether the text says that
  something changed ("moved", "now", "no longer", "was upgraded") or only gives the new value.
- `ADDITIONS`: new facts that replace nothing, though they use change words ("also", "now", "started",
  "switched on", "moved", "upgraded", "migrated") and the stored facts' names.

The split was fixed with the data, before any measurement: within each scope (a project, or the globals) the
facts alternate in the order written, the first to `dev`, the second to `held_out`, and so on; a change goes
with the half of the fact it replaces; the additions alternate the same way within their scope. A half's store
still holds every fact (the crowd is the point): `half(name)` gives all the facts, and that half's changes and
additions. `python -m bench updates --set round3 --half dev|held_out` measures one half through a live server.
The data is bench/data/crowded_round3.json.
"""

from __future__ import annotations

from bench.crowded_set import Addition, Change, CrowdedHalf, Fact, load_crowded

# Five projects (Keelson, Wayfarer, Almanac, Coffer, Ember) and the user's own facts.
_SET = load_crowded("crowded_round3")
PRODUCTS: dict[str, str] = _SET.products
FACTS: tuple[Fact, ...] = _SET.facts
CHANGES: tuple[Change, ...] = _SET.changes
ADDITIONS: tuple[Addition, ...] = _SET.additions

# ---------------------------------------------------------------------------------------------------------------
# The split, fixed with the data before any measurement: every other item per scope.

HALVES = ("dev", "held_out")


def _alternate(keys_by_scope: dict[str | None, list[str]]) -> dict[str, str]:
    """Within each scope, in the order written: the first item to dev, the second to held_out, and so on."""
    return {key: HALVES[i % 2] for keys in keys_by_scope.values() for i, key in enumerate(keys)}


def _by_scope(items: tuple[Fact, ...] | tuple[Addition, ...]) -> dict[str | None, list[str]]:
    grouped: dict[str | None, list[str]] = {}
    for item in items:
        grouped.setdefault(item.project, []).append(item.key)
    return grouped


FACT_HALF: dict[str, str] = _alternate(_by_scope(FACTS))
ADDITION_HALF: dict[str, str] = _alternate(_by_scope(ADDITIONS))


def change_half(change: Change) -> str:
    """A change belongs to the half of the fact it replaces."""
    return FACT_HALF[change.replaces]


def half(name: str) -> CrowdedHalf:
    """Every fact (the store stays crowded), and the changes and additions of `name` ("dev" or "held_out")."""
    if name not in HALVES:
        raise ValueError(f"no half named {name!r}; the halves are {HALVES}")
    return CrowdedHalf(
        name=name,
        projects=tuple(PRODUCTS),
        facts=FACTS,
        changes=tuple(c for c in CHANGES if change_half(c) == name),
        additions=tuple(a for a in ADDITIONS if ADDITION_HALF[a.key] == name),
    )
