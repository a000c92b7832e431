#!/usr/bin/env python3
"""Session-end hook: post what the agent chose to remember to MemoryHub, through the write gate.

During a session the agent writes each lasting fact, decision or gotcha worth keeping as one line of
`.memoryhub/remember.md` in the project (MEMORYHUB_REMEMBER_FILE to put it elsewhere; `#` lines are comments,
a leading "- " is dropped). When the session ends (Claude Code's SessionEnd hook: {"session_id", "cwd",
"reason", ...} on stdin) each line goes to POST /api/v1/memories, where the gate stores it, folds it into a
memory it duplicates, or rejects it (noise, secrets). Lines the gate answered leave the file; lines that could
not be sent (server down, timeout) stay for the next session. A hook that can hand the facts over directly may
instead put them on stdin as {"memories": ["...", {"content": "...", "category": "gotcha", "tags": [...]}]}.

Environment: MEMORYHUB_URL (default http://127.0.0.1:8000), MEMORYHUB_TOKEN (required), MEMORYHUB_PROJECT
(default: the name of the working directory), MEMORYHUB_HOOK_TIMEOUT (seconds per request, default 10).

It fails open: it always exits 0, with a one-line summary or note on stderr. Standard library only.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import urllib.error
import urllib.request

DEFAULT_FILE = os.path.join(".memoryhub", "remember.md")
MAX_ITEMS = 100  # a runaway file must not turn the end of a session into minutes of posting
FIELDS = ("content", "category", "tier", "tags", "metadata")


def note(message: str) -> None:
    print(f"memoryhub remember: {message}", file=sys.stderr)


def read_event() -> dict:
    raw = sys.stdin.read() if not sys.stdin.isatty() else ""
    if not raw.strip():
        return {}
    event = json.loads(raw)
    return event if isinstance(event, dict) else {}


def project_for(cwd: str) -> str | None:
    configured = os.environ.get("MEMORYHUB_PROJECT", "").strip()
    return configured or os.path.basename(os.path.normpath(cwd)) or None


def remember_file(cwd: str) -> str:
    path = os.environ.get("MEMORYHUB_REMEMBER_FILE", "").strip() or DEFAULT_FILE
    return path if os.path.isabs(path) else os.path.join(cwd, path)


def fact_of(line: str) -> str:
    text = line.strip()
    for bullet in ("- ", "* ", "+ "):
        if text.startswith(bullet):
            return text[len(bullet) :].strip()
    return text


def read_lines(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read().splitlines()
    except FileNotFoundError:
        return []


def rewrite(path: str, lines: list[str]) -> None:
    """Replace the file in one step, so an agent appending at the same moment never sees half a file."""
    directory = os.path.dirname(path) or "."
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=".remember-", suffix=".tmp")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write("".join(f"{line}\n" for line in lines))
    os.replace(temporary, path)


def post(base: str, token: str, body: dict, timeout: float) -> tuple[int, dict]:
    request = urllib.request.Request(
        f"{base}/api/v1/memories",
        data=json.dumps(body).encode("utf-8"),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read().decode("utf-8"))
    except urllib.error.HTTPError as exc:
        try:
            answer = json.loads(exc.read().decode("utf-8"))
        except ValueError:
            answer = {}
        return exc.code, answer if isinstance(answer, dict) else {}


def items_from(event: dict) -> list[dict] | None:
    """Memories handed over on stdin, or None when the event carries none."""
    memories = event.get("memories")
    if not isinstance(memories, list):
        return None
    items = []
    for entry in memories:
        if isinstance(entry, str) and entry.strip():
            items.append({"content": entry.strip()})
        elif isinstance(entry, dict) and isinstance(entry.get("content"), str):
            items.append({k: entry[k] for k in FIELDS if k in entry})
    return items


def main() -> int:
    try:
        token = os.environ.get("MEMORYHUB_TOKEN", "").strip()
        if not token:
            note("MEMORYHUB_TOKEN is not set; nothing posted")
            return 0
        event = read_event()
        cwd = event.get("cwd") if isinstance(event.get("cwd"), str) else os.getcwd()
        project = project_for(cwd)
        base = os.environ.get("MEMORYHUB_URL", "http://127.0.0.1:8000").rstrip("/")
        timeout = float(os.environ.get("MEMORYHUB_HOOK_TIMEOUT", "10"))
        given = items_from(event)
        path = remember_file(cwd)
        lines = read_lines(path) if given is None else []
        # (index of the line in the file or None, the memory to post)
        queue = [(None, item) for item in given or []]
        queue += [(i, {"content": fact_of(line)}) for i, line in enumerate(lines)
                  if fact_of(line) and not line.lstrip().startswith("#")]  # fmt: skip
        queue = queue[:MAX_ITEMS]
        if not queue:
            return 0
        metadata = {"via": "session-end hook"}
        if isinstance(event.get("session_id"), str):
            metadata["session_id"] = event["session_id"]
        answered: set[int] = set()
        counts = {"created": 0, "merged": 0, "duplicate": 0, "rejected": 0, "kept": 0}
        reasons: list[str] = []
        unreachable = False
        for index, item in queue:
            if unreachable:  # one timeout is enough: the rest waits for the next session
                counts["kept"] += 1
                continue
            body = {"project": project, **item, "metadata": {**metadata, **(item.get("metadata") or {})}}
            try:
                status, answer = post(base, token, body, timeout)
            except (urllib.error.URLError, OSError) as exc:
                unreachable = True
                counts["kept"] += 1
                reasons.append(f"MemoryHub unreachable ({exc.__class__.__name__})")
                continue
            outcome = answer.get("outcome")
            if status in (200, 201, 422) and outcome in counts:
                counts[outcome] += 1
                if outcome == "rejected":
                    reasons.append(f"rejected {item['content'][:40]!r}: {answer.get('reason', '')}")
                if index is not None:
                    answered.add(index)
            else:
                # A refusal of the whole request (bad token, wrong project, bad field) is not the fact's fault.
                counts["kept"] += 1
                message = (answer.get("error") or {}).get("message", "") if isinstance(answer, dict) else ""
                reasons.append(f"HTTP {status}: {message}")
        if answered:
            rewrite(path, [line for i, line in enumerate(lines) if i not in answered])
        summary = ", ".join(f"{n} {k}" for k, n in counts.items() if n)
        note(summary + (f" ({'; '.join(dict.fromkeys(reasons))})" if reasons else ""))
    except Exception as exc:  # noqa: BLE001 - fail open: the session must end whatever happens here
        note(f"skipped: {exc.__class__.__name__}: {exc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
