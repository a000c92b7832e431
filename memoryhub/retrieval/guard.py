"""Keyword first: hybrid search is never reordered against keyword search without evidence (issue 29).

Rank fusion adds the meaning list's ranks to the word list's, and a rank says nothing about strength: the
nearest turn by meaning is first of its list however weak its cosine. On conversations the fusion was not
tuned on, that let weak meaning matches overtake strong keyword matches at the top, and hybrid search lost to
keyword search alone (hit@1 and MRR). So the hybrid order is kept only where the evidence says so:

- the hybrid results are merged with the keyword results of the same candidates (fusion.rank in keyword mode),
  keyword order first: at each place the next keyword hit is taken, unless the next hybrid result matches
  better by `MARGIN` on the calibrated scale of the relevance floor (`explain.match`, 0-1);
- a keyword hit's evidence is the better of its hybrid match and its keyword match (the share of the query's
  words it holds, or its identifiers), so a hit that holds most of the query's words keeps its place against a
  memory that only resembles the query;
- what meaning finds and words do not comes in below the keyword hits it cannot beat by that margin, and after
  them: meaning adds candidates under strong keyword hits instead of reshuffling them.

Only the hybrid results (those that clear its floor) are merged: the guard reorders, it never adds a memory the
hybrid floor refused, so made-up queries come back as empty as before. An identifier or a whole query found
verbatim matches at 1 and ranks first in both lists, so nothing overtakes it.
"""

from __future__ import annotations

from typing import Any

# How much better a candidate must match (on the 0-1 scale of `explain.match`) to rise above a keyword hit.
# Chosen as the margin at which hybrid search loses a question to keyword search alone about a quarter as often
# as it wins one over it on the tune conversations (LoCoMo 26, 41, 43; see docs/search.md), not by the highest
# mean there: those conversations were already in-sample for the fusion weights, so they favour no guard.
# On the scale, 0.4 is e.g. a memory matching at 0.5 (half of a short question's words) overtaken only by
# one matching at 0.9 (a close paraphrase).
MARGIN = 0.4

Scored = tuple[float, int, Any]  # (score, memory id, fusion's parts), as fusion.rank returns them
MATCH = 8  # where fusion.rank's parts hold the match strength (`explain.match`)


def keyword_first(hybrid: list[Scored], keyword: list[Scored], *, margin: float = MARGIN) -> list[Scored]:
    """The hybrid results in keyword order, but where a hybrid result matches better by `margin` than the next
    keyword hit (see the module's docstring). Scores are the hybrid scores, lowered where needed so that they
    still decrease down the list (later steps re-sort by score)."""
    by_id = {item[1]: item for item in hybrid}
    evidence = {mid: max(_match(parts), _match(by_id[mid][2])) for _, mid, parts in keyword if mid in by_id}
    keyword_order = [mid for _, mid, _ in keyword if mid in by_id]
    hybrid_order = [mid for _, mid, _ in hybrid]
    placed: set[int] = set()
    merged = []
    k = h = 0
    while len(merged) < len(hybrid):
        k = _next_unplaced(keyword_order, k, placed)
        h = _next_unplaced(hybrid_order, h, placed)
        take = hybrid_order[h]
        if k < len(keyword_order) and _match(by_id[take][2]) <= evidence[keyword_order[k]] + margin:
            take = keyword_order[k]
        placed.add(take)
        merged.append(by_id[take])
    return _decreasing(merged)


def _match(parts: Any) -> float:
    return parts[MATCH]


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
