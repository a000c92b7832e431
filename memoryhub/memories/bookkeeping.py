"""Bookkeeping off the request: a search's reinforcement and the usage record of an agent call are written after
the answer has gone (`runtime.after_response`, which says why and what it costs), many requests' worth in one
bookkeeping transaction (`store.bookkeeping_write`: no wait for the disk). Inline where the runtime was not
started (commands, tests, the MCP server).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from django.utils import timezone

from memoryhub import runtime
from memoryhub.memories.secrets import redact_label
from memoryhub.memories.store import bookkeeping_write, reinforce_uses
from memoryhub.models import UsageRecord


@dataclass(frozen=True)
class Use:
    """An agent was given these memories at this moment."""

    memory_ids: tuple[int, ...]
    at: datetime


@dataclass(frozen=True)
class Call:
    """One agent call worth counting: a UsageRecord's fields."""

    fields: dict[str, Any]


def write(items: list[Use | Call]) -> None:
    """Many requests' bookkeeping in one transaction: the uses as one UPDATE per number of times a memory was used,
    the calls in one INSERT. One statement per request made the background thread, which shares the interpreter with
    the next searches, as busy as a third of the searches themselves."""
    with bookkeeping_write():
        uses = [item for item in items if isinstance(item, Use)]
        if uses:
            counts = Counter(mid for use in uses for mid in use.memory_ids)
            reinforce_uses(uses=counts, now=max(use.at for use in uses))
        calls = [UsageRecord(**item.fields) for item in items if isinstance(item, Call)]
        if calls:
            UsageRecord.objects.bulk_create(calls)


def reinforce_later(memory_ids: list[int]) -> None:
    """`store.reinforce` as bookkeeping after the response: the use is dated now, whenever it is written."""
    if memory_ids:
        runtime.after_response(Use(tuple(memory_ids), timezone.now()), write=write)


# What the overview counts: the API's writes, searches and recalls, one memory tool call, one chat proxy request.
UsageKind = Literal["write", "search", "recall", "tool", "proxy", "refresh"]


def record_usage(
    *,
    agent: str,
    kind: UsageKind,
    project: str | None,
    latency_ms: float,
    recall_chars: int = 0,
    tool_calls: int = 0,
    prompt_tokens: int = 0,
    completion_tokens: int = 0,
) -> None:
    """One UsageRecord for an agent's call, dated now and written after the answer; the latency is measured by the
    caller. A project that held a secret (a refused write sent one as a project) is kept redacted."""
    fields = {
        "agent": agent, "kind": kind, "project": redact_label(project) if project else None,
        "latency_ms": latency_ms, "recall_chars": recall_chars, "tool_calls": tool_calls,
        "prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "created_at": timezone.now(),
    }  # fmt: skip
    runtime.after_response(Call(fields), write=write)
