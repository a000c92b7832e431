"""The LLM's second opinions the gate asks where its rules are unsure (`noise_judge`, `update_judge`), asked one way
(`opinion`), and the OpenAI-compatible chat client they, consolidation and capture use (`llm`)."""
