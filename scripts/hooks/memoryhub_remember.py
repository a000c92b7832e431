#!/usr/bin/env python3
"""Session-end hook: capture what a session learned and post it to MemoryHub, through the write gate.

Two sources, both posted with the session id in metadata:
- The transcript. Claude Code's SessionEnd and Stop events carry `transcript_path` (JSON lines). The hook reads
  the said text of the user and assistant turns (memoryhub/agents/transcripts.py) and posts them to
  POST /api/v1/capture, where the durable facts are picked out (an LLM when the server has one configured,
  otherwise rules: explicit "remember ..." requests, "we decided / always / never / the fix was ..." sentences)
  and each goes through the gate. A Stop hook runs after every turn, so the hook remembers per session how far
  it has read (MEMORYHUB_CAPTURE_STATE, default ~/.cache/memoryhub/captured.json) and sends only what is new.
  MEMORYHUB_CAPTURE=0 turns this off.
- `.memoryhub/remember.md` in the project (MEMORYHUB_REMEMBER_FILE to put it elsewhere): one fact per line that
  the agent chose to keep (`#` lines are comments, a leading "- " is dropped). Lines the gate answered leave the
  file; lines that could not be sent (server down, timeout) stay for the next session. A hook that can hand the
  facts over directly may instead put them on stdin as {"memories": ["...", {"content": "...", "tags": [...]}]}.

`--dry-run` prints on stdout what would be stored, one fact a line with the gate's expected outcome ("created",
"duplicate", "rejected" for a secret or noise, the secret redacted), and stores nothing: the file and the
capture state stay as they are.

Environment: MEMORYHUB_URL (default http://127.0.0.1:8000), MEMORYHUB_TOKEN (required), MEMORYHUB_PROJECT
(default: the token's only project when it is limited to one, else the git repository's top folder name, else
the working directory's name), MEMORYHUB_HOOK_TIMEOUT (seconds per request, default 10; capture waits up to
six times that when the server asks an LLM).

It fails open: it always exits 0, with a one-line summary or note on stderr. Standard library only, plus the
checkout's own standard-library helpers (clients/python/memoryhub_client/projects.py and
memoryhub/agents/transcripts.py).
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


def load_checkout_helpers() -> None:
    """The project rule (the client package, clients/python) and the transcript reader (shared with the server)
    live in the checkout these hooks belong to (standard library only)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for folder in (root, os.path.join(root, "clients", "python")):
        if folder not in sys.path:
            sys.path.insert(0, folder)


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


def post(base: str, token: str, body: dict, timeout: float, path: str = "memories") -> tuple[int, dict]:
    request = urllib.request.Request(
        f"{base}/api/v1/{path}",
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


STATE_ENTRIES = 200  # sessions remembered in the capture state; older ones are forgotten


def state_path() -> str:
    configured = os.environ.get("MEMORYHUB_CAPTURE_STATE", "").strip()
    if configured:
        return configured
    cache = os.environ.get("XDG_CACHE_HOME", "").strip() or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "memoryhub", "captured.json")


def read_state(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as handle:
            state = json.load(handle)
        return state if isinstance(state, dict) else {}
    except (OSError, ValueError):
        return {}


def write_state(path: str, state: dict) -> None:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    kept = dict(list(state.items())[-STATE_ENTRIES:])
    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path) or ".", prefix=".captured-", suffix=".tmp")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        json.dump(kept, out)
    os.replace(temporary, path)


def capture(event: dict, *, base: str, token: str, project, timeout: float, dry_run: bool, out: dict) -> None:
    """Post the transcript's new turns to POST /api/v1/capture; add its counts to `out`."""
    transcript = event.get("transcript_path")
    if os.environ.get("MEMORYHUB_CAPTURE", "1").strip().lower() in ("0", "false", "no", "off"):
        return
    if not isinstance(transcript, str) or not os.path.isfile(transcript):
        return
    from memoryhub.agents.transcripts import read_turns

    session = event.get("session_id") if isinstance(event.get("session_id"), str) else ""
    key = f"{session or '-'}:{os.path.abspath(transcript)}"
    state_file = state_path()
    state = read_state(state_file)
    start = state.get(key, 0) if isinstance(state.get(key), int) else 0
    turns, lines = read_turns(transcript, start_line=start)
    if not turns:
        return
    body = {"project": project, "session_id": session, "turns": turns, "dry_run": dry_run}
    status, answer = post(base, token, body, timeout * 6, path="capture")
    if status != 200:
        message = (answer.get("error") or {}).get("message", "") if isinstance(answer, dict) else ""
        out["reasons"].append(f"capture: HTTP {status}: {message}")
        return
    for item in answer.get("items") or []:
        if dry_run:
            print(f"{item.get('outcome')}: [{item.get('category') or '-'}] {item.get('content')}")
        elif item.get("outcome") in out["counts"]:
            out["counts"][item["outcome"]] += 1
            if item["outcome"] == "rejected":
                out["reasons"].append(f"rejected {str(item.get('content'))[:40]!r}: {item.get('reason', '')}")
    if not dry_run:
        # Re-inserted last, so the most recently captured sessions are the ones the state keeps.
        write_state(state_file, {k: v for k, v in state.items() if k != key} | {key: lines})


def main(argv: list[str] | None = None) -> int:
    dry_run = "--dry-run" in (sys.argv[1:] if argv is None else argv)
    try:
        token = os.environ.get("MEMORYHUB_TOKEN", "").strip()
        if not token:
            note("MEMORYHUB_TOKEN is not set; nothing posted")
            return 0
        event = read_event()
        cwd = event.get("cwd") if isinstance(event.get("cwd"), str) else os.getcwd()
        base = os.environ.get("MEMORYHUB_URL", "http://127.0.0.1:8000").rstrip("/")
        timeout = float(os.environ.get("MEMORYHUB_HOOK_TIMEOUT", "10"))
        load_checkout_helpers()
        from memoryhub_client.projects import project_from_environment

        project = project_from_environment(base_url=base, token=token, cwd=cwd, timeout=timeout)
        given = items_from(event)
        path = remember_file(cwd)
        lines = read_lines(path) if given is None else []
        # (index of the line in the file or None, the memory to post)
        queue = [(None, item) for item in given or []]
        queue += [(i, {"content": fact_of(line)}) for i, line in enumerate(lines)
                  if fact_of(line) and not line.lstrip().startswith("#")]  # fmt: skip
        queue = queue[:MAX_ITEMS]
        metadata = {"via": "session-end hook"}
        if isinstance(event.get("session_id"), str):
            metadata["session_id"] = event["session_id"]
        answered: set[int] = set()
        counts = {"created": 0, "merged": 0, "duplicate": 0, "rejected": 0, "kept": 0}
        reasons: list[str] = []
        unreachable = False
        for index, item in queue:
            if dry_run:
                print(f"would post: {item['content']}")
                continue
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
        if not unreachable:
            try:
                capture(event, base=base, token=token, project=project, timeout=timeout, dry_run=dry_run,
                        out={"counts": counts, "reasons": reasons})  # fmt: skip
            except (urllib.error.URLError, OSError) as exc:
                reasons.append(f"capture: MemoryHub unreachable ({exc.__class__.__name__})")
        summary = ", ".join(f"{n} {k}" for k, n in counts.items() if n)
        if summary or reasons:
            note((summary or "nothing stored") + (f" ({'; '.join(dict.fromkeys(reasons))})" if reasons else ""))
    except Exception as exc:  # noqa: BLE001 - fail open: the session must end whatever happens here
        note(f"skipped: {exc.__class__.__name__}: {exc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
