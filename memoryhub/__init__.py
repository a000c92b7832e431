"""MemoryHub: long-term memory for AI coding agents, in one SQLite file."""
