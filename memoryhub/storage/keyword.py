"""A keyword query as the domain asks it: a small typed tree that retrieval builds and each store renders itself
(SQLite: an FTS5 MATCH expression, memoryhub/storage/sqlite/keyword.py; PostgreSQL: a condition and a score over
the tsvector column and pg_trgm, memoryhub/storage/postgres/keyword.py).

Nothing in the tree is syntax. A term is text: the word index matches it as the phrase of its words (the index's
tokenizer splits `docs/runbooks/notifications.md` into four), the trigram index as a substring of the content.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Term:
    """Text, matched as the phrase of its words (one word or several); on the trigram index, as a substring."""

    text: str


@dataclass(frozen=True)
class AnyOf:
    """Rows matching at least one of the parts."""

    parts: tuple[TextQuery, ...]

    def __post_init__(self):
        object.__setattr__(self, "parts", _parts(self.parts))


@dataclass(frozen=True)
class AllOf:
    """Rows matching every part."""

    parts: tuple[TextQuery, ...]

    def __post_init__(self):
        object.__setattr__(self, "parts", _parts(self.parts))


@dataclass(frozen=True)
class InScope:
    """Rows of these scopes (a project's name; None inside: the globals; None for the whole: every project) whose
    text matches the query (None: every row of the scopes). Only the word index knows a row's scope."""

    query: TextQuery | None
    scopes: tuple[str | None, ...] | None

    def __post_init__(self):
        if self.scopes is not None:
            if not self.scopes:
                raise ValueError("a scope of no project matches nothing: leave the search out")
            object.__setattr__(self, "scopes", tuple(self.scopes))
        if self.query is None and self.scopes is None:
            raise ValueError("nothing to match: neither text nor a scope")


TextQuery = Term | AnyOf | AllOf  # what a row's text (content and tags) must hold
Query = TextQuery | InScope  # what the storage's keyword functions take


def _parts(parts: Sequence[TextQuery]) -> tuple[TextQuery, ...]:
    parts = tuple(parts)
    if not parts:
        raise ValueError("a query of no parts matches nothing: leave the search out")
    return parts


def any_of(texts: Iterable[str]) -> TextQuery:
    """Rows holding any of these texts (one text: that term alone)."""
    terms = tuple(Term(text) for text in texts)
    return terms[0] if len(terms) == 1 else AnyOf(terms)


def all_of(texts: Iterable[str]) -> TextQuery:
    """Rows holding every one of these texts (one text: that term alone)."""
    terms = tuple(Term(text) for text in texts)
    return terms[0] if len(terms) == 1 else AllOf(terms)


def terms(query: Query) -> list[Term]:
    """The query's terms in order (a scope is not one)."""
    if isinstance(query, Term):
        return [query]
    if isinstance(query, InScope):
        return [] if query.query is None else terms(query.query)
    return [term for part in query.parts for term in terms(part)]
