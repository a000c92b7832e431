"""Turning many memories into fewer: clustering related memories (`clustering`), stored pairs the update rules link
(`update_pairs`), and proposals a person accepts, rejects or undoes (`proposals`; written by the LLM of `judges.llm`
when one is configured)."""
