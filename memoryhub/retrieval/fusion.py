"""Fusion: one score per candidate from the ranked lists, and a calibrated match strength for the floor.

Two separate questions, answered separately:

- **Order** (`score`): weighted reciprocal rank fusion of the word, identifier-substring and meaning lists,
  with the share of the query's words the memory holds, scaled by the absolute relevance and the importance
  factor. Ranks say which
  candidate is better than which; they say nothing about whether the first one is any good.
- **Whether it matches at all** (`explain["match"]`, the relevance floor): the strongest of three calibrated
  channels, each readable on its own and independent of what else is in the store:
  - words: the share of the query's content words the memory holds;
  - identifier: the share of the query's identifiers (`getUserId`, `AWS_REGION`) found in it verbatim
    (1 when the whole query is there verbatim);
  - meaning: the cosine similarity rescaled so that 0 is what the nearest unrelated memory gets with the
    embedding model and 1 is a close paraphrase;
  combined by `match_strength`.
  A made-up query of real English words ("purple elephant trampoline quota") always has nearest neighbours,
  so a floor on ranks or on rank-derived scores would pass them; on these channels it does not.

The weights are in the tuning table (tuning.py), the floor's default is the operator's setting
MEMORYHUB_SEARCH_MIN_SCORE; how they were measured is in docs/search.md. What conversations stored turn by turn
add (the reply lifted under its question, the speaker and date counted as words) is conversations.py's, which
hands this module a `lift` step and a `context`.
"""

from __future__ import annotations

import bisect
import functools
import math
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, fields
from typing import Any, NamedTuple

from memoryhub.retrieval import guard, tuning

_WORD = re.compile(r"\w+", re.UNICODE)
_SPACES = re.compile(r"\s+")

# The ranking's cosine scale (tuned with the fusion weights): unrelated sentences sit near 0.1, paraphrases above 0.7.
RANK_COSINE_ZERO = 0.1
RANK_COSINE_FULL = 0.7
# The floor's meaning channel, measured with `python -m bench recall` on MiniLM (all-MiniLM-L6-v2): the nearest of a few
# thousand memories to a made-up query of real words sits at 0.2-0.35 (rarely up to 0.45 when one of its words
# names a tool the store knows); the memory that answers a question at 0.3-0.7. Meaning strength is 0 at
# MEANING_ZERO and 1 at MEANING_FULL.
MEANING_ZERO = 0.25
MEANING_FULL = 0.55


@dataclass(frozen=True)
class Params:
    """Every fusion weight. No defaults of its own: `from_defaults()` fills it from the tuning table (tuning.py),
    the one source of the values in service, and evaluation grids override some of them."""

    rrf_k: int
    keyword_weight: float
    substring_weight: float
    semantic_weight: float
    coverage_weight: float
    score_absolute: float
    # Word coverage weighs each query word by its rarity among the candidates (1) or counts words alike (0).
    rare_words: float
    importance_weight: float
    confirmed_bonus: float
    # The reply to a matching question (the next turn of its conversation) scores this share of the question's
    # score, when the question is among the first `answer_top` results; 0 = off (conversations.py).
    answer_share: float
    answer_top: int
    # When a query names one speaker of the conversation turns found, the other speakers' turns score this share of
    # their score; 1 = off (conversations.named_speaker_first).
    other_speaker_share: float
    # The speaker's next turn after one of the first `continuation_top` results scores this share of its score;
    # 0 = off (conversations.lift_continuations).
    continuation_share: float
    continuation_top: int

    @classmethod
    def from_defaults(cls, **overrides: Any) -> Params:
        values = {f.name: getattr(tuning.DEFAULTS, f.name) for f in fields(cls)}
        return cls(**(values | overrides))

    def described(self) -> str:
        return ", ".join(f"{f.name}={getattr(self, f.name)}" for f in fields(self))


