"""Databases beside the configured one on the same PostgreSQL server (created, dropped, looked up): a throw-away
store that leaves the user's own untouched. SQLite needs none of this: a side store there is another file."""

from __future__ import annotations

from django.db import connections


def _admin(statement: str) -> None:
    """A statement that cannot run inside a transaction (CREATE/DROP DATABASE), on a connection of its own."""
    import psycopg  # PostgreSQL only; a SQLite install may lack the driver

    params = connections["default"].get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    with psycopg.connect(**params, autocommit=True) as conn:
        conn.execute(statement)


def create_database(name: str) -> None:
    """`name` must be a plain identifier (letters, digits, underscores): it is written into the statement."""
    if not name.isidentifier():
        raise ValueError(f"not a database name: {name!r}")
    _admin(f"CREATE DATABASE {name}")


def drop_database(name: str) -> None:
    if not name.isidentifier():
        raise ValueError(f"not a database name: {name!r}")
    _admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def database_exists(name: str) -> bool:
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
        return cursor.fetchone() is not None
