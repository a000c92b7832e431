"""The knowledge-updates labelled set: pairs of writes, an older one then a newer one, as agents write them.

Four kinds: an update that says it changed (`cue`), an update that just states another value (`nocue`), two
look-alike facts that are both true (`alike`: they differ in a qualifier such as the environment, the service or
the region), and a paraphrase of the same value (`same`: a duplicate, not an update). Each pair carries the
question a person would ask, one per fact for look-alikes.

`HELD_OUT` was written first, in another domain mix, before any rule; the rules were tuned on `DEV` alone, and
`python -m bench updates` reports both. The data is bench/data/updates_set.json.
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.sets import load


@dataclass(frozen=True)
class UpdatePair:
    kind: str  # cue | nocue | alike | same
    older: str
    newer: str
    question: str  # for alike: the older fact's question
    newer_question: str = ""  # for alike: the newer fact's question


def _pairs(rows: list[dict[str, str]]) -> tuple[UpdatePair, ...]:
    return tuple(UpdatePair(**row) for row in rows)


_DATA = load("updates_set")
# Held out: written before any rule, never tuned on. Another domain mix (data, mobile, cloud, team process).
HELD_OUT: tuple[UpdatePair, ...] = _pairs(_DATA["held_out"])
# Tuned on: the kinds of pair the issue measured (web backends, CI, infrastructure, team habits).
DEV: tuple[UpdatePair, ...] = _pairs(_DATA["dev"])
