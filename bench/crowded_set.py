"""The crowded-store set: a store an agent team would build up over months, then the writes that change it.

Six projects of about fifty facts each, each with a product name that its facts use ("Ledger's staging DB ...")
and that is not always its slug, plus about forty global facts (the person's own machine, accounts, habits and
preferences). Many facts have a true look-alike (staging and production, iOS and Android, EU and US, two owners
of two things; `LOOK_ALIKES`). Then two kinds of later writes:

- `CHANGES` replace exactly one stored fact (`replaces`): some say they changed (`cue`: "now", "moved to",
  "switched from", "no longer", "as of March"), some only give the new value;
- `ADDITIONS` add a new fact and replace nothing, though many use the same words ("also", "now", "started",
  "switched on", "moved") and the same product and environment names as stored facts, and some sit close in
  meaning to a stored fact without any such word.

Each item carries the question a person would ask to find it (for a change: the question the new value answers).
The data was written first; the split into a dev half and a held-out half (three projects each, and half of the
globals) was drawn afterwards with a fixed seed (`half("dev")`, `half("held out")`). `python -m bench updates
--store` measures both. The data is bench/data/crowded_set.json.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from bench.sets import load


@dataclass(frozen=True)
class Fact:
    key: str
    project: str | None
    text: str
    question: str


@dataclass(frozen=True)
class Change:
    key: str
    project: str | None
    text: str
    replaces: str  # the key of the fact it replaces
    cue: bool  # whether the text says that something changed
    question: str  # answered by the new value


@dataclass(frozen=True)
class Addition:
    key: str
    project: str | None
    text: str
    question: str


@dataclass(frozen=True)
class CrowdedHalf:
    name: str
    projects: tuple[str, ...]
    facts: tuple[Fact, ...]
    changes: tuple[Change, ...]
    additions: tuple[Addition, ...]


GLOBAL = "me"  # the key prefix of the globals (project None)


@dataclass(frozen=True)
class CrowdedStore:
    """A crowded set as written (bench/data/<name>.json): the projects, then each scope's facts, changes and
    additions, scope by scope in the file's order."""

    products: dict[str, str]  # project slug -> the product name its facts use
    facts: tuple[Fact, ...]
    changes: tuple[Change, ...]
    additions: tuple[Addition, ...]


def scope_of(prefix: str) -> str | None:
    return None if prefix == GLOBAL else prefix


def load_crowded(name: str) -> CrowdedStore:
    """The crowded set `name`: each item's key is its scope's prefix and its own name (`ledger.db-prod`)."""
    data = load(name)
    facts, changes, additions = [], [], []
    for scope in data["scopes"]:
        prefix, project = scope["prefix"], scope_of(scope["prefix"])
        facts += [Fact(f"{prefix}.{f['key']}", project, f["text"], f["question"]) for f in scope["facts"]]
        changes += [
            Change(f"{prefix}.{c['key']}", project, c["text"], f"{prefix}.{c['replaces']}", c["cue"], c["question"])
            for c in scope["changes"]
        ]
        additions += [Addition(f"{prefix}.{a['key']}", project, a["text"], a["question"]) for a in scope["additions"]]
    return CrowdedStore(data["products"], tuple(facts), tuple(changes), tuple(additions))


# Six projects (Ledger, Tollgate, FieldKit, Atlas Search, Riverbed, Storefront) and the person's own facts.
_SET = load_crowded("crowded_set")
PRODUCTS: dict[str, str] = _SET.products
FACTS: tuple[Fact, ...] = _SET.facts
CHANGES: tuple[Change, ...] = _SET.changes
ADDITIONS: tuple[Addition, ...] = _SET.additions

# Pairs of stored facts that are both true and differ in a qualifier (environment, platform, region, owner of what).
LOOK_ALIKES: tuple[tuple[str, str], ...] = tuple(
    (first, second) for first, second in load("crowded_set")["look_alikes"]
)

# ---------------------------------------------------------------------------------------------------------------
# The split, drawn after the data above was written.

SPLIT_SEED = 20240917
_draw = random.Random(SPLIT_SEED)
HELD_OUT_PROJECTS: tuple[str, ...] = tuple(sorted(_draw.sample(sorted(PRODUCTS), 3)))
DEV_PROJECTS: tuple[str, ...] = tuple(sorted(p for p in PRODUCTS if p not in HELD_OUT_PROJECTS))
_global_facts = sorted(f.key for f in FACTS if f.project is None)
_global_additions = sorted(a.key for a in ADDITIONS if a.project is None)
_draw.shuffle(_global_facts)
_draw.shuffle(_global_additions)
# The held-out globals: half of the global facts (with the changes that replace them) and half of the global
# additions (which replace nothing, so they are drawn by their own keys).
HELD_OUT_GLOBAL_KEYS: frozenset[str] = frozenset(
    _global_facts[: len(_global_facts) // 2] + _global_additions[: len(_global_additions) // 2]
)
del _draw, _global_facts, _global_additions

HALVES = ("dev", "held out")


def _held_out(project: str | None, key: str) -> bool:
    """Whether a fact (or a global addition, by its own key) belongs to the held-out half."""
    return key in HELD_OUT_GLOBAL_KEYS if project is None else project in HELD_OUT_PROJECTS


def half(name: str) -> CrowdedHalf:
    """The facts, changes and additions of "dev" or "held out"; a change goes with the fact it replaces."""
    if name not in HALVES:
        raise ValueError(f"no half named {name!r}; the halves are {HALVES}")
    held = name == "held out"
    return CrowdedHalf(
        name=name,
        projects=HELD_OUT_PROJECTS if held else DEV_PROJECTS,
        facts=tuple(f for f in FACTS if _held_out(f.project, f.key) == held),
        changes=tuple(c for c in CHANGES if _held_out(c.project, c.replaces) == held),
        additions=tuple(a for a in ADDITIONS if _held_out(a.project, a.key) == held),
    )
