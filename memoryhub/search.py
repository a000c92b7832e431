"""Hybrid search: BM25 over FTS5 and KNN over vec0, fused by weighted rank, then weighed by effective importance.

The one search function the API, recall, the tools and the dashboard all call.

Three ranked lists are fused with weighted reciprocal rank fusion (RRF): words (porter FTS5, stopwords out),
identifier substrings (trigram FTS5, only when the query holds an identifier, a path or a version) and meaning
(vec0 KNN on the query's embedding). The fused value, normalised by the best any memory could get, is blended
with the share of the query's words the memory holds, then scaled by an absolute relevance (cosine similarity,
word coverage) so the `score` says how good a match is and not only how it ranked, and multiplied by an
importance factor (effective importance after decay, confirmation). Results are ordered by that score, so
`score` and order always agree; a memory holding the query verbatim scores 1 + that and comes first.

Tuned on LoCoMo (eval_locomo) with general levers only: stopwords, list weights, a small RRF constant
(ranks near the top matter most), word coverage; see the settings block "Search".
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.conf import settings

from memoryhub import query_text, sql, vector_index
from memoryhub.embeddings import get_embedder
from memoryhub.models import Memory, Status
from memoryhub.store import reinforce

MODES = ("hybrid", "keyword", "semantic")
MAX_K = 100
_WORD = re.compile(r"\w+", re.UNICODE)
_SPACES = re.compile(r"\s+")


@dataclass
class SearchHit:
    memory: Memory
    score: float
    explain: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Signals:
    keyword_rank: int | None = None
    bm25: float | None = None
    substring_rank: int | None = None
    exact_match: bool = False
    vector_rank: int | None = None
    distance: float | None = None


def fts_expression(text: str, max_tokens: int = 32) -> str:
    """A MATCH expression that cannot be a syntax error: every content word quoted, joined with OR."""
    return query_text.parse(text).word_expression


# --- Keyword side ---------------------------------------------------------------------------------------------


def _keyword(kq: query_text.KeywordQuery, pool: int, where: str, params: list, signals: dict[int, _Signals]) -> None:
    if kq.terms:
        for rank, (mid, bm25) in enumerate(sql.fts_search(kq.word_expression, pool, where, params), 1):
            s = signals.setdefault(mid, _Signals())
            s.keyword_rank, s.bm25 = rank, round(bm25, 4)
    if kq.substrings:
        hits = sql.fts_search(kq.substring_expression, pool, where, params, table=sql.TRIGRAM_TABLE)
        for rank, (mid, _) in enumerate(hits, 1):
            signals.setdefault(mid, _Signals()).substring_rank = rank


# --- Semantic side --------------------------------------------------------------------------------------------


_totals: dict[tuple[str, str], tuple[float, int]] = {}


def _vector_total(model_id: str) -> int:
    """Rows with a vector of the active model. Counting reads the whole embed_model index (~20 ms at 100k), so
    a large store's count is reused for a few seconds: there it only chooses the quantized path and how far to
    widen, and the widening loop below does not trust it. A small store is counted every time."""
    key = (str(sql.connection.settings_dict.get("NAME")), model_id)
    cached = _totals.get(key)
    if cached and cached[1] > settings.MEMORYHUB_EXACT_KNN_MAX and time.monotonic() - cached[0] < 10.0:
        return cached[1]
    total = sql.count_memories("m.embed_model = %s", [model_id])
    _totals[key] = (time.monotonic(), total)
    return total


def _semantic(
    query: str, pool: int, where: str, params: list, scope: dict, signals: dict[int, _Signals]
) -> dict[str, Any]:
    embedder = get_embedder()
    started = time.perf_counter()
    vector = embedder.embed([query])[0]
    embed_ms = (time.perf_counter() - started) * 1000
    # Only vectors of the active model answer (another model's distances mean nothing here).
    where_model = f"{where} AND m.embed_model = %s"
    params_model = [*params, embedder.model_id]
    # Scope sizes are read from the (project, status) index alone: checking embed_model there would read every
    # row (100 ms at 100k). The model is checked on the candidates instead, below.
    rest, rest_params = scope["rest"], scope["rest_params"]
    allowed = sql.count_scoped(scope["alternatives"], rest, rest_params)
    if not allowed:
        return {"embed_ms": round(embed_ms, 2), "knn": "none"}
    total = max(_vector_total(embedder.model_id), allowed)
    large = total > settings.MEMORYHUB_EXACT_KNN_MAX
    if allowed <= settings.MEMORYHUB_KNN_FILTER_IDS_MAX:
        ids = sql.ids_scoped(scope["alternatives"], rest, rest_params, limit=allowed)
        # A narrow filter: rank within the allowed rows instead of hoping they surface in a global pool.
        if large:
            found, how = vector_index.nearest_among(vector, embedder.model_id, ids, pool), "quantized-filtered"
        else:
            found, how = sql.knn_among(vector, min(pool, len(ids)), ids), "exact-filtered"
        passing = sql.filter_memory_ids([mid for mid, _ in found], where_model, params_model)
        found = [(mid, d) for mid, d in found if mid in passing]
    else:
        # Widen the pool by the filter's selectivity so that about `pool` allowed rows survive the filter.
        fetch = math.ceil(pool * total / max(allowed, 1) * 1.5)
        cap = total if large else settings.MEMORYHUB_KNN_MAX_FETCH
        while True:
            fetch = min(fetch, cap)
            if large:
                found_ids, distances = vector_index.nearest(vector, embedder.model_id, fetch)
                rows, how = list(zip(found_ids.tolist(), distances.tolist(), strict=True)), "quantized"
            else:
                rows, how = sql.knn(vector, fetch), "exact"
            found = []
            for start in range(0, len(rows), 500):
                chunk = rows[start : start + 500]
                passing = sql.filter_memory_ids([mid for mid, _ in chunk], where_model, params_model)
                found.extend((mid, d) for mid, d in chunk if mid in passing)
                if len(found) >= pool:
                    break
            # Other filters (category, tags, dates) narrow further than the scope count knew: widen once more.
            if len(found) >= pool or len(rows) < fetch or fetch >= cap:
                break
            fetch *= 4
        found = found[:pool]
    for rank, (mid, distance) in enumerate(found, 1):
        s = signals.setdefault(mid, _Signals())
        s.vector_rank, s.distance = rank, round(distance, 6)
    return {"embed_ms": round(embed_ms, 2), "knn": how}


# --- Fusion ---------------------------------------------------------------------------------------------------


def _coverage(terms: tuple[str, ...], content: str) -> float:
    """Share of the query's content words found in the memory (a word or, for longer words, its stem-ish prefix)."""
    if not terms:
        return 0.0
    words = set(w.lower() for w in _WORD.findall(content))
    prefixes = {w[:5] for w in words if len(w) >= 5}
    found = sum(1 for t in terms if t in words or (len(t) >= 5 and t[:5] in prefixes))
    return found / len(terms)


