"""Finding memories again: hybrid search (`search`), how query text becomes safe FTS5 queries (`query_text`), the
in-process vector copy for large stores (`vector_index`), and the recall block agents inject (`recall`)."""
