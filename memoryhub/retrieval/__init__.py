"""Finding memories again: hybrid search (`search`), how query text becomes safe FTS5 queries (`query_text`), how
ranked lists become one score and the relevance floor (`fusion`), the measured weights and limits they use
(`tuning`), what chat logs stored turn by turn add behind one switch (`conversations`), the recall block agents
inject (`recall`), and a memory's nearest neighbours (`neighbours`). The in-process vector copy it ranks from is
storage's (`vector_index`)."""
