"""`python manage.py mcp`: MemoryHub's MCP server over stdio (for agents that launch it), or with `--http` over
streamable HTTP at http://HOST:PORT/mcp under uvicorn. The main server (`manage.py serve`) already serves /mcp;
`--http` is for running MCP as a process of its own.

stdio: stdout carries the protocol, so this command prints nothing there. It acts as MEMORYHUB_TOKEN's agent when
that is set, else as a local agent named by --agent (full access: it can open the database file anyway).
"""

from __future__ import annotations

import os

import uvicorn
from django.core.management.base import BaseCommand, CommandError

from memoryhub.agents import mcp_server
from memoryhub.management.commands.serve import is_loopback


class Command(BaseCommand):
    help = "Serve MemoryHub's MCP tools and recall over stdio (default) or streamable HTTP (--http)."
    requires_system_checks = []  # checks may print; on stdio only the protocol may use stdout

    def add_arguments(self, parser):
        parser.add_argument("--project", default=os.environ.get("MEMORYHUB_PROJECT"),
                            help="default project for recall and tools (stdio; env MEMORYHUB_PROJECT)")  # fmt: skip
        parser.add_argument("--agent", default=os.environ.get("MEMORYHUB_AGENT", "mcp"),
                            help="agent name (source of its writes) when MEMORYHUB_TOKEN is unset")  # fmt: skip
        parser.add_argument("--http", action="store_true", help="serve streamable HTTP at /mcp instead of stdio")
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8765)

    def handle(self, *args, project, agent, http, host, port, **options):

        if http:
            if not 0 < port < 65536:
                raise CommandError("--port must be between 1 and 65535")
            if not is_loopback(host):
                self.stderr.write(f"warning: binding {host} exposes the memory store beyond this machine")
            self.stderr.write(f"MemoryHub MCP on http://{host}:{port}/mcp (streamable HTTP, bearer tokens)")
            uvicorn.run(mcp_server.asgi_app(host=host), host=host, port=port, log_level="warning")
            return
        try:
            caller = mcp_server.local_caller(token=os.environ.get("MEMORYHUB_TOKEN"), agent_name=agent, project=project)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        mcp_server.run_stdio(caller)
