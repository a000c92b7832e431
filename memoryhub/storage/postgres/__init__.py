"""The PostgreSQL implementation of the storage functions: a generated tsvector column with GIN (words), pg_trgm
(substrings), pgvector with HNSW (meaning), advisory locks for writers on several servers, and the checks.
`memoryhub.storage.stores` serves these names when MEMORYHUB_DATABASE_URL names a PostgreSQL database."""

from django.db import connection

import memoryhub.storage.portable as portable
from memoryhub.storage.interface import NAMES, OPTIONAL, offered_by
from memoryhub.storage.postgres import checks, queries, schema, vectors

# The databases this serves, as Django names their vendor.
VENDOR = "postgresql"

# Every name of the storage interface and the extras PostgreSQL offers (memoryhub/storage/interface.py lists them
# once, for both databases), each from the module of this package that defines it, or from `portable` where both
# databases share the code.
__all__ = ["connection", *NAMES, *OPTIONAL]
__getattr__ = offered_by((portable, checks, queries, schema, vectors), __all__)
