"""The names every storage implementation offers (`memoryhub.storage.sqlite`, `memoryhub.storage.postgres`), and
how an implementation package gathers them from its modules: one list, so the two cannot drift apart."""

from __future__ import annotations

from types import ModuleType

NAMES = (
    "FILTERED_KNN",
    "serialize_writes",
    "MEMORY_TABLE",
    "FTS_TABLE",
    "TRIGRAM_TABLE",
    "DEFAULT_DIMENSIONS",
    "vec_table",
    "FTS_SOURCE_VIEW",
    "GLOBAL_SCOPE_TOKEN",
    "scope_token",
    "FTS_CREATE_V1",
    "FTS_DROP_V1",
    "FTS_SCOPE_UP",
    "FTS_SCOPE_DOWN",
    "FTS_RANK",
    "vec_create_statements",
    "vec_drop_statements",
    "existing_vec_dimensions",
    "ensure_vec_table",
    "to_blob",
    "write_vector",
    "delete_vectors",
    "read_vectors",
    "knn",
    "vector_ids",
    "knn_among",
    "knn_binary_rescored_among",
    "insert_new_vectors",
    "quantize_binary",
    "iter_vectors",
    "memory_scopes",
    "change_position",
    "changed_ids",
    "count_vectors",
    "log_changes",
    "renew_generation",
    "CHANGE_TABLE",
    "STORE_META_TABLE",
    "CHANGE_LOG_UP",
    "CHANGE_LOG_DOWN",
    "SUPERSESSION_UP",
    "SUPERSESSION_DOWN",
    "fts_match",
    "has_tag",
    "memory_filter_sql",
    "tag_condition",
    "fts_search",
    "fts_nth_newest",
    "scope_alternatives",
    "count_scoped",
    "ids_scoped",
    "filter_memory_ids",
    "count_memories",
    "memory_ids_where",
    "memory_metadata",
    "next_in_session",
    "synchronous",
    "set_synchronous",
    "change_token",
    "fusion_rows",
    "fts_integrity_check",
    "fts_rebuild",
    "fts_ids",
    "schema_names",
    "integrity_messages",
    "fts_check_table",
    "index_ids",
    "set_journal_mode",
    "vacuum",
    "page_size",
    "extension_problem",
)

# Offered where the database can do it: PostgreSQL ranks vectors under any filter itself (`FILTERED_KNN`).
OPTIONAL = ("knn_where",)


def gather(modules: tuple[ModuleType, ...], namespace: dict) -> list[str]:
    """Put each name (and each optional one a module has) into `namespace`, from the module defining it; returns
    the package's `__all__`. A name no module defines is an error at import, not at the first search."""
    exported = ["connection"]
    from django.db import connection

    namespace["connection"] = connection
    for name in (*NAMES, *OPTIONAL):
        found = [m for m in modules if name in vars(m)]
        if not found:
            if name in OPTIONAL:
                continue
            raise ImportError(f"{namespace['__name__']} does not define {name}")
        namespace[name] = getattr(found[0], name)
        exported.append(name)
    return exported
