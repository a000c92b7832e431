"""The agent hooks, run as Claude Code runs them: a subprocess with the hook's JSON on stdin, against a live
MemoryHub (`manage.py serve`), with nothing but the environment to configure them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from memoryhub.retrieval.recall import HEADER
from tests.live_server import REPO, LiveServer, create_token, free_port, migrated_store

pytestmark = pytest.mark.slow  # a live server and a subprocess per hook run

RECALL_HOOK = REPO / "scripts" / "hooks" / "memoryhub_recall.py"
REMEMBER_HOOK = REPO / "scripts" / "hooks" / "memoryhub_remember.py"
FACT = "The checkout tests need the Stripe mock running: start it with make stripe-mock first."
GOTCHA = "Never run the webshop migrations against the shared staging database from a laptop."


@pytest.fixture(scope="module")
def server(store_template, tmp_path_factory):
    store = migrated_store(store_template, tmp_path_factory.mktemp("hooks"))
    with LiveServer(store, threads=4) as live:
        live.token = create_token(store, "claude-code", "--project", "webshop")
        yield live


@pytest.fixture
def project(tmp_path) -> Path:
    """A checkout named like the project: the hooks take the project from the working directory's name."""
    directory = tmp_path / "webshop"
    (directory / ".memoryhub").mkdir(parents=True)
    return directory


def run_hook(script: Path, event: dict | str, *, url: str, token: str | None, **env: str):
    environment = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYHUB_")}
    environment |= {"MEMORYHUB_URL": url, **env}
    if token:
        environment["MEMORYHUB_TOKEN"] = token
    stdin = event if isinstance(event, str) else json.dumps(event)
    return subprocess.run(
        [sys.executable, str(script)], input=stdin, capture_output=True, text=True, env=environment, timeout=60
    )


def memories_of(server, project: str) -> list[dict]:
    response = httpx.get(
        f"{server.url}/api/v1/memories",
        params={"project": project},
        headers={"Authorization": f"Bearer {server.token}"},
        timeout=30,
    )
    assert response.status_code == 200, response.text
    return response.json()["results"]


def test_the_session_end_hook_posts_what_the_agent_chose_to_remember_through_the_gate(server, project):
    remember = project / ".memoryhub" / "remember.md"
    remember.write_text(
        "# Facts worth keeping (one per line)\n"
        f"- {FACT}\n"
        "- ok\n"  # noise: the gate rejects it
        "- The staging deploy uses password=hunter2-Secret-Value-9000 for now.\n"  # a secret: refused
        f"- {GOTCHA}\n"
    )
    event = {"session_id": "s-42", "cwd": str(project), "hook_event_name": "SessionEnd", "reason": "exit"}

    result = run_hook(REMEMBER_HOOK, event, url=server.url, token=server.token)

    assert result.returncode == 0 and result.stdout == ""
    assert "2 created" in result.stderr and "2 rejected" in result.stderr, result.stderr
    stored = {m["content"]: m for m in memories_of(server, "webshop")}
    assert set(stored) == {FACT, GOTCHA}
    assert stored[FACT]["source"] == "claude-code"
    assert stored[FACT]["metadata"] == {"via": "session-end hook", "session_id": "s-42"}
    # Everything the gate answered leaves the file; the comment stays.
    assert remember.read_text() == "# Facts worth keeping (one per line)\n"

    again = run_hook(REMEMBER_HOOK, {"cwd": str(project), "memories": [FACT]}, url=server.url, token=server.token)

    assert again.returncode == 0
    assert "1 duplicate" in again.stderr or "1 merged" in again.stderr, again.stderr
    assert len(memories_of(server, "webshop")) == 2


def test_the_prompt_hook_prints_the_recall_block_for_the_prompt(server, project):
    httpx.post(
        f"{server.url}/api/v1/memories",
        json={"content": FACT, "project": "webshop"},
        headers={"Authorization": f"Bearer {server.token}"},
        timeout=30,
    )
    event = {"prompt": "How do I run the checkout tests?", "cwd": str(project), "session_id": "s-43"}

    result = run_hook(RECALL_HOOK, event, url=server.url, token=server.token)

    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(HEADER)
    assert FACT in result.stdout
    assert result.stderr == ""


def test_the_hooks_fail_open_when_memoryhub_is_down(project):
    remember = project / ".memoryhub" / "remember.md"
    remember.write_text(f"- {FACT}\n")
    down = f"http://127.0.0.1:{free_port()}"  # nothing listens there

    recall = run_hook(RECALL_HOOK, {"prompt": "hi", "cwd": str(project)}, url=down, token="mh_x")
    end = run_hook(REMEMBER_HOOK, {"cwd": str(project)}, url=down, token="mh_x")

    assert recall.returncode == end.returncode == 0
    assert recall.stdout == "" and "memoryhub recall skipped" in recall.stderr
    assert "1 kept" in end.stderr and "unreachable" in end.stderr
    assert remember.read_text() == f"- {FACT}\n"  # kept for the next session


def test_the_hooks_fail_open_on_a_bad_token_a_missing_token_and_garbage_input(server, project):
    remember = project / ".memoryhub" / "remember.md"
    remember.write_text(f"- {GOTCHA}\n")

    bad_token = run_hook(RECALL_HOOK, {"prompt": "hi", "cwd": str(project)}, url=server.url, token="mh_wrong")
    no_token = run_hook(RECALL_HOOK, {"prompt": "hi", "cwd": str(project)}, url=server.url, token=None)
    garbage = run_hook(RECALL_HOOK, "{not json", url=server.url, token=server.token)
    end_bad_token = run_hook(REMEMBER_HOOK, {"cwd": str(project)}, url=server.url, token="mh_wrong")
    other_project = run_hook(
        RECALL_HOOK, {"prompt": "hi", "cwd": str(project)}, url=server.url, token=server.token,
        MEMORYHUB_PROJECT="someone-elses",
    )  # fmt: skip

    for result in (bad_token, no_token, garbage, end_bad_token, other_project):
        assert result.returncode == 0 and result.stdout == ""
    assert "401" in bad_token.stderr
    assert "MEMORYHUB_TOKEN is not set" in no_token.stderr
    assert "JSONDecodeError" in garbage.stderr
    assert "403" in other_project.stderr
    assert "1 kept" in end_bad_token.stderr and "HTTP 401" in end_bad_token.stderr
    assert remember.read_text() == f"- {GOTCHA}\n"
