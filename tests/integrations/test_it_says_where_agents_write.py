"""Agents always know where they write: a memory_store without a project through a token that may use several
projects is refused with an answer saying how to name one, unless the server names MEMORYHUB_DEFAULT_PROJECT or the
call asks for "scope": "global"; searches say which scope they searched; whoami and the MCP server's instructions
name the project in use. Over a real MCP client too, with the docs' own example."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memoryhub.agents.mcp_server import Caller, instructions_for
from memoryhub.agents.tokens import Agent
from memoryhub.agents.tools import ToolError, call_tool
from memoryhub.models import Memory
from tests.live_server import REPO, LiveServer, create_token, migrated_store

FACT = "The webshop sends order mails through Postmark templates."
WIDE = Agent(name="claude")


@pytest.mark.django_db
def test_a_store_without_a_project_is_refused_with_the_ways_to_name_one():
    with pytest.raises(ToolError) as refused:
        call_tool(name="memory_store", arguments={"content": FACT}, agent=WIDE)
    assert (refused.value.status, refused.value.field, refused.value.code) == (400, "project", "project_required")
    for way in ("`project` argument", "X-MemoryHub-Project", "one project", "MEMORYHUB_DEFAULT_PROJECT", '"global"'):
        assert way in refused.value.message
    assert not Memory.objects.exists()


@pytest.mark.django_db
def test_global_only_when_asked_and_the_answer_says_where_it_went():
    answer = call_tool(name="memory_store", arguments={"content": FACT, "scope": "global"}, agent=WIDE)["result"]
    assert (answer["outcome"], answer["memory"]["project"]) == ("created", None)
    assert answer["scope"] == "global: visible from every project"
    with pytest.raises(ToolError, match="not both"):
        call_tool(name="memory_store", arguments={"content": FACT, "scope": "global", "project": "x"}, agent=WIDE)


@pytest.mark.django_db
def test_the_configured_default_project_takes_a_store_that_names_none(settings):
    settings.MEMORYHUB_DEFAULT_PROJECT = "webshop"
    default = WIDE.default_project()
    answer = call_tool(name="memory_store", arguments={"content": FACT}, agent=WIDE, default_project=default)
    assert (answer["result"]["memory"]["project"], answer["result"]["scope"]) == ("webshop", "project 'webshop'")
    # A token that may not use the default project gets no default from it.
    assert Agent(name="other", projects=["alpha", "beta"]).default_project() is None


@pytest.mark.django_db
def test_a_search_without_a_project_says_it_searched_the_global_memories_only():
    answer = call_tool(name="memory_search", arguments={"query": "order mails"}, agent=WIDE)["result"]
    assert answer["results"] == [] and answer["scope"].startswith("the global memories only")
    answer = call_tool(name="memory_search", arguments={"query": "mails", "project": "webshop"}, agent=WIDE)
    assert answer["result"]["scope"] == "project 'webshop' and the global memories"


def test_the_mcp_instructions_name_the_connections_project():
    assert "works in project 'webshop'" in instructions_for(Caller(agent=WIDE, project="webshop"))
    assert "names no project" in instructions_for(Caller(agent=WIDE, project=None))


@pytest.mark.django_db
def test_whoami_names_the_default_project(client, settings):
    from memoryhub.agents.tokens import create_token as make_token

    settings.MEMORYHUB_DEFAULT_PROJECT = "webshop"
    _, raw = make_token(name="claude")
    answer = client.get("/api/v1/whoami", headers={"Authorization": f"Bearer {raw}"}).json()
    assert answer == {"name": "claude", "projects": None, "read_only": False, "default_project": "webshop"}


def docs_mcp_example() -> str:
    text = (REPO / "docs" / "integrations.md").read_text()
    [example] = re.findall(r"```python\n(# A Python MCP client.*?)```", text, re.DOTALL)
    return example


@pytest.mark.slow
def test_the_docs_python_mcp_client_works_against_a_live_server(store_template, tmp_path):
    store = migrated_store(store_template, tmp_path / "store")
    with LiveServer(store, threads=2) as live:
        token = create_token(store, "claude")
        script = docs_mcp_example().replace("http://127.0.0.1:8000", live.url).replace("mh_...", token)
        path = Path(tmp_path / "example.py")
        path.write_text(script)
        import subprocess
        import sys

        result = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=180)
        refused = subprocess.run(
            [sys.executable, "-c", NO_PROJECT_CALL.replace("URL", live.url).replace("TOKEN", token)],
            capture_output=True, text=True, timeout=180,
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "created" in result.stdout and "project 'webshop'" in result.stdout
    assert refused.returncode == 0, refused.stderr
    assert refused.stdout.startswith("True memory_store needs a project"), refused.stdout


NO_PROJECT_CALL = """
import anyio, httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

async def main():
    async with httpx2.AsyncClient(headers={"Authorization": "Bearer TOKEN"}, timeout=60) as http:
        async with Client(streamable_http_client("URL/mcp", http_client=http)) as client:
            result = await client.call_tool("memory_store", {"content": "The webshop deploys from main only."})
            print(result.is_error, result.content[0].text)

anyio.run(main)
"""
