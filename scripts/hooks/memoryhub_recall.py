#!/usr/bin/env python3
"""Prompt hook: recall from MemoryHub before the agent sees the prompt.

Claude Code runs it on UserPromptSubmit with the hook's JSON on stdin ({"prompt": ..., "cwd": ...,
"session_id": ...}); whatever it prints on stdout is added to the agent's context. It posts the prompt to
POST /api/v1/recall and prints the block. Any agent that can run a command per prompt can use it the same way.

Environment: MEMORYHUB_URL (default http://127.0.0.1:8000), MEMORYHUB_TOKEN (required), MEMORYHUB_PROJECT
(default: the token's only project when it is limited to one, else the git repository's top folder name, else
the working directory's name; memoryhub/agents/projects.py decides, for the CLI too),
MEMORYHUB_RECALL_BUDGET (characters, default: the server's), MEMORYHUB_HOOK_TIMEOUT (seconds, default 5).

It fails open: whatever goes wrong (no server, bad token, bad input), it prints nothing on stdout, a one-line
note on stderr, and exits 0, so the agent never waits on or is blocked by its memory. Standard library only.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.request

MAX_QUERY_CHARS = 2000


def note(message: str) -> None:
    print(f"memoryhub recall skipped: {message}", file=sys.stderr)


def read_event() -> dict:
    raw = sys.stdin.read() if not sys.stdin.isatty() else ""
    if not raw.strip():
        return {}
    event = json.loads(raw)
    return event if isinstance(event, dict) else {}


def project_for(event: dict, *, base: str, token: str, timeout: float) -> str | None:
    # The rule is shared with the CLI: it lives in the checkout these hooks belong to (standard library only).
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if root not in sys.path:
        sys.path.insert(0, root)
    from memoryhub.agents.projects import project_from_environment

    cwd = event.get("cwd") if isinstance(event.get("cwd"), str) else os.getcwd()
    return project_from_environment(base_url=base, token=token, cwd=cwd, timeout=timeout)


def post_json(url: str, token: str, body: dict, timeout: float) -> dict:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode("utf-8"),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read().decode("utf-8"))


def error_message(exc: urllib.error.HTTPError) -> str:
    try:
        return json.loads(exc.read().decode("utf-8"))["error"]["message"]
    except Exception:  # noqa: BLE001 - any body is fine, the status says enough
        return exc.reason or "error"


def main() -> int:
    try:
        token = os.environ.get("MEMORYHUB_TOKEN", "").strip()
        if not token:
            note("MEMORYHUB_TOKEN is not set")
            return 0
        event = read_event()
        prompt = event.get("prompt") if isinstance(event.get("prompt"), str) else ""
        base = os.environ.get("MEMORYHUB_URL", "http://127.0.0.1:8000").rstrip("/")
        timeout = float(os.environ.get("MEMORYHUB_HOOK_TIMEOUT", "5"))
        project = project_for(event, base=base, token=token, timeout=timeout)
        body: dict = {"project": project, "query": prompt[-MAX_QUERY_CHARS:]}
        if os.environ.get("MEMORYHUB_RECALL_BUDGET"):
            body["budget_chars"] = int(os.environ["MEMORYHUB_RECALL_BUDGET"])
        answer = post_json(f"{base}/api/v1/recall", token, body, timeout)
        text = answer.get("text") if isinstance(answer, dict) else None
        if text:
            print(text)
    except urllib.error.HTTPError as exc:
        note(f"MemoryHub answered {exc.code}: {error_message(exc)}")
    except Exception as exc:  # noqa: BLE001 - fail open: the agent must never be blocked by its memory
        note(f"{exc.__class__.__name__}: {exc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
