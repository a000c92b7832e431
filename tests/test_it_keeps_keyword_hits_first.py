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
    params = fusion.Params.from_defaults(answer_share=0.0)
    hits = fusion.fuse(rows, signals, query_text.parse(QUERY), mode, 10, params, min_match=0.22)
    return [mid for _, mid, _ in hits]


def test_a_strong_keyword_hit_is_not_overtaken_by_a_weak_meaning_only_match():
    rows, signals = _candidates(
        ("The billing service writes its records to PostgreSQL", 2, None, 0.30),  # three of the five words
        ("Which team owns the service dashboards", 1, 1, 0.40),  # one word; first by meaning, but weakly
    )
    # Rank fusion alone puts the first of both lists on top: ranks say nothing of how much of the query it holds.
    unguarded = fusion.rank(rows, signals, query_text.parse(QUERY), "hybrid", fusion.Params.from_defaults(), 0.22)
    assert [mid for _, mid, _ in unguarded] == [2, 1]
    assert _order(rows, signals, "keyword") == [1]
    assert _order(rows, signals) == [1, 2]  # meaning still adds it, below the keyword hit


def test_a_close_paraphrase_still_rises_above_a_strong_keyword_hit():
    rows, signals = _candidates(
        ("The billing service writes logs at midnight", 1, None, 0.35),  # three of the five words, meaning 0.33
        # one word, but first by meaning at cosine 0.7 (meaning 1): closer by more than the margin
        ("Invoices for accounts receivable are stored in Postgres by the payments backend", 2, 1, 0.70),
    )
    assert _order(rows, signals, "keyword") == [1]
    assert _order(rows, signals) == [2, 1]


def _parts(words: float, meaning: float) -> fusion.Parts:
    """fusion.rank's parts; the guard reads only the calibrated channels."""
    unread = dict.fromkeys(fusion.Parts._fields)
    return fusion.Parts(**(unread | {"channels": {"words": words, "meaning": meaning}}))


def _scored(*items: tuple[float, float, float]) -> list[tuple]:
    """(score, id, parts) from (score, words, meaning) per memory, ids from 1, best first by score."""
    ranked = [(score, mid, _parts(words, meaning)) for mid, (score, words, meaning) in enumerate(items, 1)]
    return sorted(ranked, key=lambda x: -x[0])


def test_the_guard_reorders_only_and_its_scores_decrease_down_the_list():
    hybrid = _scored((0.9, 0.5, 1.0), (0.7, 0.5, 0.3), (0.85, 0.75, 0.2), (0.8, 0.5, 0.5))  # order 1, 3, 4, 2
    parts = {mid: p for _, mid, p in hybrid}
    keyword = [(0.6, 2, parts[2]), (0.5, 4, parts[4]), (0.4, 5, _parts(0.75, 0.0))]
    merged = guard.keyword_first(hybrid, keyword)
    # 1 is closer in meaning than keyword search's first (2) by more than the margin, and 3 holds more of the
    # query's words than 2: both stay above it. 4 holds as many words as 2 and is not closer by the margin: it
    # stays under 2, as in keyword search. 5 was refused by the hybrid floor and stays out.
    assert [mid for _, mid, _ in merged] == [1, 3, 2, 4]
    assert [score for score, _, _ in merged] == [0.9, 0.85, 0.7, 0.699999]  # lowered only where the order needs it


def test_a_weak_keyword_hit_keeps_no_place():
    # "what search engine do we use": the answer holds "search" like the runbook BM25 puts first, and is closer
    # in meaning, by less than the margin; one word of three is what any memory about search shares.
    hybrid = _scored((0.9, 1 / 3, 0.62), (0.8, 1 / 3, 0.5))
    keyword = [(0.6, 2, hybrid[1][2]), (0.5, 1, hybrid[0][2])]
    assert [mid for _, mid, _ in guard.keyword_first(hybrid, keyword)] == [1, 2]
    # Half of the words or more: a strong keyword hit, and the tie keeps the keyword order.
    hybrid = _scored((0.9, 0.5, 0.62), (0.8, 0.5, 0.5))
    keyword = [(0.6, 2, hybrid[1][2]), (0.5, 1, hybrid[0][2])]
    assert [mid for _, mid, _ in guard.keyword_first(hybrid, keyword)] == [2, 1]
    # Without the floor: one word of three, nothing in meaning, against a memory that holds none of the words.
    hybrid = _scored((0.9, 0.0, 0.22), (0.8, 1 / 3, 0.0))
    keyword = [(0.6, 2, hybrid[1][2])]
    assert [mid for _, mid, _ in guard.keyword_first(hybrid, keyword)] == [1, 2]


def test_the_guard_changes_nothing_when_keyword_search_agrees_or_found_nothing():
    hybrid = _scored((0.9, 0.5, 0.7), (0.5, 0.4, 0.2))
    assert guard.keyword_first(hybrid, [(0.3, 1, hybrid[0][2]), (0.2, 2, hybrid[1][2])]) == hybrid
    assert guard.keyword_first(hybrid, []) == hybrid
    assert guard.keyword_first([], []) == []


def test_an_identifier_found_verbatim_keeps_the_top():
    rows, signals = _candidates(
        ("Call getInvoiceWriter() before the billing service writes", 1, 9, 0.15),
        ("The billing service writes invoices to the database the service owns", None, 1, 0.75),
    )
    hits = fusion.fuse(rows, signals, query_text.parse("getInvoiceWriter"), "hybrid", 10,
                       fusion.Params.from_defaults(answer_share=0.0), min_match=0.22)  # fmt: skip
    assert hits[0][1] == 1


def test_the_keyword_order_ranked_before_the_meaning_side_is_the_one_the_guard_reads_after_it():
    """A search ranks the word candidates' keyword order while its query is embedded (search.candidates with a
    floor): with only the word lists' signals, and the guard reads the same order as when it ranks after."""
    memories = (
        ("The billing service writes its records to PostgreSQL", 2, None, 0.30),  # a strong keyword hit
        ("Which team owns the service dashboards", 1, 1, 0.40),  # one word; first by meaning, weakly
        ("The invoice PDF template lives in the docs repo", None, 2, 0.38),
        ("The service writes to its database through an ORM", 3, None, 0.30),
    )
    rows, signals = _candidates(*memories)
    kq, params = query_text.parse(QUERY), fusion.Params.from_defaults(answer_share=0.0)
    words_only = {mid: row for mid, row in rows.items() if signals[mid].keyword_rank}
    before = {mid: _Signals(keyword_rank=s.keyword_rank, bm25=s.bm25) for mid, s in signals.items() if s.keyword_rank}
    early = fusion.keyword_ranking(words_only, before, kq, params, 0.22)
    assert 3 not in [mid for _, mid, _ in early]  # found by meaning only
    for row in rows.values():
        row.coverage = None
    after = fusion.fuse(rows, signals, kq, "hybrid", 10, params, min_match=0.22)
    for row in rows.values():
        row.coverage = None
    read_early = fusion.fuse(rows, signals, kq, "hybrid", 10, params, min_match=0.22, by_words=early)
    assert [(score, mid) for score, mid, _ in read_early] == [(score, mid) for score, mid, _ in after]
    unguarded = fusion.rank(rows, signals, kq, "hybrid", params, 0.22)
    assert [mid for _, mid, _ in after][0] == 1 != [mid for _, mid, _ in unguarded][0]  # the guard moved it up
