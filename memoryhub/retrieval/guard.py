"""Keyword first: hybrid search is not reordered against keyword search without evidence.

Rank fusion adds the meaning list's ranks to the word list's, and a rank says nothing about strength: the
nearest memory by meaning is first of its list however weak its cosine. On conversations the fusion was not
tuned on, that let weak meaning matches overtake strong keyword matches at the top, and hybrid search lost to
keyword search alone (hit@1 and MRR). So the hybrid order is kept only where the evidence says so:

- the hybrid results are merged with the keyword results of the same candidates (fusion.rank in keyword mode),
  keyword order first: at each place the next keyword hit is taken if it is a strong one, unless the next
  hybrid result has stronger evidence on one of the calibrated channels (`explain.channels`): it holds more of
  the query's words, or it is closer in meaning by `MARGIN` on the meaning channel's 0-1 scale;
- a strong keyword hit holds at least half of the query's words (`STRONG_WORDS`); below that, words are no
  evidence a keyword order could stand on (one word of a three-word question is what any made-up query shares
  with a large store, why fusion.match_strength squares words), and the hybrid order stands;
- so meaning lifts a memory above a strong keyword hit only when it is clearly closer, and among memories that
  hold as many of the query's words it reorders only by that margin too: it adds what words miss below the
  strong keyword hits instead of reshuffling them.

Only the hybrid results (those that clear its floor) are merged: the guard reorders, it never adds a memory the
hybrid floor refused, so made-up queries come back as empty as before. An identifier or a whole query found
verbatim scores 1 more and ranks first in both lists.
"""

from __future__ import annotations

from typing import Any

# How much closer in meaning (on the meaning channel, 0 at cosine 0.25 and 1 at 0.55, see fusion.MEANING_ZERO)
# a memory must be to rise above a strong keyword hit holding at least as many of the query's words: 0.4 is a
# cosine 0.12 higher, the step from a related memory to a paraphrase. Chosen on the agent-memory store of
# `python -m bench recall`, where answers found by meaning alone start to lose places at 0.6 and none does up to
# 0.5, and on the tune conversations (LoCoMo 26, 41, 43), where a larger margin makes hybrid lose fewer questions
# to keyword search alone (67 of 480 unguarded, 46 at 0.4, plain turns). Not by the best mean there: those conversations
# were in-sample for the fusion weights already, and their means are flat from 0 to 0.6 (docs/search.md).
MARGIN = 0.4
# A keyword hit is strong, and keeps its place, when it holds at least half of the query's content words. One
# word of three is no evidence: on the agent-memory store, "what search engine do we use" is answered by the one
# memory saying how search is powered, which holds "search" like the three runbooks BM25 puts first, and
# without the floor "how are schema changes made" by the migrations memory, which holds none of the words.
STRONG_WORDS = 0.5

Scored = tuple[float, int, Any]  # (score, memory id, fusion.Parts), as fusion.rank returns them


def keyword_first(hybrid: list[Scored], keyword: list[Scored], *, margin: float = MARGIN) -> list[Scored]:
    """The hybrid results in keyword order, but where a hybrid result has stronger evidence than the next keyword
    hit (see the module's docstring). Scores are the hybrid scores, lowered where needed so that they
    still decrease down the list (later steps re-sort by score)."""
    by_id = {item[1]: item for item in hybrid}
    keyword_order = [mid for _, mid, _ in keyword if mid in by_id]
    hybrid_order = [mid for _, mid, _ in hybrid]
    placed: set[int] = set()
    merged = []
    k = h = 0
    while len(merged) < len(hybrid):
        k = _next_unplaced(keyword_order, k, placed)
        h = _next_unplaced(hybrid_order, h, placed)
        take = hybrid_order[h]
        if k < len(keyword_order) and _keeps_its_place(by_id[keyword_order[k]][2], by_id[take][2], margin):
            take = keyword_order[k]
        placed.add(take)
        merged.append(by_id[take])
    return _decreasing(merged)


def _keeps_its_place(hit: Any, other: Any, margin: float) -> bool:
    """Whether keyword hit `hit` stays above `other` (fusion's parts of both): it holds at least `STRONG_WORDS`
    of the query's words and at least as many as `other`, which is not closer in meaning by more than `margin`."""
    words, meaning = _channels(hit)
    other_words, other_meaning = _channels(other)
    return words >= STRONG_WORDS and words >= other_words and other_meaning <= meaning + margin


def _channels(parts: Any) -> tuple[float, float]:
    """(words, meaning): an identifier typed as written counts as words found."""
    channels = parts.channels  # the calibrated channels of `explain.channels`
    return max(channels.get("words", 0.0), channels.get("identifier", 0.0)), channels.get("meaning", 0.0)


def _next_unplaced(order: list[int], start: int, placed: set[int]) -> int:
    while start < len(order) and order[start] in placed:
        start += 1
    return start


def _decreasing(merged: list[Scored]) -> list[Scored]:
    """Each score at most a millionth under the one above it: the order chosen here survives a sort by score."""
    out: list[Scored] = []
    for score, mid, parts in merged:
        if out and score >= out[-1][0]:
            score = round(out[-1][0] - 1e-6, 6)
        out.append((score, mid, parts))
    return out
