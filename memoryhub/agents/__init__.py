"""Everything an agent talks to: API tokens and their scopes (`tokens`), tool schemas and calls (`tools`), the
memory-aware chat proxy and its upstream client (`proxy`, `upstream`), the MCP server (`mcp_server`), the
command-line client (`client`, which runs the installable package in clients/python, where the project rule lives
too), and capture at session end from a transcript (`transcripts`, `capture`)."""
