"""The SQLite implementation of the storage functions: FTS5 word and trigram indexes, sqlite-vec's vec0 tables,
the triggers that keep both in step with the memory rows, and the checks. `memoryhub.storage.stores` serves these
names when the store is a SQLite file (the default)."""

from django.db import connection

import memoryhub.storage.portable as portable
from memoryhub.storage.interface import NAMES, offered_by
from memoryhub.storage.sqlite import checks, queries, schema, vectors

# The databases this serves, as Django names their vendor.
VENDOR = "sqlite"

# Every name of the storage interface (memoryhub/storage/interface.py lists them once, for both databases), each
# from the module of this package that defines it, or from `portable` where both databases share the code.
__all__ = ["connection", *NAMES]
__getattr__ = offered_by((portable, checks, queries, schema, vectors), __all__)
