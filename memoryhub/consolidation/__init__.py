"""Turning many memories into fewer: clustering related memories (`clustering`), proposals a person accepts, rejects
or undoes (`proposals`), and the OpenAI-compatible chat client that writes better proposals when configured (`llm`)."""
