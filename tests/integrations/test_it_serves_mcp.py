"""The MCP server, driven by the official SDK's own client over every way in: stdio (`manage.py mcp`), streamable
HTTP at /mcp on the main server (waitress), and the standalone `manage.py mcp --http` (uvicorn). Each lists the
tools, calls every one of them, reads the recall resource and gets the recall prompt, against a real store.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from bench.processes import stop
from memoryhub.agents.mcp_server import RECALL_URI
from memoryhub.agents.tools import tool_schemas
from memoryhub.retrieval.recall import HEADER
from tests.live_server import REPO, LiveServer, create_token, free_port, migrated_store, store_env

FACT = "The alpha service reads its settings from /etc/alpha/config.toml when it starts."
UPDATED = "The alpha service reads its settings from /etc/alpha/config.yaml when it starts."
TIMEOUT = 120  # seconds for a whole conversation; the first search loads the embedding model


def text_of(result) -> str:
    return "".join(block.text for block in result.content)


async def exercise(client: Client, project: str) -> None:
    """Everything an agent does with MemoryHub over MCP, in the order an agent would do it."""
    tools = (await client.list_tools()).tools
    expected = {t["function"]["name"]: t["function"]["parameters"] for t in tool_schemas()}
    assert {t.name: t.input_schema for t in tools} == expected

    stored = await client.call_tool("memory_store", {"content": FACT, "category": "fact"})
    assert not stored.is_error, text_of(stored)
    assert stored.structured_content["outcome"] == "created"
    memory = stored.structured_content["memory"]
    assert (memory["content"], memory["project"]) == (FACT, project)  # the connection's project by default
    memory_id = memory["id"]

    found = await client.call_tool("memory_search", {"query": "where does alpha read its config file"})
    assert [r["id"] for r in found.structured_content["results"]][:1] == [memory_id]

    listed = await client.call_tool("memory_list", {"limit": 5})
    assert [m["id"] for m in listed.structured_content["memories"]] == [memory_id]

    refreshed = await client.call_tool("memory_refresh", {"id": memory_id})
    assert refreshed.structured_content["memory"]["id"] == memory_id

    updated = await client.call_tool("memory_update", {"id": memory_id, "content": UPDATED})
    assert updated.structured_content["memory"]["content"] == UPDATED

    resources = (await client.list_resources()).resources
    assert [str(r.uri) for r in resources] == [RECALL_URI]
    recall = (await client.read_resource(RECALL_URI)).contents[0].text
    assert recall.startswith(HEADER) and UPDATED in recall

    prompts = (await client.list_prompts()).prompts
    assert [p.name for p in prompts] == ["recall"]
    prompt = await client.get_prompt("recall", {"query": "config file"})
    assert UPDATED in prompt.messages[0].content.text

    wrong = await client.call_tool("memory_search", {"qurey": "config"})
    assert wrong.is_error and "memory_search has no argument 'qurey'" in text_of(wrong)

    secret = "glpat-" + "aB3dE5fG7hJ9kL2mN4pQ"  # built from pieces: obviously fake, correctly shaped
    refused = await client.call_tool("memory_store", {"content": f"CI pushes tags with {secret}"})
    assert refused.is_error and "GitLab token" in text_of(refused) and secret not in text_of(refused)
    nul = await client.call_tool("memory_update", {"id": memory_id, "content": "NUL \x00 inside a memory"})
    assert nul.is_error and "NUL" in text_of(nul)

    deleted = await client.call_tool("memory_delete", {"id": memory_id})
    assert deleted.structured_content == {"deleted": memory_id}
    gone = await client.call_tool("memory_search", {"query": "alpha config file"})
    assert memory_id not in [r["id"] for r in gone.structured_content["results"]]


def run(conversation) -> None:
    """Run the client conversation on a thread of its own, so it never depends on whether the main thread has an
    event loop running (Playwright's sync API keeps one there while the browser tests run; anyio refuses to nest)."""

    async def bounded() -> None:
        with anyio.fail_after(TIMEOUT):
            await conversation()

    outcome: list[BaseException] = []

    def target() -> None:
        try:
            anyio.run(bounded)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the test thread below
            outcome.append(exc)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(TIMEOUT + 30)
    assert not thread.is_alive(), "the MCP conversation did not finish"
    if outcome:
        raise outcome[0]


@asynccontextmanager
async def http_client(url: str, token: str, **headers: str):
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}", **headers}, timeout=60) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            yield client


