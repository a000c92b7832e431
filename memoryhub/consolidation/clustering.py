"""Finding memories that say the same thing: vector similarity plus shared words, within one scope.

Two memories of a scope are linked when their vectors are close (MEMORYHUB_CONSOLIDATE_SIMILARITY) and
  - they do not each name something the other does not (another service, version, path, person): two facts.
    A "name" is a number, an identifier or path, camelCase or ALLCAPS, or a word the scope writes capitalised
    (inside sentences, or as the first word of memories and never in lower case): `memories.details`, the one
    home of what a text says, which the write gate and the merge warnings read too;
  - and they share most of the smaller one's words, each word weighed by how rare it is in the scope
    (MEMORYHUB_CONSOLIDATE_WORD_OVERLAP), or they name exactly the same things and are closer still, or their
    vectors alone are very close (MEMORYHUB_CONSOLIDATE_STRONG_SIMILARITY).
Vectors alone over-link templated facts ("A listens on port 1" / "B listens on port 1" are near in meaning-space
but are two facts); words alone miss paraphrases. Clusters grow greedily from the strongest links, and a cluster
only takes a memory that is close to every member and names nothing another member names differently
(complete linkage), so a chain A~B~C never glues two unrelated memories through a middle one.

Scopes never mix: each project, and the global memories, are clustered on their own. Similarities are numpy
matrix products by blocks of rows: 10k memories in one scope take a second or two.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from django.conf import settings
from django.db.models import Q

from memoryhub.embeddings import get_embedder
from memoryhub.memories.details import Words, scope_lexicon, text_words
from memoryhub.models import Memory
from memoryhub.storage import sql

BLOCK_CELLS = 16_000_000  # similarities computed at once: 64 MB of float32, whatever the scope's size


def word_set(text: str) -> frozenset[str]:
    return text_words(text).words


def names_apart(a: Words, b: Words) -> bool:
    """Each names something the other does not (another service, another version, another person): two facts.

    One naming more than the other is fine: that is a duplicate with a detail added.
    """
    return bool(a.specific - b.words) and bool(b.specific - a.words)


def same_names(a: Words, b: Words) -> bool:
    """Both name the same two or more things and nothing else ("config/x.toml" and "x"; "x" and port "8080"),
    however each writes them ("UTC" or "utc")."""
    return len(a.specific | b.specific) >= 2 and a.specific <= b.words and b.specific <= a.words


def word_overlap(a: frozenset[str], b: frozenset[str], weights: dict[str, float] | None = None) -> float:
    """Shared words over the smaller set's words: a duplicate with an extra remark still counts as one.

    With `weights` (idf over the scope), a word every memory uses ("port", "service") counts for little and a
    name or a value for a lot, so "A listens on port 8080" and "B listens on port 8080" share little.
    """
    if not a or not b:
        return 0.0
    if weights is None:
        return len(a & b) / min(len(a), len(b))

    def mass(words: frozenset[str]) -> float:
        return sum(weights.get(w, 1.0) for w in words)

    smaller = min(mass(a), mass(b))
    return mass(a & b) / smaller if smaller > 0 else 0.0


def idf_weights(word_sets: list[frozenset[str]]) -> dict[str, float]:
    frequency: Counter[str] = Counter(w for words in word_sets for w in words)
    total = len(word_sets)
    # Squared: a name or a value seen once must outweigh several template words two memories happen to share.
    return {w: math.log(1.0 + total / df) ** 2 for w, df in frequency.items()}


@dataclass(frozen=True)
class Cluster:
    project: str | None
    ids: tuple[int, ...]  # ascending
    similarity: float  # lowest cosine similarity between two members
    overlap: float  # mean word overlap over the members' pairs

    @property
    def key(self) -> str:
        return cluster_key(self.ids)


def cluster_key(ids: Iterable[int]) -> str:
    return ",".join(str(i) for i in sorted(set(ids)))


@dataclass(frozen=True)
class Thresholds:
    similarity: float
    strong_similarity: float
    word_overlap: float
    max_size: int

    @classmethod
    def from_settings(cls) -> Thresholds:
        return cls(
            similarity=settings.MEMORYHUB_CONSOLIDATE_SIMILARITY,
            strong_similarity=settings.MEMORYHUB_CONSOLIDATE_STRONG_SIMILARITY,
            word_overlap=settings.MEMORYHUB_CONSOLIDATE_WORD_OVERLAP,
            max_size=settings.MEMORYHUB_CONSOLIDATE_MAX_CLUSTER,
        )


def active_in_scopes(scopes: list[str | None] | None):
    """Active memories embedded by the current model, in these scopes (None in the list: the globals; no list:
    every scope): what a consolidation pass, for merges or for updates, looks at."""
    rows = Memory.objects.active().filter(embed_model=get_embedder().model_id)
    if scopes is None:
        return rows
    wanted = Q(project__in=[s for s in scopes if s])
    if None in scopes:
        wanted |= Q(project__isnull=True)
    return rows.filter(wanted)


def _scope_rows(scopes: list[str | None] | None, exclude_ids: set[int]) -> dict[str | None, list[tuple[int, str]]]:
    rows = active_in_scopes(scopes)
    grouped: dict[str | None, list[tuple[int, str]]] = defaultdict(list)
    for pk, project, content in rows.order_by("pk").values_list("pk", "project", "content").iterator(chunk_size=2000):
        if pk not in exclude_ids:
            grouped[project].append((pk, content))
    return grouped


def candidate_pairs(matrix: np.ndarray, floor: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Index pairs (i < j) whose cosine similarity is at least `floor`, by blocks of rows."""
    firsts, seconds, sims = [], [], []
    n = len(matrix)
    block_rows = max(64, min(n, BLOCK_CELLS // max(n, 1)))
    for start in range(0, n, block_rows):
        stop = min(n, start + block_rows)
        block = matrix[start:stop] @ matrix[start:].T  # only columns from `start`: earlier ones were seen already
        # Within the block's own square keep j > i only.
        block[:, : stop - start][np.tril_indices(stop - start)] = -1.0
        rows, cols = np.nonzero(block >= floor)
        firsts.append(rows + start)
        seconds.append(cols + start)
        sims.append(block[rows, cols])
    if not firsts:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0, dtype=np.float32)
    return np.concatenate(firsts), np.concatenate(seconds), np.concatenate(sims)


def _cluster_scope(
    project: str | None, rows: list[tuple[int, str]], vectors: dict[int, np.ndarray], limits: Thresholds
) -> list[Cluster]:
    rows = [(pk, content) for pk, content in rows if pk in vectors]
    if len(rows) < 2:
        return []
    ids = [pk for pk, _ in rows]
    matrix = np.vstack([vectors[pk] for pk in ids]).astype(np.float32)
    matrix /= np.clip(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12, None)
    parsed = [text_words(content) for _, content in rows]
    lexicon = scope_lexicon(parsed)
    parsed = [p.knowing(lexicon) for p in parsed]
    words = [p.words for p in parsed]
    weights = idf_weights(words)

    # Naming exactly the same things makes a paraphrase likely even when few other words are shared.
    same_names_similarity = (limits.similarity + limits.strong_similarity) / 2
    firsts, seconds, sims = candidate_pairs(matrix, limits.similarity)
    links: list[tuple[float, float, int, int]] = []
    for i, j, sim in zip(firsts.tolist(), seconds.tolist(), sims.tolist(), strict=True):
        if names_apart(parsed[i], parsed[j]):
            continue
        overlap = word_overlap(words[i], words[j], weights)
        if (
            sim >= limits.strong_similarity
            or overlap >= limits.word_overlap
            or (sim >= same_names_similarity and same_names(parsed[i], parsed[j]))
        ):
            links.append((sim, overlap, i, j))
    # Strongest links first; ties broken by ids so a run is reproducible.
    links.sort(key=lambda link: (-link[0], -link[1], link[2], link[3]))

    parent = list(range(len(ids)))
    members: dict[int, list[int]] = {}

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for _, _, i, j in links:
        ri, rj = root(i), root(j)
        if ri == rj:
            continue
        group_i, group_j = members.get(ri, [i]), members.get(rj, [j])
        if len(group_i) + len(group_j) > limits.max_size:
            continue
        # Complete linkage: every member close to every other, and no two of them naming different things.
        cross = matrix[group_i] @ matrix[group_j].T
        if float(cross.min()) < limits.similarity:
            continue
        if any(names_apart(parsed[a], parsed[b]) for a in group_i for b in group_j):
            continue
        parent[rj] = ri
        members[ri] = group_i + group_j
        members.pop(rj, None)

    clusters = []
    for group in members.values():
        group = sorted(group)
        sub = matrix[group] @ matrix[group].T
        pair_overlaps = [word_overlap(words[a], words[b], weights) for n, a in enumerate(group) for b in group[n + 1 :]]
        clusters.append(
            Cluster(
                project=project,
                ids=tuple(sorted(ids[g] for g in group)),
                similarity=round(float(sub.min()), 4),
                overlap=round(sum(pair_overlaps) / len(pair_overlaps), 4),
            )
        )
    return clusters


def find_clusters(
    *,
    scopes: list[str | None] | None = None,
    exclude_ids: Iterable[int] = (),
    thresholds: Thresholds | None = None,
) -> list[Cluster]:
    """Clusters of duplicate or closely related active memories, each inside one scope.

    `scopes`: project names, with None for the global memories; None means every scope. Memories in
    `exclude_ids` (for instance those already waiting in a pending proposal) take no part.
    """
    limits = thresholds or Thresholds.from_settings()
    dimensions = get_embedder().dimensions
    clusters: list[Cluster] = []
    grouped = _scope_rows(scopes, set(exclude_ids))
    for project, rows in sorted(grouped.items(), key=lambda kv: (kv[0] is not None, kv[0] or "")):
        vectors = sql.read_vectors([pk for pk, _ in rows], dimensions)
        clusters.extend(_cluster_scope(project, rows, vectors, limits))
    clusters.sort(key=lambda c: (c.project or "", c.ids))
    return clusters
