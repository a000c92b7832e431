"""The prompt hook: recall from MemoryHub before the agent sees the prompt (`memoryhub hook recall`, or
scripts/hooks/memoryhub_recall.py in a checkout).

Claude Code runs it on UserPromptSubmit with the hook's JSON on stdin ({"prompt": ..., "cwd": ..., "session_id":
...}); whatever it prints on stdout is added to the agent's context. It posts the prompt to POST /api/v1/recall and
prints the block. Any agent that can run a command per prompt can use it the same way.

Environment: MEMORYHUB_URL (default http://127.0.0.1:8000), MEMORYHUB_TOKEN (required), MEMORYHUB_PROJECT
(default: the token's only project when it is limited to one, else the git repository's top folder name, else the
working directory's name: `projects` decides, for the CLI too), MEMORYHUB_RECALL_BUDGET (characters, default: the
server's), MEMORYHUB_HOOK_TIMEOUT (seconds, default 5).

It fails open: whatever goes wrong (no server, bad token, bad input), it prints nothing on stdout, a one-line note on
stderr, and exits 0, so the agent never waits on or is blocked by its memory.
"""

from __future__ import annotations

import json
import os
import sys
from typing import TextIO

from memoryhub_client.api import DEFAULT_URL, ClientError, MemoryHubClient
from memoryhub_client.projects import project_from_environment

MAX_QUERY_CHARS = 2000


def read_event(stdin: TextIO) -> dict:
    raw = stdin.read() if not stdin.isatty() else ""
    if not raw.strip():
        return {}
    event = json.loads(raw)
    return event if isinstance(event, dict) else {}


def recall_hook(stdin: TextIO | None = None, out: TextIO | None = None) -> int:
    stdin, out = stdin or sys.stdin, out or sys.stdout
    try:
        token = os.environ.get("MEMORYHUB_TOKEN", "").strip()
        if not token:
            print("memoryhub recall skipped: MEMORYHUB_TOKEN is not set", file=sys.stderr)
            return 0
        event = read_event(stdin)
        prompt = event.get("prompt") if isinstance(event.get("prompt"), str) else ""
        base = os.environ.get("MEMORYHUB_URL", DEFAULT_URL).rstrip("/")
        timeout = float(os.environ.get("MEMORYHUB_HOOK_TIMEOUT", "5"))
        cwd = event.get("cwd") if isinstance(event.get("cwd"), str) else os.getcwd()
        project = project_from_environment(base_url=base, token=token, cwd=cwd, timeout=timeout)
        budget = os.environ.get("MEMORYHUB_RECALL_BUDGET")
        answer = MemoryHubClient(base, token, timeout=timeout).recall(
            project=project, query=prompt[-MAX_QUERY_CHARS:], budget_chars=int(budget) if budget else None
        )
        if answer.get("text"):
            print(answer["text"], file=out)
    except ClientError as exc:
        print(f"memoryhub recall skipped: {exc}", file=sys.stderr)
    except Exception as exc:  # noqa: BLE001 - fail open: the agent must never be blocked by its memory
        print(f"memoryhub recall skipped: {exc.__class__.__name__}: {exc}", file=sys.stderr)
    return 0
