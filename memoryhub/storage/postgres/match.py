"""FTS5 MATCH expressions, as memoryhub/retrieval/query_text.py builds them, turned into PostgreSQL conditions.

The domain speaks one small query language on both stores: quoted terms (`"a b"` is a phrase, `""` a quote),
AND, OR (AND binds tighter), parentheses, and column filters (`{content tags} : (...)`, `scope : (...)`). Here
each text term becomes `phraseto_tsquery` against the word column (stemmed as on SQLite), each scope token
the project condition it stands for, and each term for the trigram index an ILIKE that pg_trgm's GIN answers.
Every term travels as a parameter: nothing typed is ever SQL or tsquery syntax.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memoryhub.storage.postgres.schema import GLOBAL_SCOPE_TOKEN, TEXT_CONFIG, WORDS_COLUMN

# ASCII punctuation, as PostgreSQL's [[:punct:]] in the index (memoryhub/storage/postgres/schema.py).
_PUNCTUATION = re.compile(r"[!-/:-@\[-`{-~]+")

_TOKEN = re.compile(r'\s*(?:("(?:[^"]|"")*")|(\{[^}]*\})|(:)|(\()|(\))|([^\s():"{}]+))')


@dataclass(frozen=True)
class Term:
    text: str
    column: str  # "" (the text columns), or "scope"


@dataclass(frozen=True)
class Node:
    op: str  # "AND" | "OR"
    parts: tuple


def _tokens(expression: str) -> list[str]:
    out: list[str] = []
    position = 0
    while position < len(expression):
        found = _TOKEN.match(expression, position)
        if not found or found.end() == position:
            if expression[position:].strip():
                raise ValueError(f"cannot read the match expression at {expression[position:]!r}")
            break
        out.append(next(g for g in found.groups() if g is not None))
        position = found.end()
    return out


class _Parser:
    def __init__(self, expression: str):
        self.tokens = _tokens(expression)
        self.at = 0

    def peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self) -> str:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def parse(self):
        node = self.or_expr("")
        if self.peek() is not None:
            raise ValueError(f"unexpected {self.peek()!r} in the match expression")
        return node

    def or_expr(self, column: str):
        parts = [self.and_expr(column)]
        while self.peek() == "OR":
            self.take()
            parts.append(self.and_expr(column))
        return parts[0] if len(parts) == 1 else Node("OR", tuple(parts))

    def and_expr(self, column: str):
        parts = [self.unary(column)]
        while self.peek() not in (None, "OR", ")"):
            if self.peek() == "AND":
                self.take()
            parts.append(self.unary(column))
        return parts[0] if len(parts) == 1 else Node("AND", tuple(parts))

    def unary(self, column: str):
        token = self.peek()
        if token is not None and self.at + 1 < len(self.tokens) and self.tokens[self.at + 1] == ":":
            self.take()
            self.take()
            column = "scope" if token == "scope" else ""
        return self.primary(column)

    def primary(self, column: str):
        token = self.take() if self.peek() is not None else None
        if token is None:
            raise ValueError("the match expression ends early")
        if token == "(":
            node = self.or_expr(column)
            if self.peek() != ")":
                raise ValueError("unbalanced parentheses in the match expression")
            self.take()
            return node
        if token in (":", ")") or token.startswith("{"):
            raise ValueError(f"unexpected {token!r} in the match expression")
        if token.startswith('"'):
            return Term(token[1:-1].replace('""', '"'), column)
        return Term(token, column)


def parse(expression: str):
    return _Parser(expression).parse()


def _scope_condition(token: str, alias: str) -> tuple[str, list]:
    if token == GLOBAL_SCOPE_TOKEN:
        return f"{alias}.project IS NULL", []
    if token.startswith("scopep"):
        try:
            return f"{alias}.project = %s", [bytes.fromhex(token.removeprefix("scopep")).decode()]
        except ValueError:
            pass
    return "FALSE", []


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def condition(node, alias: str = "m", trigram: bool = False) -> tuple[str, list]:
    """A boolean SQL condition over the memory row `alias`, and its parameters."""
    if isinstance(node, Term):
        if node.column == "scope":
            return _scope_condition(node.text, alias)
        if trigram:
            return f"{alias}.content ILIKE %s", [f"%{_escape_like(node.text)}%"]
        return f"{alias}.{WORDS_COLUMN} @@ phraseto_tsquery('{TEXT_CONFIG}', %s)", [words_of(node.text)]
    parts = [condition(part, alias, trigram) for part in node.parts]
    joined = f" {node.op} ".join(f"({sql})" for sql, _ in parts)
    return joined, [p for _, params in parts for p in params]


def words_of(text: str) -> str:
    """A term as the word index saw its text: punctuation is a space."""
    return _PUNCTUATION.sub(" ", text)


def text_terms(node) -> list[str]:
    """The text terms (not scope tokens) of an expression, for scoring: every one that matches counts."""
    if isinstance(node, Term):
        return [] if node.column == "scope" else [node.text]
    return [t for part in node.parts for t in text_terms(part)]


def score(node, alias: str = "m", trigram: bool = False) -> tuple[str, list]:
    """A lower-is-better score (as FTS5's bm25) for the rows the condition keeps: ts_rank_cd over the OR of the
    expression's text terms; for the trigram index, how much of each term the text holds."""
    terms = text_terms(node) or [""]
    if trigram:
        sql = " + ".join(f"word_similarity(%s, {alias}.content)" for _ in terms)
        return f"-({sql})", terms
    query = " || ".join(f"phraseto_tsquery('{TEXT_CONFIG}', %s)" for _ in terms)
    return f"-ts_rank_cd({alias}.{WORDS_COLUMN}, {query}, 1)", [words_of(t) for t in terms]
