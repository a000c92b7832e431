"""Adapters that let agent frameworks use MemoryHub over its REST API (`langgraph.py`: a LangGraph store). They import
nothing of the server: an agent's process installs them with the `langgraph` extra, beside no Django."""
