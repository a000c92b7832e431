"""Pairs already in the store where a newer memory replaces or contradicts an older one: what a consolidation
run puts to a person as conflicts (a store that existed before write-time supersession has many), and what it
must never propose to merge (folding two texts that contradict each other into one).

The same rules as the write gate (`memories.updates.judge_pair`), over every close pair of a scope.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from memoryhub.consolidation.clustering import active_in_scopes, candidate_pairs
from memoryhub.embeddings import get_embedder
from memoryhub.memories.updates import Verdict
from memoryhub.storage import sql
from memoryhub.writes.update_gate import judge_link

# Pairs closer than this are judged: the gate judges its nearest neighbours above the rules' own floor, but
# every pair of a large scope is too many to judge, and updates of one fact sit well above it.
PAIR_FLOOR = 0.6


@dataclass(frozen=True)
class StoredUpdate:
    project: str | None
    older: int
    newer: int
    verdict: Verdict  # supersede or conflict
    reason: str
    similarity: float


def find_update_pairs(
    *, scopes: list[str | None] | None = None, exclude_ids: set[int] | None = None
) -> list[StoredUpdate]:
    """Every pair of active memories of one scope the update rules say is a replacement or a contradiction,
    older (by `valid_from`, then id) first."""
    exclude_ids = exclude_ids or set()
    embedder = get_embedder()
    rows = active_in_scopes(scopes)
    grouped: dict[str | None, list[tuple]] = defaultdict(list)
    for row in rows.order_by("pk").values_list("pk", "project", "content", "valid_from", "created_at"):
        if row[0] not in exclude_ids:
            grouped[row[1]].append(row)
    found: list[StoredUpdate] = []
    for project, members in grouped.items():
        if len(members) < 2:
            continue
        vectors = sql.read_vectors([m[0] for m in members], embedder.dimensions)
        members = [m for m in members if m[0] in vectors]
        if len(members) < 2:
            continue
        matrix = np.stack([np.asarray(vectors[m[0]], dtype=np.float32) for m in members])
        matrix /= np.linalg.norm(matrix, axis=1, keepdims=True).clip(min=1e-9)
        firsts, seconds, sims = candidate_pairs(matrix, PAIR_FLOOR)  # by blocks: a large scope fits in memory
        for i, j, sim in zip(firsts.tolist(), seconds.tolist(), sims.tolist(), strict=True):
            a, b = members[i], members[j]
            older, newer = sorted((a, b), key=lambda m: (m[3] or m[4], m[0]))
            verdict = judge_link(older=older[2], newer=newer[2], similarity=float(sim), project=project)
            if verdict.verdict in (Verdict.SUPERSEDE, Verdict.CONFLICT):
                found.append(StoredUpdate(project, older[0], newer[0], verdict.verdict, verdict.reason, float(sim)))
    return found
