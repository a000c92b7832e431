"""The PostgreSQL implementation of the storage functions: a generated tsvector column with GIN (words), pg_trgm
(substrings), pgvector with HNSW (meaning), advisory locks for writers on several servers, and the checks.
`memoryhub.storage.sql` re-exports it when MEMORYHUB_DATABASE_URL names a PostgreSQL database."""

from memoryhub.storage.names import gather
from memoryhub.storage.postgres import checks, queries, schema, vectors

__all__ = gather((checks, queries, schema, vectors), globals())
