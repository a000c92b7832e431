"""The SQLite implementation of the storage functions: FTS5 word and trigram indexes, sqlite-vec's vec0 tables,
the triggers that keep both in step with the memory rows, and the checks. `memoryhub.storage.sql` re-exports it
when the store is a SQLite file (the default)."""

from memoryhub.storage.names import gather
from memoryhub.storage.sqlite import checks, queries, schema, vectors

__all__ = gather((checks, queries, schema, vectors), globals())