def coverage(terms: tuple[str, ...], content: str) -> float:
    """Share of the query's content words found in the memory (a word or, for longer words, its stem-ish prefix)."""
    if not terms:
        return 0.0
    words, prefixes = _held(content)
    found = sum(1 for t in terms if t in words or (len(t) >= 5 and t[:5] in prefixes))
    return found / len(terms)


def with_context(content: str, context: str | None) -> str:
    """The memory's text and what its metadata says it leaves implicit (who, when), for word coverage."""
    return f"{content} ({context})" if context else content


def _scaled(value: float | None, zero: float, full: float) -> float:
    return 0.0 if value is None else min(1.0, max(0.0, (value - zero) / (full - zero)))


@functools.lru_cache(maxsize=20_000)
def _held(content: str) -> tuple[frozenset[str], frozenset[str]]:
    """A text's words and the 5-letter prefixes of its longer words. Cached: each search compares the query with
    ~100 candidates, most of them candidates of earlier searches too, and splitting their texts again was a
    tenth of a search's Python time under load."""
    words = frozenset(_WORD.findall(content.lower()))
    return words, frozenset(w[:5] for w in words if len(w) >= 5)


@functools.lru_cache(maxsize=20_000)
def _folded(content: str) -> str:
    """A text with its runs of spaces as one and its case folded, where the whole query is looked for verbatim.
    Cached as `_held` is, for the same candidates: folding each again was a fifth of fusion's own time."""
    return _SPACES.sub(" ", content).casefold()


def rarity_weights(terms: tuple[str, ...], contents: list[str]) -> dict[str, float]:
    """Each query word's weight by how few of the candidates hold it (an IDF over the candidates): a name every
    turn of a conversation carries counts less than the one word that says what was asked."""
    if not terms or not contents:
        return {}
    held = [_held(content) for content in contents]
    n = len(held)
    out = {}
    for term in terms:
        df = sum(1 for words, prefixes in held if term in words or (len(term) >= 5 and term[:5] in prefixes))
        out[term] = math.log(1.0 + n / (1.0 + df))
    return out


def weighted_coverage(terms: tuple[str, ...], content: str, weights: dict[str, float]) -> float:
    total = sum(weights.values())
    if not total:
        return 0.0
    words, prefixes = _held(content)
    found = sum(w for t, w in weights.items() if t in words or (len(t) >= 5 and t[:5] in prefixes))
    return found / total


def meaning(similarity: float | None) -> float:
    """Cosine similarity on the floor's calibrated 0-1 scale (see MEANING_ZERO)."""
    return _scaled(similarity, MEANING_ZERO, MEANING_FULL)


def match_strength(words: float, identifier: float, closeness: float) -> float:
    """How well a memory matches, 0-1, whatever else the store holds: the floor's measure.

    Identifiers found verbatim count alone. Otherwise words and meaning are two witnesses, combined as
    1 - (1 - words^2)(1 - meaning): either can carry a match alone, and each strengthens the other. Words are
    squared because one word of a three-word query (a third) is what made-up queries share with any store; all
    of them (1) is a match.
    """
    return max(identifier, 1.0 - (1.0 - words * words) * (1.0 - closeness))


def identifier_share(kq, content: str) -> float:
    """Share of the query's identifiers found verbatim (case-insensitive) in the memory."""
    named = list(dict.fromkeys([*kq.substrings, *kq.phrases]))
    if not named:
        return 0.0
    text = content.casefold()
    return sum(1 for name in named if name.casefold() in text) / len(named)


def is_typed(kq) -> bool:
    """An identifier, a path or a pasted error: words typed exactly as written, not a question about meaning."""
    return bool(kq.substrings or kq.phrases)


def importance_factor(confirmed: bool, effective: float, params: Params | None = None) -> float:
    """1.0 for a confirmed memory at full importance; lower as importance decays. Never zero: relevance leads."""
    p = params or Params.from_defaults()
    return (
        (1.0 - p.importance_weight - p.confirmed_bonus)
        + p.importance_weight * effective
        + (p.confirmed_bonus if confirmed else 0.0)
    )


