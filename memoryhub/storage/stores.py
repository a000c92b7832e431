"""Which storage implementation serves a connection: `sqlite` (the default SQLite file: FTS5 word and trigram indexes,
sqlite-vec's vec0 tables) or `postgres` (a team's PostgreSQL, named by MEMORYHUB_DATABASE_URL: a generated tsvector
column with GIN, pg_trgm, pgvector with HNSW). Each is a module that satisfies the typed interface
`memoryhub.storage.interface.Store`; tests/test_it_runs_on_postgresql.py holds both to it.

The domain calls `sql.<name>` (memoryhub/storage/__init__.py): a `StoreProxy` that asks `for_connection()` at each
call, so nothing is chosen at import time and the domain never asks which database it is on. Where the databases
differ in what they can do, a flag says so (`FILTERED_KNN`: the database ranks vectors under any filter by itself).
"""

from __future__ import annotations

from typing import Any

from django.db import connection as default_connection

import memoryhub.storage.postgres as postgres
import memoryhub.storage.sqlite as sqlite
from memoryhub.storage.interface import NAMES, OPTIONAL, Store

_BY_VENDOR = {implementation.VENDOR: implementation for implementation in (sqlite, postgres)}

# What `sql` answers to: the interface's names, the extras a database may offer, and the connection itself.
_OFFERED = frozenset({"connection", *NAMES, *OPTIONAL})


def for_connection(connection: Any = default_connection) -> Store:
    """The storage implementation for the database behind this connection (Django's default one unless given)."""
    try:
        return _BY_VENDOR[connection.vendor]
    except KeyError:
        raise LookupError(f"no storage implementation for a {connection.vendor} database") from None


class StoreProxy:
    """The store of the default connection under the interface's names: `sql.fts_search(...)` is
    `for_connection().fts_search(...)`. A name the interface does not list is refused, even where one
    implementation happens to define it. Setting a name sets it on the implementation (a test's monkeypatch)."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        if name not in _OFFERED:
            raise AttributeError(f"storage offers no {name!r} (memoryhub/storage/interface.py lists what it offers)")
        return getattr(for_connection(), name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in _OFFERED:
            raise AttributeError(f"storage offers no {name!r}")
        setattr(for_connection(), name, value)

    def __delattr__(self, name: str) -> None:
        delattr(for_connection(), name)

    def __dir__(self) -> list[str]:
        return sorted(name for name in _OFFERED if hasattr(for_connection(), name))

    def __repr__(self) -> str:
        return f"<store {for_connection().__name__}>"
