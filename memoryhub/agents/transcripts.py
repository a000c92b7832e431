"""Claude Code session transcripts read as conversation turns.

A transcript is JSON lines, one event per line. Events of `type` "user" and "assistant" carry a `message` whose
`content` is text or a list of blocks; only the `text` blocks are what was said. Tool calls, tool results,
thinking, meta events (`isMeta`) and the text Claude Code injects itself (slash-command echoes, system reminders)
are left out: they are what was done or shown, not what was learned. A line that is not JSON is skipped, so a
transcript cut mid-line by a crash still reads.

Standard library only: the session-end hook loads this module from the checkout, outside Django.
"""

from __future__ import annotations

import json
import re
from typing import Any

# Text Claude Code writes into user turns itself; none of it was said by the person.
_INJECTED = re.compile(
    r"^\s*<(?:command-name|command-message|command-args|local-command-stdout|local-command-stderr|"
    r"system-reminder|user-prompt-submit-hook|bash-input|bash-stdout|bash-stderr)>"
)
_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.DOTALL)


def text_of(content: Any) -> str:
    """The said text of a message's content: a string, or the `text` blocks of a block list."""
    if isinstance(content, str):
        parts = [content]
    elif isinstance(content, list):
        parts = [b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text" and
                 isinstance(b.get("text"), str)]  # fmt: skip
    else:
        return ""
    kept = [_REMINDER.sub("", p).strip() for p in parts]
    return "\n\n".join(p for p in kept if p and not _INJECTED.match(p))


def turn_of(event: Any) -> dict[str, str] | None:
    """{"role", "text"} for a user or assistant event with said text, else None."""
    if not isinstance(event, dict) or event.get("type") not in ("user", "assistant") or event.get("isMeta"):
        return None
    message = event.get("message")
    if not isinstance(message, dict):
        return None
    text = text_of(message.get("content"))
    if not text:
        return None
    return {"role": event["type"], "text": text}


def read_turns(path: str, *, start_line: int = 0, max_chars: int = 60_000) -> tuple[list[dict[str, str]], int]:
    """The turns from line `start_line` on, and how many lines the file has. Only the last `max_chars` characters
    of text are kept (the end of a session is where its conclusions are)."""
    turns: list[dict[str, str]] = []
    lines = 0
    with open(path, encoding="utf-8", errors="replace") as handle:
        for lines, line in enumerate(handle, 1):  # noqa: B007 - the count is the result
            if lines <= start_line or not line.strip():
                continue
            try:
                event = json.loads(line)
            except ValueError:
                continue
            turn = turn_of(event)
            if turn is not None:
                turns.append(turn)
    return bound_turns(turns, max_chars), lines


def bound_turns(turns: list[dict[str, str]], max_chars: int) -> list[dict[str, str]]:
    """The last turns that fit in `max_chars`; the oldest one kept is cut at its start if it must be."""
    kept: list[dict[str, str]] = []
    room = max_chars
    for turn in reversed(turns):
        if room <= 0:
            break
        text = turn["text"] if len(turn["text"]) <= room else turn["text"][-room:]
        kept.append({"role": turn["role"], "text": text})
        room -= len(text)
    return kept[::-1]