def _tied_ranks(values: dict[int, float]) -> dict[int, int]:
    """1 + how many are strictly better (lower): a tie is a tie. Two memories with the same text have the same
    BM25 and distance, and the order a list happened to return them in must not split them by a rank."""
    ordered = sorted(values.values())
    return {mid: bisect.bisect_left(ordered, value) + 1 for mid, value in values.items()}


class Parts(NamedTuple):
    """What a candidate's explanation (`_explain`) is made of, kept until the best k are known."""

    signals: Any  # its ranks, BM25 and distances in each list (None for a reply no list found)
    exact: bool
    similarity: float | None
    words: float
    fused: float
    relevance: float
    row: Any  # what fusion reads of the memory: `content`, `effective`, `confirmed`, a cached `coverage`
    factor: float
    match: float
    channels: dict[str, float]
    answers: int | None  # the question whose reply this is, when conversations.lift_answers placed it
    continues: int | None = None  # the turn this one follows as its speaker's next, when lift_continuations placed it


Scored = tuple[float, int, Parts]  # (score, id, parts), best first
Lift = Callable[[list[Scored], Params], list[Scored]]


def fuse(rows: dict, signals: dict, kq, mode: str, k_top: int, params: Params | None = None,
         min_match: float = 0.0, context: dict[int, str] | None = None, lift: Lift | None = None,
         by_words: list[Scored] | None = None) -> list[tuple]:  # fmt: skip
    """Order and score the candidates; keep those whose match strength reaches `min_match`. Returns the best
    `k_top` as (score, id, explain), best first.

    `rows` maps ids to objects with `content`, `effective`, `confirmed` and a cached `coverage` (or None);
    `signals` maps ids to their ranks, BM25 and distances in each list; `context` what a memory's metadata
    says its text leaves implicit, counted as its words; `lift` a step between ranking and the best k
    (conversations.lift_replies: the reply to a matching question placed under it); `by_words` the keyword ranking
    of the word candidates with these params and `min_match`, when the caller has it already (`keyword_ranking`).
    """
    p = params or Params.from_defaults()
    scored = ranked(rows, signals, kq, mode, p, min_match, context, by_words)
    if lift is not None:
        scored = lift(scored, p)
    # The explanation only for what is returned: building it for every candidate cost more than the ranking.
    return [(score, mid, _explain(*parts)) for score, mid, parts in scored[:k_top]]


def ranked(rows: dict, signals: dict, kq, mode: str, p: Params, min_match: float = 0.0,
           context: dict[int, str] | None = None, by_words: list[Scored] | None = None) -> list[Scored]:  # fmt: skip
    """`rank`; in hybrid mode kept in keyword order where meaning has no stronger evidence (guard.py), the keyword
    order read from `by_words` when given (`keyword_ranking`)."""
    scored = rank(rows, signals, kq, mode, p, min_match, context)
    if mode != "hybrid":
        return scored
    if by_words is None:
        # The guard reads only the keyword order of what the hybrid ranking kept: only those are scored in it
        # (against every word candidate, as the keyword ranking measures them), a third of the candidates or so.
        kept = {mid for _, mid, _ in scored}
        by_words = keyword_ranking(rows, signals, kq, p, min_match, context, only=kept)
    return guard.keyword_first(scored, by_words)


def keyword_ranking(rows: dict, signals: dict, kq, p: Params, min_match: float = 0.0,
                    context: dict[int, str] | None = None,
                    only: Collection[int] | None = None) -> list[Scored]:  # fmt: skip
    """The keyword ranking of the candidates the word lists found, as the hybrid guard reads it. It reads nothing
    of the meaning side, so a search ranks it while its query is still being embedded."""
    found = {mid: row for mid, row in rows.items() if signals[mid].keyword_rank or signals[mid].substring_rank}
    return rank(found, signals, kq, "keyword", p, min_match, context, only=only)


