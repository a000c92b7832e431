"""Hybrid search: BM25 over FTS5 and KNN over the vectors, fused (fusion.py), floored, weighed by importance.

The one search function the API, recall, the tools and the dashboard all call.

Three ranked lists are gathered here: words (porter FTS5, stopwords out, an identifier of several words as
their phrase), identifier substrings (trigram FTS5, only for an identifier the word index does not hold whole:
`UserId` inside `getUserId`) and meaning (vec0's exact KNN on the query's embedding; from 1000 vectors the
in-process copy of vec0's vectors, see vector_index.py). fusion.py orders the candidates (`score`) and keeps
only those whose calibrated match strength clears the relevance floor (`min_score`), so a query that matches
nothing returns nothing. With conversation ranking on (conversations.py), a memory's speaker and date count as
its words, and a candidate that asks a question brings its reply, lifted under the question when it ranks high.

Large stores stay fast three ways: the word index holds each row's scope as a token, so FTS5 scores only what
the search may see; common words are planned around (`_word_hits`); and the query is embedded, and the vector
copy ranked, on a worker thread while this thread runs the keyword SQL.

The pool sizes and planning limits are in the tuning table (tuning.py); how they were measured in docs/search.md.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from django.conf import settings
from django.utils import timezone

from memoryhub import runtime
from memoryhub.embeddings import comparable_cosine, embed_queries, get_embedder
from memoryhub.memories.bookkeeping import reinforce_later
from memoryhub.memories.decay import DecayRates, effective_value, last_referenced
from memoryhub.models import Memory, Status
from memoryhub.retrieval import conflicts, conversations, fusion, query_text, tuning
from memoryhub.runtime import metrics
from memoryhub.storage import by_key, sql, vector_index
from memoryhub.storage.filters import MemoryFilter
from memoryhub.storage.keyword import InScope, Query, Term, all_of, any_of
from memoryhub.storage.resets import on_store_replaced

MODES = ("hybrid", "keyword", "semantic")
MAX_K = 100
GLOBALS_ONLY = MemoryFilter()  # what a search without a filter may see: the active globals


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
    # The cosine distance of a candidate outside the vector list (found by words only), measured afterwards.
    outside_distance: float | None = None


# --- Keyword side ---------------------------------------------------------------------------------------------


# A search's scopes, as `MemoryFilter.scopes()` names them: projects (None inside: the globals), or None for every
# project. The word index holds each row's scope, so the keyword queries carry them.
Scopes = tuple[str | None, ...] | None


def _keyword(
    kq: query_text.KeywordQuery, pool: int, where: str, params: list, scopes: Scopes, signals: dict[int, _Signals]
) -> None:
    if kq.terms:
        for rank, (mid, bm25) in enumerate(_word_hits(kq, pool, where, params, scopes), 1):
            s = signals.setdefault(mid, _Signals())
            s.keyword_rank, s.bm25 = rank, round(bm25, 4)
    # The trigram index finds `UserId` inside `getUserId`; an identifier the word index holds whole is found
    # there already, and a trigram phrase walks the long doclists of common trigrams (20-30 ms at 100k).
    inside = [s for s in kq.substrings if not _held_whole(s, scopes)]
    if inside:
        hits = sql.fts_search(any_of(inside), pool, where, params, table=sql.TRIGRAM_TABLE)
        for rank, (mid, _) in enumerate(hits, 1):
            signals.setdefault(mid, _Signals()).substring_rank = rank


def _word_hits(kq: query_text.KeywordQuery, pool: int, where: str, params: list, scopes: Scopes):
    """BM25 hits for the query's words, without scoring most of a large store when its words are common.

    FTS5 computes bm25 for every row that matches before it can sort (2-10 microseconds a row here), so an OR
    of words that each appear in thousands of memories costs tens of milliseconds at 100k. A word (or an
    identifier's phrase) is common when more than `keyword_common_docs` (tuning.py) memories in the scope hold it:
    - some are rare: only rows holding a rare one are scored. A common word has a low IDF and adds little to
      bm25; word coverage in fusion still counts it, and meaning finds rows holding only common words.
    - all are common: rows holding every word, then (if those are too few) any of them, each list cut to
      its newest `keyword_common_docs` rows. Both lists score the same words, so they merge by bm25.
    A store where no word passes the limit (every store under that size) is searched exactly as plain BM25.
    """
    plain = InScope(kq.word_query, scopes)
    limit = tuning.DEFAULTS.keyword_common_docs
    # A scope of at most 3 x limit memories costs little to score whole: asking how common each word is would
    # cost more (each answer walks up to `limit` entries of the word's doclist).
    if kq.only_stopwords or not _scope_larger_than(scopes, 3 * limit):
        return sql.fts_search(plain, pool, where, params)
    common = [unit for unit in kq.units if _is_common(unit, scopes, limit)]
    if not common:
        return sql.fts_search(plain, pool, where, params)
    rare = [unit for unit in kq.units if unit not in common]
    if rare:
        return sql.fts_search(InScope(any_of(rare), scopes), pool, where, params)
    hits: dict[int, float] = {}
    for query in dict.fromkeys([all_of(common), kq.word_query]):
        scoped = InScope(query, scopes)
        hits.update(sql.fts_search(scoped, pool, where, params, min_rowid=sql.fts_nth_newest(scoped, limit)))
        if len(hits) >= pool:
            break
    return sorted(hits.items(), key=lambda hit: (hit[1], hit[0]))[:pool]


_frequencies: dict[tuple[str, Query, int], tuple[float, bool]] = {}


def _more_than(query: Query, count: int) -> bool:
    """Whether more than `count` memories match. Remembered for a minute: word frequencies and scope sizes move
    slowly, and the answer only chooses how to search, never what may be found."""
    key = (str(sql.connection.settings_dict.get("NAME")), query, count)
    now = time.monotonic()
    known = _frequencies.get(key)
    if known and now - known[0] < 60.0:
        return known[1]
    if len(_frequencies) > 50_000:
        _frequencies.clear()
    answer = sql.fts_nth_newest(query, count + 1) is not None
    _frequencies[key] = (now, answer)
    return answer


@on_store_replaced
def forget_cached_plans() -> None:
    """Drop remembered word frequencies and vector counts (tests; after restoring another store in place)."""
    _frequencies.clear()
    _totals.clear()


def _is_common(unit: str, scopes: Scopes, limit: int) -> bool:
    return _more_than(InScope(Term(unit), scopes), limit)


def _held_whole(identifier: str, scopes: Scopes) -> bool:
    return _more_than(InScope(Term(identifier), scopes), 0)


def _scope_larger_than(scopes: Scopes, count: int) -> bool:
    """The word index knows every row's scope, so this counts the scope's rows (all projects: assumed large)."""
    return _more_than(InScope(None, scopes), count) if scopes is not None else True


# --- Semantic side --------------------------------------------------------------------------------------------


_totals: dict[tuple[str, str], tuple[Any, float, int]] = {}


def _vector_total(model_id: str) -> int:
    """Rows with a vector of the active model. Counting reads the whole embed_model index (~20 ms at 100k), so
    the count is reused until something is written (the connection's change token moves) and, on a large store,
    for a few seconds even then: there it only chooses the quantized path and how far to widen, and the
    widening loop does not trust it."""
    key = (str(sql.connection.settings_dict.get("NAME")), model_id)
    cached = _totals.get(key)
    if cached and cached[2] > vector_index.EXACT_KNN_MAX and time.monotonic() - cached[1] < 10.0:
        return cached[2]  # a large store: no need to read the change token either
    token = (id(sql.connection.connection), *sql.change_token())
    if cached and cached[0] == token:
        return cached[2]
    total = sql.count_memories(*sql.of_model(model_id))
    _totals[key] = (token, time.monotonic(), total)
    return total


# The query's embedding is computed on a worker thread while the keyword side runs its SQL on the caller's
# (ONNX and SQLite both release the GIL): a hybrid search then costs the longer of the two, not their sum. On
# a large store the worker also ranks the in-process vector copy (numpy, no database) right after embedding, on
# PostgreSQL too: its HNSW walk under a project's filter took 6-7 ms at 10k rows, the copy well under one. Where
# the copy does not answer (a small store, a narrower filter, inside a transaction), PostgreSQL ranks under the
# filter itself, on a pooled connection of its own when one is free, while the caller's connection still runs the
# keyword side. The worker is one of the runtime's query embedding pool (`runtime.alongside`).


@dataclass
class _Embedded:
    vector: Any
    model_id: str
    embed_ms: float
    nearest: list[tuple[int, float]] | None = None  # ranked by the worker on a vector copy view
    fetched: int = 0
    view: vector_index.View | None = None
    ranked: list[tuple[int, float]] | None = None  # the database's nearest under the filter, asked by the worker


@dataclass(frozen=True)
class _Beside:
    """A vector search the worker asks the database itself: the k nearest rows passing `where`."""

    k: int
    where: str
    params: list


def _embed_query(
    query: str, embedder, view: vector_index.View | None, fetch: int, scope: SearchScope, beside: _Beside | None
) -> _Embedded:
    started = time.perf_counter()
    vector = embed_queries(embedder, [query])[0]
    out = _Embedded(vector, embedder.model_id, (time.perf_counter() - started) * 1000)
    if view is not None:
        ids, distances = view.nearest(vector, fetch, projects=scope.projects, status=scope.status)
        out.nearest, out.fetched = list(zip(ids.tolist(), distances.tolist(), strict=True)), fetch
        out.view = view
    if beside is not None:
        out.ranked = sql.knn_where_beside(vector, beside.k, beside.where, beside.params)
    return out


def _start_semantic(query: str, pool: int, scope: SearchScope, where: str, params: list) -> Future:
    """Embed the query (and, on a large store without narrower filters, rank the vector copy; on a database that
    ranks vectors itself, ask it) meanwhile."""
    embedder = get_embedder()
    view = beside = None
    # PostgreSQL's copy follows only what is committed: inside a transaction its own index ranks (below).
    outside = not sql.FILTERED_KNN or not sql.connection.in_atomic_block
    if outside and not scope.narrower and _vector_total(embedder.model_id) > vector_index.EXACT_KNN_MAX:
        view = vector_index.view(embedder.model_id, embedder.dimensions)
    elif sql.FILTERED_KNN and not sql.connection.in_atomic_block:
        # Another connection sees only what is committed: inside a transaction the caller's own connection ranks.
        beside = _Beside(pool, *sql.both((where, params), sql.of_model(embedder.model_id)))
    return runtime.alongside(_embed_query, query, embedder, view, math.ceil(pool * 1.2), scope, beside)


def _semantic(
    embedding: Future, pool: int, where: str, params: list, scope: SearchScope, signals: dict[int, _Signals]
) -> tuple[float, str]:
    """(how long the query's embedding took in ms, how the vector side ranked)."""
    embedded: _Embedded = embedding.result()
    vector, model_id = embedded.vector, embedded.model_id
    # Only vectors of the active model answer (another model's distances mean nothing here).
    where_model, params_model = sql.both((where, params), sql.of_model(model_id))
    found: list[tuple[int, float]] | None = embedded.ranked
    how = "index"
    if embedded.nearest is not None:
        # SQL confirms what the copy ranked (and drops rows changed since it was read).
        found, how = _passing(embedded.nearest, pool, where_model, params_model), "quantized"
        if len(found) < pool and len(embedded.nearest) >= embedded.fetched:
            found = None  # too many dropped: widen below
    if found is None:
        found, how = _nearest(vector, model_id, pool, where_model, params_model, scope)
    for rank, (mid, distance) in enumerate(found, 1):
        s = signals.setdefault(mid, _Signals())
        s.vector_rank, s.distance = rank, _comparable_distance(model_id, distance)
    _measure_the_rest(vector, model_id, signals, embedded.view)
    return round(embedded.embed_ms, 2), how


def _measure_the_rest(vector, model_id: str, signals: dict[int, _Signals], view: vector_index.View | None) -> None:
    """The cosine distance of candidates only the word lists found (no vector rank): their meaning is known, just
    not among the nearest, and the floor and the absolute part of the score should not count it as none.
    Vectors of another model (not yet re-embedded) stay unmeasured.

    On a large store the vector copy the search ranked on holds them: reading ~50 vectors back from vec0 was a
    quarter of a 10k-memory search's time."""
    missing = [mid for mid, s in signals.items() if s.distance is None]
    if missing and view is not None:
        for mid, distance in view.distances(vector, missing).items():
            signals[mid].outside_distance = _comparable_distance(model_id, distance)
        missing = [mid for mid in missing if signals[mid].outside_distance is None]
    if not missing:
        return
    query = np.asarray(vector, dtype=np.float32)
    query = query / (float(np.linalg.norm(query)) or 1.0)
    active = sql.filter_memory_ids(missing, *sql.of_model(model_id))
    for mid, stored in sql.read_vectors([m for m in missing if m in active], len(query)).items():
        norm = float(np.linalg.norm(stored)) or 1.0
        signals[mid].outside_distance = _comparable_distance(model_id, 1.0 - float(stored @ query) / norm)


def _comparable_distance(model_id: str, distance: float) -> float:
    """A query's cosine distance on the scale fusion's calibration was measured on (embeddings.comparable_cosine):
    the order is the model's own, the strength MiniLM's."""
    return round(1.0 - comparable_cosine(model_id, 1.0 - distance, query=True), 6)


def _passing(rows: list[tuple[int, float]], pool: int, where: str, params: list) -> list[tuple[int, float]]:
    """The rows (nearest first) that pass the SQL filter, up to `pool`, checked 500 at a time."""
    found: list[tuple[int, float]] = []
    for start in range(0, len(rows), 500):
        chunk = rows[start : start + 500]
        passing = sql.filter_memory_ids([mid for mid, _ in chunk], where, params)
        found.extend((mid, d) for mid, d in chunk if mid in passing)
        if len(found) >= pool:
            break
    return found[:pool]


def _nearest(vector, model_id: str, pool: int, where: str, params: list, scope: SearchScope):
    """The `pool` nearest rows passing the filter, nearest first, and how they were ranked."""
    if sql.FILTERED_KNN:
        # The database ranks under the filter itself (PostgreSQL: HNSW with iterative scans).
        return sql.knn_where(vector, pool, where, params), "index"
    if _vector_total(model_id) > vector_index.EXACT_KNN_MAX:
        return _quantized(vector, model_id, pool, where, params, scope)
    return _exact(vector, model_id, pool, where, params, scope)


def _allowed(scope: SearchScope) -> tuple[int, list[int] | None]:
    """How many rows the filter leaves, and their ids when that is few enough to rank them all exactly."""
    allowed = sql.count_scoped(scope.alternatives, scope.rest, scope.rest_params)
    if not 0 < allowed <= tuning.DEFAULTS.knn_filter_ids_max:
        return allowed, None
    return allowed, sql.ids_scoped(scope.alternatives, scope.rest, scope.rest_params, limit=allowed)


def _quantized(vector, model_id: str, pool: int, where: str, params: list, scope: SearchScope):
    """A large store: the in-process copy masks out what the scope and status rule out (no SQL), ranks the
    rest, and SQL confirms the nearest (it also drops rows changed since the copy was read). Other filters
    (category, tags, dates...) are narrower than the mask knows: a narrow one ranks exactly its own rows, a
    wide one widens the pool until enough pass."""
    if scope.narrower:
        allowed, ids = _allowed(scope)
        if not allowed:
            return [], "none"
        if ids is not None:
            found = vector_index.nearest_among(vector, model_id, ids, pool)
            return _passing(found, pool, where, params), "quantized-filtered"
    fetch = math.ceil(pool * 1.2)
    while True:
        found_ids, distances = vector_index.nearest(
            vector, model_id, fetch, projects=scope.projects, status=scope.status
        )
        rows = list(zip(found_ids.tolist(), distances.tolist(), strict=True))
        found = _passing(rows, pool, where, params)
        if len(found) >= pool or len(rows) < fetch:
            return found, "quantized"
        fetch *= 4


def _exact(vector, model_id: str, pool: int, where: str, params: list, scope: SearchScope):
    """A small store: vec0's exact KNN, over the allowed rows themselves when a filter leaves few."""
    allowed, ids = _allowed(scope)
    if not allowed:
        return [], "none"
    if ids is not None:
        return _passing(sql.knn_among(vector, min(pool, len(ids)), ids), pool, where, params), "exact-filtered"
    total = max(_vector_total(model_id), allowed)
    # Widen the pool by the filter's selectivity so that about `pool` allowed rows survive the filter.
    fetch = math.ceil(pool * total / max(allowed, 1) * 1.5)
    while True:
        fetch = min(fetch, tuning.DEFAULTS.knn_max_fetch)
        rows = sql.knn(vector, fetch)
        found = _passing(rows, pool, where, params)
        if len(found) >= pool or len(rows) < fetch or fetch >= tuning.DEFAULTS.knn_max_fetch:
            return found, "exact"
        fetch *= 4


def similar_in_scope(
    *, content: str, vector, model_id: str, project: str | None, limit: int = 50, status: str = Status.ACTIVE
) -> tuple[list[int], dict[int, float]]:
    """What a new memory might repeat, among the memories of exactly its scope with this status (a project's own, or the
    globals): ids sharing the most words (BM25), and the nearest in meaning with their cosine similarity.

    The write gate's candidates. Same planning as search, so a long text full of common words stays fast on a
    large store, and scoped from the start: the best matches of the whole store may all be other projects'."""
    where, params, scope = _plan(MemoryFilter(visible_from=project, globals_too=False, status=status))
    kq = query_text.parse(content)
    words: list[int] = []
    if kq.terms:
        words = [mid for mid, _ in _word_hits(kq, limit, where, params, _scopes(scope))]
    if vector is None:
        return words, {}
    found, _ = _nearest(vector, model_id, limit, *sql.both((where, params), sql.of_model(model_id)), scope)
    # On MiniLM's scale, which the gate's and the update rules' thresholds were measured on.
    return words, {mid: comparable_cosine(model_id, 1.0 - distance) for mid, distance in found}


# --- Candidates for fusion (fusion.py orders them) -----------------------------------------------------------


@dataclass
class _Row:
    """What fusion needs of a candidate; the full Memory is loaded only for the k returned."""

    pk: int
    content: str
    effective: float
    confirmed: bool
    coverage: float | None = None  # share of the query's words it holds, once computed
    metadata: object = None  # decoded, when the row has any (conversations.implicit_in reads it)


def _rows(ids: list[int]) -> dict[int, _Row]:

    out = {}
    now = timezone.now()  # one moment for every candidate of a search (and one clock read, not a hundred)
    rates = DecayRates.configured()
    for row in sql.fusion_rows(ids):
        effective = effective_value(
            importance=row.importance, category=row.category, tier=row.tier, confirmed=row.confirmed,
            referenced_at=last_referenced(row.last_accessed_at, row.updated_at, row.created_at), now=now, rates=rates,
        )  # fmt: skip
        out[row.id] = _Row(row.id, row.content, effective, row.confirmed, metadata=row.metadata)
    return out


def _implicit(rows: dict[int, _Row]) -> dict[int, str]:
    """What the candidates' metadata says their text leaves implicit (conversations.py), read with their rows."""
    return conversations.implicit_in({mid: row.metadata for mid, row in rows.items() if row.metadata is not None})


@dataclass(frozen=True)
class SearchScope:
    """What the vector side needs to know of a search's filter, planned once (`_plan`)."""

    scopes: list[str | None] | None  # the projects seen before a token's limit (None inside: the globals; None: all)
    alternatives: list[sql.Condition]  # the scope as index ranges whose union it is (to count the allowed rows)
    rest: str  # the filter without its scope, as storage's condition
    rest_params: list
    # What the in-process vector copy can rule out by itself: projects (None inside: the globals; None for the
    # list: every project) and status.
    projects: list | None
    status: str | tuple[str, ...] | None
    narrower: bool  # filters the copy cannot see (category, tier, source, tags, dates)


def _scopes(scope: SearchScope) -> Scopes:
    return None if scope.scopes is None else tuple(scope.scopes)


def _visible_projects(scopes: list[str | None] | None, allowed: Sequence[str] | None) -> list | None:
    """The projects a search sees once a token's limit applies (None inside: the globals; None: every project)."""
    if scopes is None:
        return None if allowed is None else [*allowed, None]
    return scopes if allowed is None else [p for p in scopes if p is None or p in allowed]


def _plan(memory_filter: MemoryFilter) -> tuple[str, list, SearchScope]:
    """The SQL filter of a search and what the vector side needs to know of it."""
    where, params = sql.memory_filter_sql(memory_filter)
    rest, rest_params = sql.memory_filter_sql(memory_filter, include_scope=False)
    scopes = memory_filter.scopes()
    scope = SearchScope(
        scopes=scopes,
        alternatives=sql.scope_alternatives(scopes),
        rest=rest,
        rest_params=rest_params,
        projects=_visible_projects(scopes, memory_filter.allowed_projects),
        status=memory_filter.status,
        narrower=memory_filter.narrower,
    )
    return where, params, scope


def project_candidates(query: str, *, visible_from: str, k: int = 10) -> Candidates:
    """Evaluations: the hybrid candidates of an active-memory search from a project, before fusion, so that one
    retrieval can be fused under many settings in memory."""
    where, params, scope = _plan(MemoryFilter(visible_from=visible_from))
    return candidates(query[: query_text.MAX_QUERY_CHARS], scope, where, params, mode="hybrid", k=k, answers=True)


def search_memories(
    *,
    query: str,
    within: MemoryFilter = GLOBALS_ONLY,
    k: int = 10,
    mode: str = "hybrid",
    min_score: float | None = None,
    reinforce_results: bool = False,
) -> list[SearchHit]:
    """Best first, only what clears the relevance floor: `min_score` (default MEMORYHUB_SEARCH_MIN_SCORE; 0 keeps
    every candidate) is the least match strength, `explain["match"]`, the strongest of the calibrated channels
    (words, identifier, meaning; see fusion.py). A query that matches nothing returns [].

    `within` says which memories may be returned (by default the globals' active ones): `visible_from` a project
    sees its own memories and the globals; see MemoryFilter. Superseded memories are left out unless its status
    names them. Where two memories a person is asked about (a pending conflict) both match, the newer ranks above
    the older.

    `reinforce_results=True` is for agents: what they were given counts as used. Browsing passes False.
    """
    _check_request(query, mode, k)
    if not query.strip():
        return []
    query = query[: query_text.MAX_QUERY_CHARS]
    memory_filter = within
    where, params, scope = _plan(memory_filter)
    floor = _relevance_floor(min_score)
    with runtime.searching(), metrics.timed_search(mode):  # writes of this process step aside (runtime/turns.py)
        found = candidates(query, scope, where, params, mode=mode, k=k, floor=floor)
        rows = found.rows
        # Replies and a speaker's next turns are looked up only for the few first results, once fusion has ranked them.
        lift = conversations.lift_replies(
            lambda leading: conversations.replies(leading, where, params, _rows),
            query,
            lambda leading: conversations.continuations(leading, where, params, _rows),
        )
        ranked = fusion.fuse(rows, found.signals, found.query, mode, k, min_match=floor, context=found.context,
                             lift=lift, by_words=found.by_words)  # fmt: skip
        ranked = conflicts.newer_first(ranked)
        memories = by_key.rows_by_id(Memory, [mid for _, mid, _ in ranked])
    hits = _hits(ranked, memories, mode=mode, knn=found.knn)
    if reinforce_results and hits:
        reinforce_later([h.memory.pk for h in hits])
    return hits


@dataclass
class Candidates:
    """Every candidate of the ranked lists with its signals, before fusion."""

    rows: dict[int, _Row]
    signals: dict[int, _Signals]
    query: query_text.KeywordQuery
    context: dict[int, str]  # what each candidate's metadata says its text leaves implicit (conversations.py)
    knn: str | None = None  # how the vector side ranked, when it ran
    embed_ms: float | None = None
    answers: dict[int, _Row] | None = None  # the reply to each candidate that asks a question, when asked for
    following: dict[int, _Row] | None = None  # the speaker's next turn after each candidate, when asked for
    by_words: list | None = None  # hybrid: the word candidates' keyword ranking at the defaults, when asked for


def _check_request(query: Any, mode: str, k: Any) -> None:
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}")
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise ValueError(f"k must be a whole number from 1 to {MAX_K}")
    if not isinstance(query, str):
        raise ValueError("query must be text")


def wanted_statuses(status: str | None, *, include_superseded: bool = False) -> str | tuple[str, ...] | None:
    """A search's statuses as a request names them ("any": every status): superseded memories are left out
    unless asked for, by `include_superseded` or by name."""
    if not status or status == "any":
        return None
    return (Status.ACTIVE, Status.SUPERSEDED) if include_superseded and status == Status.ACTIVE else status


def _relevance_floor(min_score: float | None) -> float:
    floor = settings.MEMORYHUB_SEARCH_MIN_SCORE if min_score is None else float(min_score)
    if not 0.0 <= floor <= 1.0:
        raise ValueError("min_score must be from 0 to 1")
    return floor


def _hits(ranked: list, memories: dict[int, Memory], *, mode: str, knn: str | None) -> list[SearchHit]:
    """The ranked memories with their explanation (the mode, and how the vector side ranked when it ran)."""
    extra = {"mode": mode, **({"knn": knn} if knn is not None else {})}
    return [SearchHit(memories[mid], score, explain | extra) for score, mid, explain in ranked if mid in memories]


def candidates(
    query: str, scope: SearchScope, where: str, params: list, *, mode: str, k: int, answers: bool = False,
    floor: float | None = None,
) -> Candidates:  # fmt: skip
    """Every candidate of the ranked lists with its signals, before fusion (evaluations fuse these many ways).

    With `floor` (a hybrid search's relevance floor), the keyword ranking the hybrid guard reads is ranked at the
    default fusion weights while the query is embedded: it needs nothing of the meaning side.

    With `answers`, the reply to every candidate that asks a question (conversations.replies) and the speaker's
    next turn after every candidate and reply (conversations.continuations): evaluations lift them under many
    settings."""
    pool = max(k * 5, tuning.DEFAULTS.search_pool)
    kq = query_text.parse(query)
    signals: dict[int, _Signals] = {}
    knn = embed_ms = by_words = None
    embedding = _start_semantic(query, pool, scope, where, params) if mode != "keyword" else None
    rows: dict[int, _Row] = {}
    context: dict[int, str] = {}
    if mode in ("hybrid", "keyword"):
        _keyword(kq, pool, where, params, _scopes(scope), signals)
        # While the worker still embeds: the keyword candidates' rows and word coverage.
        rows = _rows(list(signals))
        context = _implicit(rows)
        for mid, row in rows.items():
            row.coverage = fusion.coverage(kq.terms, fusion.with_context(row.content, context.get(mid)))
        if mode == "hybrid" and floor is not None:
            by_words = fusion.keyword_ranking(rows, signals, kq, fusion.Params.from_defaults(), floor, context)
    if mode in ("hybrid", "semantic"):
        embed_ms, knn = _semantic(embedding, pool, where, params, scope, signals)
        more = _rows([mid for mid in signals if mid not in rows])
        context |= _implicit(more)
        rows |= more
    if not answers:
        return Candidates(rows, signals, kq, context, knn=knn, embed_ms=embed_ms, by_words=by_words)
    replies = conversations.replies(rows, where, params, _rows)
    leading = rows | {reply.pk: reply for reply in replies.values()}
    return Candidates(rows, signals, kq, context, knn=knn, embed_ms=embed_ms, answers=replies,
                      following=conversations.continuations(leading, where, params, _rows))  # fmt: skip
