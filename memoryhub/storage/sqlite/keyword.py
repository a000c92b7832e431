"""The domain's keyword query (memoryhub/storage/keyword.py) as an FTS5 MATCH expression.

Every term is a quoted string (embedded quotes doubled): FTS5 reads `multi-agent` unquoted as a column filter and
`AND`, `NOT`, `NEAR(` as operators, so quoted, `don't`, `c++`, unbalanced quotes and emoji are all just text. The
word index holds a row's text in `content` and `tags` and its scope as a token in `scope` (schema.py): text is
looked for in the text columns only, so a typed `scopeglobal` finds nothing it should not.
"""

from __future__ import annotations

from memoryhub.storage.keyword import AnyOf, InScope, Query, Term, TextQuery
from memoryhub.storage.portable import scope_token
from memoryhub.storage.sqlite.schema import FTS_TABLE, TRIGRAM_TABLE


def _quoted(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _text(query: TextQuery) -> str:
    if isinstance(query, Term):
        return _quoted(query.text)
    operator = " OR " if isinstance(query, AnyOf) else " AND "
    return operator.join(_operand(part) for part in query.parts)


def _operand(query: TextQuery) -> str:
    # AND binds tighter than OR in FTS5: a nested list of several parts keeps its own parentheses.
    return _text(query) if isinstance(query, Term) or len(query.parts) == 1 else f"({_text(query)})"


def _scope(scopes: tuple[str | None, ...]) -> str:
    return f"scope : ({' OR '.join(_quoted(scope_token(project)) for project in dict.fromkeys(scopes))})"


def match_expression(query: Query, table: str = FTS_TABLE) -> str:
    """The MATCH text of the query for the word index (`FTS_TABLE`) or the trigram index (`TRIGRAM_TABLE`, which
    holds the content alone, and no scope)."""
    if table == TRIGRAM_TABLE:
        if isinstance(query, InScope):
            raise ValueError("the trigram index holds no scope: filter by the memory row instead")
        return _text(query)
    if table != FTS_TABLE:
        raise ValueError(table)
    if not isinstance(query, InScope):
        return f"{{content tags}} : ({_text(query)})"
    text = None if query.query is None else f"{{content tags}} : ({_text(query.query)})"
    scope = None if query.scopes is None else _scope(query.scopes)
    return " AND ".join(part for part in (text, scope) if part)