@dataclass
class _Ranking:
    """What every candidate of one search is measured against."""

    kq: Any
    mode: str
    p: Params
    context: dict[int, str]
    weights: dict[str, float]  # of each list in this mode
    best: float  # the fused value of first place in every weighed list
    coverage_weight: float
    phrase: str  # the whole query, for a verbatim match
    rarity: dict[str, float]  # each query word's weight, when coverage weighs words by rarity
    word_ranks: dict[int, int]  # ranks with ties shared (`_tied_ranks`)
    vector_ranks: dict[int, int]


def _ranking(rows: dict, signals: dict, kq, mode: str, p: Params, context: dict[int, str]) -> _Ranking:
    weights = {
        "keyword": p.keyword_weight if mode != "semantic" else 0.0,
        "substring": p.substring_weight if mode != "semantic" and kq.substrings else 0.0,
        "semantic": p.semantic_weight if mode != "keyword" else 0.0,
    }
    coverage_weight = p.coverage_weight if mode != "semantic" else 0.0
    rarity = {}
    if p.rare_words and coverage_weight and kq.terms:
        rarity = rarity_weights(kq.terms, [with_context(row.content, context.get(mid)) for mid, row in rows.items()])
    return _Ranking(
        kq=kq, mode=mode, p=p, context=context, weights=weights, best=sum(weights.values()) / (p.rrf_k + 1) or 1.0,
        coverage_weight=coverage_weight, phrase=kq.phrase.casefold() if kq.phrase else "", rarity=rarity,
        word_ranks=_tied_ranks({m: x.bm25 for m, x in signals.items() if x.keyword_rank and x.bm25 is not None}),
        vector_ranks=_tied_ranks({m: x.distance for m, x in signals.items()
                                  if x.vector_rank and x.distance is not None}),
    )  # fmt: skip


def _fused(mid: int, s, r: _Ranking) -> float:
    """Weighted reciprocal rank fusion of the lists that found the candidate."""
    k, weights = r.p.rrf_k, r.weights
    fused = 0.0
    if s.keyword_rank and weights["keyword"]:
        fused += weights["keyword"] / (k + r.word_ranks.get(mid, s.keyword_rank))
    if s.substring_rank and weights["substring"]:
        fused += weights["substring"] / (k + s.substring_rank)
    if s.vector_rank and weights["semantic"]:
        fused += weights["semantic"] / (k + r.vector_ranks.get(mid, s.vector_rank))
    return fused


@dataclass
class _Evidence:
    """How well one candidate matches, channel by channel."""

    similarity: float | None  # cosine similarity, when measured
    closeness: float  # on the ranking's cosine scale
    meant: float  # on the floor's meaning scale
    found_by_words: bool
    words: float
    identifier: float
    exact: bool
    match: float  # the floor's measure


def _evidence(mid: int, row, s, r: _Ranking) -> _Evidence:
    mode, kq = r.mode, r.kq
    distance = s.distance if s.distance is not None else s.outside_distance
    similarity = None if distance is None else max(0.0, 1.0 - distance)
    closeness = _scaled(similarity, RANK_COSINE_ZERO, RANK_COSINE_FULL) if mode != "keyword" else 0.0
    meant = meaning(similarity) if mode != "keyword" else 0.0
    found_by_words = bool(s.keyword_rank or s.substring_rank) and mode != "semantic"
    words = 0.0
    if found_by_words:
        if row.coverage is None:
            row.coverage = coverage(kq.terms, with_context(row.content, r.context.get(mid)))
        words = row.coverage
    identifier = identifier_share(kq, row.content) if found_by_words and is_typed(kq) else 0.0
    # The whole query found verbatim (an error message, a file name): that memory is what was asked for.
    # Checked on the candidates, which the word and substring lists already found: a trigram phrase query
    # over the whole store cost up to 100 ms for a pasted error message.
    s.exact_match = bool(r.phrase) and r.phrase in _folded(row.content)
    exact = s.exact_match and mode != "semantic"
    if exact:
        identifier = 1.0
    # Keyword mode measures no meaning: the words found are the whole evidence, counted as they are.
    match = max(identifier, words) if mode == "keyword" else match_strength(words, identifier, meant)
    return _Evidence(similarity, closeness, meant, found_by_words, words, identifier, exact, match)


