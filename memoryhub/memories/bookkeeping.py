"""Bookkeeping off the request: a search's reinforcement and the usage record of an agent call are written after
the answer has gone (`runtime.after_response`, which says why and what it costs), each in a bookkeeping
transaction (`store.bookkeeping_write`: no wait for the disk). Inline, as before, where the runtime was not started
(commands, tests, the MCP server).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from django.utils import timezone

from memoryhub import runtime
from memoryhub.memories.secrets import redact_label
from memoryhub.memories.store import bookkeeping_write, reinforce
from memoryhub.models import UsageRecord

Work = Callable[[], None]


def later(work: Work) -> None:
    """Run `work` (a few bookkeeping writes) inside bookkeeping_write(), after the response."""
    runtime.after_response(work, within=bookkeeping_write)


def reinforce_later(memory_ids: list[int]) -> None:
    """`store.reinforce` as bookkeeping: the use is dated now, whenever it is written."""
    if memory_ids:
        now = timezone.now()
        later(lambda: reinforce(memory_ids=list(memory_ids), now=now))


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
    """One UsageRecord for an agent's call, written after the answer (`later`); the latency is measured by the
    caller, now. A project that held a secret (a refused write sent one as a project) is kept redacted."""
    fields = {
        "agent": agent, "kind": kind, "project": redact_label(project) if project else None,
        "latency_ms": latency_ms, "recall_chars": recall_chars, "tool_calls": tool_calls,
        "prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
    }  # fmt: skip
    later(lambda: UsageRecord.objects.create(**fields))
