"""The domain's keyword query (memoryhub/storage/keyword.py) as PostgreSQL conditions and a score.

Each term becomes `phraseto_tsquery` against the word column (stemmed as on SQLite) or, for the trigram index, an
ILIKE that pg_trgm's GIN answers; a scope becomes the project condition it names. Every term travels as a
parameter: nothing typed is ever SQL or tsquery syntax.
"""

from __future__ import annotations

import re

from memoryhub.storage.keyword import AnyOf, InScope, Query, Term, terms
from memoryhub.storage.postgres.schema import TEXT_CONFIG, WORDS_COLUMN

# FTS5's unicode61 tokenizer splits at every punctuation mark (`settings_local.py` is three words); PostgreSQL's
# parser would keep a path or a file name as one token. The word column turns [[:punct:]] into spaces (migration
# 0002), and each term here does the same with ASCII punctuation, so the same words match on both stores.
_PUNCTUATION = re.compile(r"[!-/:-@\[-`{-~]+")

# A term as the word index reads it: its words, in order (the parameter is the term's `words_of`).
_TSQUERY = f"phraseto_tsquery('{TEXT_CONFIG}', %s)"


def _joined(operator: str, parts: list[tuple[str, list]]) -> tuple[str, list]:
    if len(parts) == 1:
        return parts[0]
    return f" {operator} ".join(f"({sql})" for sql, _ in parts), [p for _, params in parts for p in params]


def _scope_condition(scopes: tuple[str | None, ...], alias: str) -> tuple[str, list]:
    def one(project: str | None) -> tuple[str, list]:
        return (f"{alias}.project IS NULL", []) if project is None else (f"{alias}.project = %s", [project])

    return _joined("OR", [one(project) for project in dict.fromkeys(scopes)])


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def condition(query: Query, alias: str = "m", trigram: bool = False) -> tuple[str, list]:
    """A boolean SQL condition over the memory row `alias`, and its parameters."""
    if isinstance(query, InScope):
        if trigram:
            raise ValueError("the trigram index holds no scope: filter by the memory row instead")
        text = [] if query.query is None else [condition(query.query, alias)]
        scope = [] if query.scopes is None else [_scope_condition(query.scopes, alias)]
        return _joined("AND", [*text, *scope])
    if isinstance(query, Term):
        if trigram:
            return f"{alias}.content ILIKE %s", [f"%{_escape_like(query.text)}%"]
        return f"{alias}.{WORDS_COLUMN} @@ {_TSQUERY}", [words_of(query.text)]
    if not trigram and isinstance(query, AnyOf) and all(isinstance(part, Term) for part in query.parts):
        # Any of several terms: one match against the OR of their phrases finds the same rows as one match per term
        # joined by OR, and reads each row's words once instead of once per term.
        return f"{alias}.{WORDS_COLUMN} @@ ({' || '.join([_TSQUERY] * len(query.parts))})", [
            words_of(part.text) for part in query.parts
        ]
    operator = "OR" if isinstance(query, AnyOf) else "AND"
    return _joined(operator, [condition(part, alias, trigram) for part in query.parts])


def words_of(text: str) -> str:
    """A term as the word index saw its text: punctuation is a space."""
    return _PUNCTUATION.sub(" ", text)


def score(query: Query, alias: str = "m", trigram: bool = False) -> tuple[str, list]:
    """A lower-is-better score (as FTS5's bm25) for the rows the condition keeps: ts_rank over the OR of the query's
    terms, by length (normalization 1); for the trigram index, how much of each term the text holds. Not ts_rank_cd:
    it measures how close the words stand, for every row holding any of them, and on common words that was 2 of a
    search's 4 ms at 10k memories; `python -m bench recall` on PostgreSQL found as many answers with ts_rank (hit@1
    / 3 / 10 with the floor 0.639 / 0.750 / 0.778 with ts_rank_cd, 0.667 / 0.750 / 0.806 with ts_rank)."""
    texts = [term.text for term in terms(query)] or [""]
    if trigram:
        sql = " + ".join(f"word_similarity(%s, {alias}.content)" for _ in texts)
        return f"-({sql})", texts
    tsquery = " || ".join(_TSQUERY for _ in texts)
    return f"-ts_rank({alias}.{WORDS_COLUMN}, {tsquery}, 1)", [words_of(t) for t in texts]
