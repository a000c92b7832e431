"""The LLM's second opinions the gate asks where its rules are unsure (`noise_judge`, `update_judge`), and the
OpenAI-compatible chat client they and consolidation use (`llm`)."""
