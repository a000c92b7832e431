"""Every raw SQL statement of MemoryHub, behind one set of names: callers use `from memoryhub.storage import sql`
and `sql.<name>`, whichever database holds the store.

One implementation per database, chosen once from the configured engine:
- `memoryhub.storage.sqlite`: the default SQLite file (FTS5 word and trigram indexes, sqlite-vec's vec0 tables);
- `memoryhub.storage.postgres`: a team's PostgreSQL (a generated `tsvector` column with GIN, pg_trgm, pgvector
  with HNSW), chosen by `MEMORYHUB_DATABASE_URL`.
Both export the same names (tests/test_it_runs_on_postgresql.py checks it), so the domain never asks which
database it is on. Where they differ in what they can do, a flag says so (`FILTERED_KNN`: the database ranks
vectors under any filter by itself).

Always parameters, never text from a user spliced into SQL. Table names are built only from integers
(vector dimensions) and constants.
"""

from django.db import connection

if connection.vendor == "postgresql":
    from memoryhub.storage import postgres as _implementation
else:
    from memoryhub.storage import sqlite as _implementation

__all__ = list(_implementation.__all__)
globals().update({name: getattr(_implementation, name) for name in __all__})
VENDOR = connection.vendor
