"""The write gate and what only writes need: the gate (`gate`: judge a checked write, then store it, fold it into its
twin or refuse it, and say why), what it judges with (`noise`, `categories`, `update_gate`), its answer for items
from other tools and dry runs (`gate_preview`), moving in from other tools (`importers`, `markdown_notes`), export
and import (`exports`), second looks at automatic supersessions (`supersession_review`), and a memory in an answer
(`shape`). It sits above search (the twin lookup) and the judges (the LLM's second opinions)."""
