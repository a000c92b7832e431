"""Where bytes live: every raw SQL statement, behind one typed interface (`interface.Store`) with one implementation
per database (`sqlite`, `postgres`, chosen per connection by `stores`), offered to the domain as `sql`; the keyword
query the domain hands it (`keyword`); the in-process copy of the vectors that large stores rank from
(`vector_index`), the SQLite backend that loads sqlite-vec on every connection (`backend`), databases beside the
configured one on PostgreSQL (`side_databases`), and the hook that drops per-process caches when the store is
replaced (`resets`)."""

from memoryhub.storage.stores import StoreProxy

# `from memoryhub.storage import sql`, then `sql.<name>`: the store of the connection, whichever database it is.
sql = StoreProxy()
