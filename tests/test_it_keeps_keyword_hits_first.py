"""Hybrid search never reorders keyword search without evidence (issue 29, memoryhub/retrieval/guard.py): a
keyword hit holding most of the query's words is not overtaken by a memory that only resembles the query, a
close paraphrase still can, and meaning adds what words miss below the keyword hits it cannot beat."""

from __future__ import annotations

from dataclasses import dataclass

from memoryhub.retrieval import fusion, guard, query_text
from memoryhub.retrieval.search import _Signals

QUERY = "which database does the billing service write invoices to"


@dataclass
class _Row:
    pk: int
    content: str
    effective: float = 0.5
    confirmed: bool = False
    coverage: float | None = None


def _candidates(*memories: tuple[str, int | None, int | None, float]) -> tuple[dict, dict]:
    """Rows and signals from (text, word rank, meaning rank, cosine similarity) per memory, ids from 1."""
    rows, signals = {}, {}
    for pk, (text, word_rank, vector_rank, similarity) in enumerate(memories, 1):
        rows[pk] = _Row(pk, text)
        signals[pk] = _Signals(
            keyword_rank=word_rank,
            bm25=-10.0 / word_rank if word_rank else None,
            vector_rank=vector_rank,
            distance=1.0 - similarity if vector_rank else None,
            outside_distance=None if vector_rank else 1.0 - similarity,
        )
    return rows, signals


def _order(rows: dict, signals: dict, mode: str = "hybrid") -> list[int]:
    params = fusion.Params.from_settings(answer_share=0.0)
    hits = fusion.fuse(rows, signals, query_text.parse(QUERY), mode, 10, params, min_match=0.22)
    return [mid for _, mid, _ in hits]


def test_a_strong_keyword_hit_is_not_overtaken_by_a_weak_meaning_only_match():
    rows, signals = _candidates(
        ("The billing service writes its records to PostgreSQL", 2, None, 0.30),  # three of the five words
        ("Which team owns the service dashboards", 1, 1, 0.52),  # one word; first by meaning, at 0.9
    )
    # Rank fusion alone puts the first of both lists on top: ranks say nothing of how much of the query it holds.
    unguarded = fusion.rank(rows, signals, query_text.parse(QUERY), "hybrid", fusion.Params.from_settings(), 0.22)
    assert [mid for _, mid, _ in unguarded] == [2, 1]
    assert _order(rows, signals, "keyword") == [1]
    assert _order(rows, signals) == [1, 2]  # meaning still adds it, below the keyword hit


def test_a_close_paraphrase_still_rises_above_a_weak_keyword_hit():
    rows, signals = _candidates(
        ("The billing service restarts at midnight", 1, None, 0.35),  # two of the five words, little else
        # one word, but first by meaning at cosine 0.7: it matches at 1, the keyword hit at 0.44
        ("Invoices for accounts receivable are stored in Postgres by the payments backend", 2, 1, 0.70),
    )
    assert _order(rows, signals, "keyword") == [1]
    assert _order(rows, signals) == [2, 1]


def _parts(match: float) -> tuple:
    return (None,) * guard.MATCH + (match,)


def _scored(*items: tuple[int, float]) -> list[tuple]:
    """(score, id, parts) with the match strength where fusion.rank keeps it, best first by score."""
    return sorted([(score, mid, _parts(match)) for mid, (score, match) in enumerate(items, 1)], key=lambda x: -x[0])


def test_the_guard_reorders_only_and_its_scores_decrease_down_the_list():
    hybrid = _scored((0.9, 1.0), (0.8, 0.5), (0.7, 0.55))  # ids 1, 2, 3
    keyword = [(0.6, 3, _parts(0.5)), (0.5, 2, _parts(0.5)), (0.4, 4, _parts(0.3))]
    merged = guard.keyword_first(hybrid, keyword)
    # 1 matches better than keyword search's first (3, at 0.55) by more than the margin and leads; then keyword
    # order; 4 was refused by the hybrid floor and stays out.
    assert [mid for _, mid, _ in merged] == [1, 3, 2]
    scores = [score for score, _, _ in merged]
    assert scores == sorted(scores, reverse=True) and len(set(scores)) == 3
    assert scores[:2] == [0.9, 0.7]  # hybrid scores, lowered only where the order needs it


def test_the_guard_changes_nothing_when_keyword_search_agrees_or_found_nothing():
    hybrid = _scored((0.9, 0.7), (0.5, 0.4))
    assert guard.keyword_first(hybrid, [(0.3, 1, hybrid[0][2]), (0.2, 2, hybrid[1][2])]) == hybrid
    assert guard.keyword_first(hybrid, []) == hybrid
    assert guard.keyword_first([], []) == []


def test_an_identifier_found_verbatim_keeps_the_top():
    rows, signals = _candidates(
        ("Call getInvoiceWriter() before the billing service writes", 1, 9, 0.15),
        ("The billing service writes invoices to the database the service owns", None, 1, 0.75),
    )
    hits = fusion.fuse(rows, signals, query_text.parse("getInvoiceWriter"), "hybrid", 10,
                       fusion.Params.from_settings(answer_share=0.0), min_match=0.22)  # fmt: skip
    assert hits[0][1] == 1