def _relevance(mid: int, row, fused: float, e: _Evidence, r: _Ranking) -> float:
    """Ranks and word coverage, scaled by how close the candidate is on its own."""
    p, mode = r.p, r.mode
    rank_part = min(1.0, fused / r.best)
    # Ranks order; the absolute part keeps "first of nothing good" from looking like a good match.
    absolute = max(e.closeness, e.words) if mode == "hybrid" else (e.closeness if mode == "semantic" else e.words)
    ranked_words = e.words
    if r.rarity and e.found_by_words:
        text = with_context(row.content, r.context.get(mid))
        ranked_words = (1 - p.rare_words) * e.words + p.rare_words * weighted_coverage(r.kq.terms, text, r.rarity)
    relevance = (rank_part + r.coverage_weight * ranked_words) / (1.0 + r.coverage_weight)
    return relevance * ((1.0 - p.score_absolute) + p.score_absolute * absolute)


def rank(rows: dict, signals: dict, kq, mode: str, p: Params, min_match: float = 0.0,
         context: dict[int, str] | None = None, only: Collection[int] | None = None) -> list[Scored]:  # fmt: skip
    """Every candidate whose match strength reaches `min_match` as (score, id, parts for `_explain`), best first;
    with `only`, just those of these ids, each scored as among all `rows`."""
    r = _ranking(rows, signals, kq, mode, p, context or {})
    scored = []
    for mid, row in rows.items():
        if only is not None and mid not in only:
            continue
        s = signals[mid]
        fused = _fused(mid, s, r)
        e = _evidence(mid, row, s, r)
        if e.match < min_match:
            continue
        relevance = _relevance(mid, row, fused, e, r)
        factor = importance_factor(row.confirmed, row.effective, p)
        score = relevance * factor
        if e.exact:
            # Typed verbatim (an identifier, a file name, an error message): above anything that only resembles
            # the query, whatever its importance. Such scores are 1 + the usual score.
            score += 1.0
        channels = {"words": e.words, "identifier": e.identifier, "meaning": e.meant}
        parts = Parts(s, e.exact, e.similarity, e.words, fused, relevance, row, factor, e.match, channels, None)
        scored.append((round(score, 6), mid, parts))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return scored


def _explain(s, exact, similarity, words, fused, relevance, row, factor, match, channels, answers,
             continues) -> dict[str, Any]:  # fmt: skip
    out = {
        "match": round(match, 4),
        "channels": {name: round(value, 4) for name, value in channels.items() if value > 0},
        "keyword_rank": s.keyword_rank if s else None,
        "bm25": s.bm25 if s else None,
        "substring_rank": s.substring_rank if s else None,
        "exact_match": exact,
        "vector_rank": s.vector_rank if s else None,
        "distance": s.distance if s else None,
        "similarity": None if similarity is None else round(similarity, 4),
        "word_coverage": round(words, 4),
        "fused": round(fused, 6),
        "relevance": round(relevance, 6),
        "effective_importance": row.effective,
        "confirmed": row.confirmed,
        "importance_factor": round(factor, 4),
    }
    if answers is not None:
        out["answers"] = answers  # the id of the question this memory replies to, which lifted it
    if continues is not None:
        out["continues"] = continues  # the id of the turn whose speaker's next turn this is, which lifted it
    return out
