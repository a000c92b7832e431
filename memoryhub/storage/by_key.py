"""Model rows looked up by key with one plain statement, for the few reads every request makes (the token of an API
call, the k memories a search returns).

The ORM spends longer building such a query than the database spends answering it: a token lookup cost 0.2-0.35 ms
through `filter().first()` and 0.07 ms this way, ten results of a search 0.4-0.65 ms through `in_bulk` and 0.3 ms
this way. Rows still come back as model instances through Django's own field conversions (the converters the ORM's
compiler picks for each column, then `Model.from_db`), so callers see exactly what the ORM would have given them.
`Manager.raw` does the same, but works out the columns, the fields and their converters again for every
statement: for ten results that was as long as reading them. The SQL is the same on SQLite and PostgreSQL.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from django.db import connection, connections
from django.db.models import Model

M = TypeVar("M", bound=Model)

_CHUNK = 500  # ids per statement: well under SQLite's limit of bound parameters


def _select(model: type[Model]) -> str:
    """The model's own columns only: a table may hold more (PostgreSQL's generated word index column)."""
    quote = connection.ops.quote_name
    columns = ", ".join(quote(field.column) for field in model._meta.concrete_fields)
    return f"SELECT {columns} FROM {quote(model._meta.db_table)}"


@dataclass(frozen=True)
class _Reader:
    """How a row of `_select(model)` becomes an instance: the fields' attribute names in column order, and for each
    column that needs it, the converters the ORM's compiler picks (the backend's, then the field's own)."""

    names: tuple[str, ...]
    converters: tuple[tuple[int, tuple[Callable, ...], Any], ...]


# Per connection (each server thread has its own, and a converter may be bound to it) and per model.
_readers: weakref.WeakKeyDictionary[Any, dict[type[Model], _Reader]] = weakref.WeakKeyDictionary()


def _reader(model: type[Model]) -> _Reader:
    known = _readers.setdefault(connections[connection.alias], {})  # the thread's own, not the shared proxy
    reader = known.get(model)
    if reader is None:
        fields = model._meta.concrete_fields
        compiler = connection.ops.compiler("SQLCompiler")(None, connection, connection.alias)
        picked = compiler.get_converters([field.get_col(model._meta.db_table) for field in fields])
        converters = tuple((pos, tuple(funcs), expression) for pos, (funcs, expression) in sorted(picked.items()))
        reader = known[model] = _Reader(tuple(field.attname for field in fields), converters)
    return reader


def _instances(model: type[M], statement: str, params: Sequence) -> Iterator[M]:
    """The rows of `statement` (which selects `_select(model)`'s columns) as instances of `model`."""
    reader = _reader(model)
    adapt = connection.ops.adapt_unknown_value
    with connection.cursor() as cursor:
        cursor.execute(statement, [adapt(value) for value in params])
        rows = cursor.fetchall()
    for row in rows:
        values = list(row)
        for pos, funcs, expression in reader.converters:
            value = values[pos]
            for convert in funcs:
                value = convert(value, expression, connection)
            values[pos] = value
        yield model.from_db(connection.alias, reader.names, values)


def rows_by_id(model: type[M], ids: Sequence[int]) -> dict[int, M]:
    """The rows of `model` with these primary keys, by key (as `QuerySet.in_bulk`); missing ones are left out."""
    out: dict[int, M] = {}
    pk = connection.ops.quote_name(model._meta.pk.column)
    wanted = list(dict.fromkeys(int(i) for i in ids))
    for start in range(0, len(wanted), _CHUNK):
        chunk = wanted[start : start + _CHUNK]
        marks = ",".join(["%s"] * len(chunk))
        statement = f"{_select(model)} WHERE {pk} IN ({marks})"
        out.update((row.pk, row) for row in _instances(model, statement, chunk))
    return out


def row_where(model: type[M], column: str, value: object) -> M | None:
    """The row of `model` whose unique `column` holds `value`, or None."""
    field = model._meta.get_field(column)
    statement = f"{_select(model)} WHERE {connection.ops.quote_name(field.column)} = %s"
    for row in _instances(model, statement, [value]):
        return row
    return None
