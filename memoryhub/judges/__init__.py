"""The LLM's second opinions the gate asks on what its rules are unsure of, and the OpenAI-compatible client."""
