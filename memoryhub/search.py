"""Hybrid search: BM25 over FTS5 and KNN over vec0, fused by rank, then weighed by effective importance.

The one search function the API, recall, the tools and the dashboard all call.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from memoryhub import sql
from memoryhub.embeddings import get_embedder
from memoryhub.models import Memory, Status
from memoryhub.store import reinforce

MODES = ("hybrid", "keyword", "semantic")
_TOKEN = re.compile(r"\w+", re.UNICODE)


@dataclass
class SearchHit:
    memory: Memory
    score: float
    explain: dict[str, Any] = field(default_factory=dict)


def fts_expression(text: str, max_tokens: int = 32) -> str:
    """A MATCH expression that cannot be a syntax error: every token quoted, joined with OR."""
    tokens = list(dict.fromkeys(t.lower() for t in _TOKEN.findall(text)))[:max_tokens]
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in tokens)


def search_memories(
    *,
    query: str,
    project: str | None = None,
    k: int = 10,
    mode: str = "hybrid",
    category: str | None = None,
    tier: str | None = None,
    tags: list[str] | None = None,
    source: str | None = None,
    status: str | None = Status.ACTIVE,
    allowed_projects: list[str] | None = None,
    reinforce_results: bool = False,
) -> list[SearchHit]:
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}")
    pool = max(k * 5, 50)
    keyword: list[tuple[int, float]] = []
    semantic: list[tuple[int, float]] = []
    if mode in ("hybrid", "keyword"):
        expression = fts_expression(query)
        if expression:
            keyword = sql.fts_match(expression, pool)
    if mode in ("hybrid", "semantic") and query.strip():
        embedder = get_embedder()
        semantic = sql.knn(embedder.embed([query])[0], pool)
    candidates = {mid for mid, _ in keyword} | {mid for mid, _ in semantic}
    rows = Memory.objects.filter(pk__in=candidates).visible_from(project).in_projects(allowed_projects)
    if status:
        rows = rows.filter(status=status)
    if category:
        rows = rows.filter(category=category)
    if tier:
        rows = rows.filter(tier=tier)
    if source:
        rows = rows.filter(source=source)
    memories = {m.pk: m for m in rows}
    if tags:
        memories = {i: m for i, m in memories.items() if set(tags) <= set(m.tags)}
    if mode in ("hybrid", "semantic"):
        model_id = get_embedder().model_id
        memories = {i: m for i, m in memories.items() if m.embed_model == model_id or i in dict(keyword)}
    kw_rank = {mid: (r, s) for r, (mid, s) in enumerate([x for x in keyword if x[0] in memories], 1)}
    vec_rank = {mid: (r, d) for r, (mid, d) in enumerate([x for x in semantic if x[0] in memories], 1)}
    rrf_k = settings.MEMORYHUB_RRF_K
    hits = []
    for mid, memory in memories.items():
        fused = 0.0
        if mid in kw_rank:
            fused += settings.MEMORYHUB_KEYWORD_WEIGHT / (rrf_k + kw_rank[mid][0])
        if mid in vec_rank:
            fused += settings.MEMORYHUB_SEMANTIC_WEIGHT / (rrf_k + vec_rank[mid][0])
        effective = memory.effective_importance
        factor = 0.85 + 0.15 * effective + (0.05 if memory.confirmed else 0.0)
        best = (settings.MEMORYHUB_KEYWORD_WEIGHT + settings.MEMORYHUB_SEMANTIC_WEIGHT) / (rrf_k + 1)
        score = round(fused / best * factor, 6)
        hits.append(
            SearchHit(
                memory,
                score,
                {
                    "keyword_rank": kw_rank.get(mid, (None,))[0],
                    "bm25": kw_rank[mid][1] if mid in kw_rank else None,
                    "vector_rank": vec_rank.get(mid, (None,))[0],
                    "distance": vec_rank[mid][1] if mid in vec_rank else None,
                    "fused": round(fused, 6),
                    "importance_factor": round(factor, 4),
                    "effective_importance": effective,
                },
            )
        )
    hits.sort(key=lambda h: (-h.score, h.memory.pk))
    hits = hits[:k]
    if reinforce_results:
        reinforce(memory_ids=[h.memory.pk for h in hits])
    return hits
