"""Where bytes live: the SQLite database backend that loads sqlite-vec on every connection (`backend`), every raw SQL
statement (`sql`: schema, FTS5 and vec0 tables, search queries, integrity checks), the in-process copy of the
vectors that large stores rank from (`vector_index`), scratch databases for benchmarks (`scratch`), and the hook
that drops per-process caches when the store is replaced (`resets`)."""