def importance_factor(confirmed: bool, effective: float) -> float:
    """1.0 for a confirmed memory at full importance; lower as importance decays. Never zero: relevance leads."""
    weight = settings.MEMORYHUB_IMPORTANCE_WEIGHT
    bonus = settings.MEMORYHUB_CONFIRMED_BONUS
    return (1.0 - weight - bonus) + weight * effective + (bonus if confirmed else 0.0)


@dataclass
class _Row:
    """What fusion needs of a candidate; the full Memory is loaded only for the k returned."""

    pk: int
    content: str
    effective: float
    confirmed: bool


def _rows(ids: list[int]) -> dict[int, _Row]:
    from memoryhub.decay import days_since, decay_rate, decayed

    out = {}
    for pk, content, importance, confirmed, category, tier, referenced in sql.fusion_rows(ids):
        effective = decayed(importance, decay_rate(category, tier), days_since(referenced), confirmed)
        out[pk] = _Row(pk, content, effective, confirmed)
    return out


def _fuse(rows: dict[int, _Row], signals: dict[int, _Signals], kq, mode: str) -> list[tuple[float, int, dict]]:
    """Order and score the candidates; see the module docstring. Returns (score, id, explain), best first."""
    k = settings.MEMORYHUB_RRF_K
    weights = {
        "keyword": settings.MEMORYHUB_KEYWORD_WEIGHT if mode != "semantic" else 0.0,
        "substring": settings.MEMORYHUB_SUBSTRING_WEIGHT if mode != "semantic" and kq.substrings else 0.0,
        "semantic": settings.MEMORYHUB_SEMANTIC_WEIGHT if mode != "keyword" else 0.0,
    }
    best = sum(weights.values()) / (k + 1) or 1.0
    coverage_weight = settings.MEMORYHUB_COVERAGE_WEIGHT if mode != "semantic" else 0.0
    phrase = kq.phrase.casefold() if kq.phrase else ""
    absolute_share = settings.MEMORYHUB_SCORE_ABSOLUTE
    scored = []
    for mid, row in rows.items():
        s = signals[mid]
        fused = 0.0
        if s.keyword_rank:
            fused += weights["keyword"] / (k + s.keyword_rank)
        if s.substring_rank:
            fused += weights["substring"] / (k + s.substring_rank)
        if s.vector_rank:
            fused += weights["semantic"] / (k + s.vector_rank)
        rank_part = min(1.0, fused / best)
        coverage = _coverage(kq.terms, row.content) if coverage_weight and (s.keyword_rank or s.substring_rank) else 0.0
        # The whole query found verbatim (an error message, a file name): that memory is what was asked for.
        # Checked on the candidates, which the word and substring lists already found: a trigram phrase query
        # over the whole store cost up to 100 ms for a pasted error message.
        s.exact_match = bool(phrase) and phrase in _SPACES.sub(" ", row.content).casefold()
        similarity = None if s.distance is None else max(0.0, 1.0 - s.distance)
        # Absolute relevance, readable on its own: how close in meaning (MiniLM: unrelated texts sit near 0.1,
        # paraphrases above 0.7), how many of the query's words are there.
        closeness = 0.0 if similarity is None else min(1.0, max(0.0, (similarity - 0.1) / 0.6))
        absolute = max(closeness, coverage) if mode == "hybrid" else (closeness if mode == "semantic" else coverage)
        # Ranks order; the absolute part keeps "first of nothing good" from looking like a good match.
        relevance = (rank_part + coverage_weight * coverage) / (1.0 + coverage_weight)
        relevance *= (1.0 - absolute_share) + absolute_share * absolute
        factor = importance_factor(row.confirmed, row.effective)
        score = relevance * factor
        exact = s.exact_match and mode != "semantic"
        if exact:
            # Typed verbatim (an identifier, a file name, an error message): above anything that only resembles
            # the query, whatever its importance. Such scores are 1 + the usual score.
            score += 1.0
        explain = {
            "keyword_rank": s.keyword_rank,
            "bm25": s.bm25,
            "substring_rank": s.substring_rank,
            "exact_match": exact,
            "vector_rank": s.vector_rank,
            "distance": s.distance,
            "similarity": None if similarity is None else round(similarity, 4),
            "word_coverage": round(coverage, 4),
            "fused": round(fused, 6),
            "relevance": round(relevance, 6),
            "effective_importance": row.effective,
            "confirmed": row.confirmed,
            "importance_factor": round(factor, 4),
        }
        scored.append((round(score, 6), mid, explain))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return scored


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
    every_project: bool = False,
    created_after: datetime | None = None,
    created_before: datetime | None = None,
    accessed_after: datetime | None = None,
    accessed_before: datetime | None = None,
) -> list[SearchHit]:
    """Best first. `project` sees its own memories and the globals (no project: globals only, unless
    `every_project`); `allowed_projects` is a token's limit; `status=None` searches archived ones too.

    `reinforce_results=True` is for agents: what they were given counts as used. Browsing passes False.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}")
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise ValueError(f"k must be a whole number from 1 to {MAX_K}")
    if not isinstance(query, str):
        raise ValueError("query must be text")
    if not query.strip():
        return []
    query = query[: query_text.MAX_QUERY_CHARS]
    sql.prepare_reads()
    filters = {
        "project": project,
        "every_project": every_project,
        "allowed_projects": allowed_projects,
        "status": status or None,
        "category": category or None,
        "tier": tier or None,
        "source": source or None,
        "tags": tags or None,
        "created_after": created_after,
        "created_before": created_before,
        "accessed_after": accessed_after,
        "accessed_before": accessed_before,
    }
    where, params = sql.memory_filter_sql(**filters)
    rest, rest_params = sql.memory_filter_sql(**filters, include_scope=False)
    scope = {
        "alternatives": sql.scope_alternatives(project=project, every_project=every_project),
        "rest": rest,
        "rest_params": rest_params,
    }
    pool = max(k * 5, settings.MEMORYHUB_SEARCH_POOL)
    kq = query_text.parse(query)
    signals: dict[int, _Signals] = {}
    vector_info: dict[str, Any] = {}
    if mode in ("hybrid", "keyword"):
        _keyword(kq, pool, where, params, signals)
    if mode in ("hybrid", "semantic"):
        vector_info = _semantic(query, pool, where, params, scope, signals)
    rows = _rows(list(signals))
    ranked = _fuse(rows, signals, kq, mode)[:k]
    memories = Memory.objects.in_bulk([mid for _, mid, _ in ranked])
    extra = {"mode": mode, **({"knn": vector_info["knn"]} if "knn" in vector_info else {})}
    hits = [SearchHit(memories[mid], score, explain | extra) for score, mid, explain in ranked if mid in memories]
    if reinforce_results and hits:
        reinforce(memory_ids=[h.memory.pk for h in hits])
        vector_index.acknowledge_own_write()  # counts and dates changed, no vector did
    return hits