@pytest.fixture(scope="module")
def store(store_template, tmp_path_factory) -> Path:
    """One store for the three transports; each works in a project of its own, so none sees another's memories."""
    return migrated_store(store_template, tmp_path_factory.mktemp("mcp"))


@pytest.fixture(scope="module")
def token(store) -> str:
    return create_token(store, "http-agent")  # unscoped: the X-MemoryHub-Project header chooses the project


@pytest.mark.slow
def test_it_serves_every_tool_and_the_recall_over_stdio(store, tmp_path):
    # No token: a local agent with full access, the simplest stdio setup (it can open the database file anyway).
    params = StdioServerParameters(
        command=sys.executable,
        args=["manage.py", "mcp", "--agent", "stdio-agent"],
        cwd=str(REPO),
        env=store_env(store, MEMORYHUB_PROJECT="over-stdio"),
    )

    async def conversation() -> None:
        with open(tmp_path / "stdio-server.log", "w") as errlog:
            async with Client(stdio_client(params, errlog=errlog)) as client:
                await exercise(client, "over-stdio")

    run(conversation)


@pytest.mark.slow
def test_it_serves_every_tool_and_the_recall_at_slash_mcp_on_the_main_server(store, token):
    with LiveServer(store, threads=4) as server:
        run(lambda: _over_http(server.url + "/mcp", token, "over-waitress"))
        anonymous = httpx.post(server.url + "/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, timeout=10)
    assert anonymous.status_code == 401 and "Bearer" in anonymous.headers["www-authenticate"]


@pytest.mark.slow
def test_it_serves_the_same_over_its_own_http_process(store, token, tmp_path):
    port = free_port()
    log = open(tmp_path / "mcp-http.log", "w")  # noqa: SIM115 - the child writes to it until it stops
    process = subprocess.Popen(
        [sys.executable, "manage.py", "mcp", "--http", "--port", str(port)],
        cwd=REPO,
        env=store_env(store),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        _wait_for_port(port, process)
        run(lambda: _over_http(f"http://127.0.0.1:{port}/mcp", token, "over-uvicorn"))
        anonymous = httpx.post(f"http://127.0.0.1:{port}/mcp", json={}, timeout=10)
        assert anonymous.status_code == 401
    finally:
        stop(process)
        log.close()


async def _over_http(url: str, token: str, project: str) -> None:
    async with http_client(url, token, **{"X-MemoryHub-Project": project}) as client:
        await exercise(client, project)


def _wait_for_port(port: int, process: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"manage.py mcp --http exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"manage.py mcp --http did not listen on {port} within {timeout} s")


# Refusals happen in the Django view before the MCP SDK is involved, so the test client and database suffice.

PING = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})


@pytest.mark.django_db
def test_slash_mcp_refuses_a_missing_or_wrong_token_and_a_project_outside_the_token(client):
    from memoryhub.agents.tokens import create_token as make_token

    scoped = make_token(name="beta-only", projects=["beta"])[1]

    missing = client.post("/mcp", data=PING, content_type="application/json")
    wrong = client.post("/mcp", data=PING, content_type="application/json", headers={"Authorization": "Bearer nope"})
    outside = client.post(
        "/mcp",
        data=PING,
        content_type="application/json",
        headers={"Authorization": f"Bearer {scoped}", "X-MemoryHub-Project": "alpha"},
    )

    assert missing.status_code == wrong.status_code == 401
    assert wrong.json()["error"]["message"] == "the token is not valid or has been revoked"
    assert outside.status_code == 403
    assert outside.json()["error"]["message"] == "this token may not use project 'alpha'"


@pytest.mark.django_db
def test_slash_mcp_refuses_get_delete_and_cross_origin_posts(client):
    from memoryhub.agents.tokens import create_token as make_token

    auth = {"Authorization": f"Bearer {make_token(name='mcp-agent')[1]}"}

    get = client.get("/mcp", headers=auth)
    delete = client.delete("/mcp", headers=auth)
    foreign = client.post(
        "/mcp", data=PING, content_type="application/json", headers=auth | {"Origin": "http://evil.example"}
    )

    assert get.status_code == delete.status_code == 405 and get["Allow"] == "POST"
    assert foreign.status_code == 403
