"""How search ranks and plans: the weights and limits measured on our evaluation sets, in one table.

These are not settings. An operator chooses paths, hosts, keys, the model and the relevance floor
(`MEMORYHUB_SEARCH_MIN_SCORE`, docs/settings.md); the values here were chosen by measuring (`python -m bench
locomo --cv`, `python -m bench recall`, `python -m bench search`; the figures and what was tried are in
docs/search.md), and changing one is a change to the code, measured the same way. `fusion.Params.from_defaults()`
is the one reader of the fusion part; evaluation grids vary a copy of it. The in-process vector copy's own limits
sit beside it in storage (`memoryhub/storage/vector_index.py`: EXACT_KNN_MAX, QUANTIZED_RESCORE, COPY_INT8_ABOVE),
which cannot read upward.

Read through the module (`tuning.DEFAULTS.search_pool`), never copied at import: a test changes a value by
replacing DEFAULTS (the `tuned` fixture in tests/conftest.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Tuning:
    # --- Fusion: how the ranked lists become one order (fusion.py) -------------------------------------------
    # Small, so each list's first places count far more than its fifth: the best hit of either list should lead.
    rrf_k: int = 3
    # The reference weight; the other lists are weighed against the word list.
    keyword_weight: float = 1.0
    # A little above words: questions often paraphrase their answer, and shared words already add through coverage.
    semantic_weight: float = 1.1
    # An identifier found inside a longer one (`UserId` in `getUserId`) is as good a witness as a whole word.
    substring_weight: float = 1.0
    # The share of the query's words a memory holds counts as much as its ranks; more fits conversations but costs
    # the coding-agent questions of `python -m bench recall` their first places.
    coverage_weight: float = 1.0
    # Half of a score is absolute closeness, so "first of nothing good" does not look like a good match.
    score_absolute: float = 0.5
    # Coverage weighs each word by its rarity among the candidates: a name every memory carries counts less than
    # the word that says what was asked (0 would count words alike).
    rare_words: float = 1.0
    # Importance reorders near-ties and never lifts a clearly worse match above a better one.
    importance_weight: float = 0.15
    # A person's confirmation breaks ties, nothing more.
    confirmed_bonus: float = 0.05
    # --- Conversation ranking (conversations.py; only with MEMORYHUB_CONVERSATION_RANKING on) -----------------
    # A reply scores this share of its question's score: just under it, never above it.
    answer_share: float = 0.8
    # Only questions among the first five lift their reply: a question further down is rarely the one that matched.
    answer_top: int = 5
    # A question naming one speaker is answered by that speaker's turns (97% of the evidence turns of the tune
    # conversations when one speaker is named): the others' turns score half, so the named speaker's reply to a
    # question comes above the question (lifted to 0.8 of it) and a close second by the other speaker drops.
    other_speaker_share: float = 0.5
    # The speaker's next turn after one of the first two results (two turns on, past the other's reply) scores half
    # of it: a conversation comes back to its topic a turn later, and that turn often holds what the matching one
    # only leads to. Half: under the other results that match on their own, above what only nearly matches.
    continuation_share: float = 0.5
    continuation_top: int = 2

    # --- Search planning: how many candidates, and how they are fetched (search.py) -----------------------------
    # Candidates per ranked list (at least 5 x k): room for fusion and the floor to reorder the first ten; a pool
    # twice as large found answers only within noise.
    search_pool: int = 50
    # A word held by more memories than this in the searched scope is planned around (search._word_hits): scoring
    # its whole doclist would cost tens of milliseconds, and a word that common adds little to BM25.
    keyword_common_docs: int = 1000
    # A filter leaving at most this many memories ranks exactly those rows: cheaper than widening the pool until
    # enough of them pass.
    knn_filter_ids_max: int = 2000
    # vec0's top-k selection costs rows x k, so a widened vector pool stops here.
    knn_max_fetch: int = 1000


DEFAULTS = Tuning()


@contextmanager
def tuned(**values: float) -> Iterator[Tuning]:
    """Evaluations: search with some of these values changed until the block ends (`bench locomo --baseline`)."""
    global DEFAULTS
    before = DEFAULTS
    DEFAULTS = replace(before, **values)
    try:
        yield DEFAULTS
    finally:
        DEFAULTS = before
