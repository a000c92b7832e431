"""The SQLite implementation of the storage functions: FTS5 word and trigram indexes, sqlite-vec's vec0 tables,
the triggers that keep both in step with the memory rows, and the checks. `memoryhub.storage.stores` serves these
names when the store is a SQLite file (the default)."""

# Every name of the storage interface (memoryhub/storage/interface.py), each from the module that defines it
# (go-to-definition follows).
from django.db import connection

from memoryhub.storage.interface import NAMES
from memoryhub.storage.portable import (
    CHANGE_TABLE,
    DEFAULT_DIMENSIONS,
    EVERYTHING,
    GLOBAL_SCOPE_TOKEN,
    MEMORY_TABLE,
    STORE_META_TABLE,
    Condition,
    both,
    changed_ids,
    count_memories,
    count_scoped,
    count_vectors,
    exact_scope,
    ids_scoped,
    memory_ids_where,
    of_model,
    of_status,
    proposal_sources,
    reinforce_rows,
    scope_alternatives,
    scope_token,
    superseded_among,
    vec_table,
    vector_ids,
)
from memoryhub.storage.sqlite.checks import (
    database_bytes,
    extension_problem,
    fts_check_table,
    fts_ids,
    fts_integrity_check,
    fts_rebuild,
    index_ids,
    integrity_messages,
    page_size,
    schema_names,
    set_journal_mode,
    vacuum,
)
from memoryhub.storage.sqlite.queries import (
    FILTERED_KNN,
    change_token,
    filter_memory_ids,
    fts_match,
    fts_nth_newest,
    fts_search,
    fusion_rows,
    has_tag,
    memory_filter_sql,
    memory_metadata,
    next_in_session,
    serialize_writes,
    set_synchronous,
    synchronous,
    tag_condition,
)
from memoryhub.storage.sqlite.schema import (
    FTS_RANK,
    FTS_SOURCE_VIEW,
    FTS_TABLE,
    TRIGRAM_TABLE,
    ensure_vec_table,
    existing_vec_dimensions,
    vec_create_statements,
    vec_drop_statements,
)
from memoryhub.storage.sqlite.vectors import (
    change_position,
    delete_vectors,
    insert_new_vectors,
    iter_vectors,
    knn,
    knn_among,
    knn_binary_rescored_among,
    log_changes,
    memory_scopes,
    quantize_binary,
    read_vectors,
    renew_generation,
    to_blob,
    write_vector,
)

# The databases this serves, as Django names their vendor.
VENDOR = "sqlite"

# The interface's names, listed once there (go-to-definition follows the imports above).
__all__ = ["connection", *NAMES]
