"""Bookkeeping off the request: a search's reinforcement and the usage record of an agent call, written by one
background thread of the server after the answer has gone, many requests' worth in one transaction.

Why: every agent search wrote twice before it answered (the results' use counts, the usage record), and each
write queues for the process's single writer slot behind whatever a memory write holds it for (the gate's
duplicate check runs inside its transaction). Under eight agents writing and searching at once, a quarter of a
search's time went to that queue. Nothing in a search's answer depends on these writes.

What it costs: the counts land a moment later (usually milliseconds), and a process killed outright (SIGKILL,
an out-of-memory kill) loses what was still queued: the last moments' use counts and usage records, as a power
cut already could under bookkeeping_write's synchronous=NORMAL; never a memory. `serve` stops the thread on
SIGTERM/SIGINT after writing everything queued.

Off unless `start()` was called (only `serve` calls it): commands, tests and the MCP server write their
bookkeeping inline, as before, inside whatever transaction they are in.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from typing import Literal

from django.db import close_old_connections, connection
from django.utils import timezone

from memoryhub.memories import priority
from memoryhub.memories.secrets import redact_label
from memoryhub.memories.store import bookkeeping_write, reinforce
from memoryhub.models import UsageRecord

logger = logging.getLogger(__name__)

Work = Callable[[], None]
_BATCH = 200  # queued items written per transaction at most

_queue: queue.Queue[Work | None] = queue.Queue()
_thread: threading.Thread | None = None
_lock = threading.Lock()


def later(work: Work) -> None:
    """Run `work` (a few bookkeeping writes) inside bookkeeping_write(): on the background thread when the server
    started it, otherwise now."""
    if _thread is None:
        with bookkeeping_write():
            work()
        return
    _queue.put(work)


def reinforce_later(memory_ids: list[int]) -> None:
    """`store.reinforce` as bookkeeping: the use is dated now, whenever it is written."""
    if memory_ids:
        now = timezone.now()
        later(lambda: reinforce(memory_ids=list(memory_ids), now=now))


# What the overview counts: the API's writes, searches and recalls, one memory tool call, one chat proxy request.
UsageKind = Literal["write", "search", "recall", "tool", "proxy"]


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


def _run_batch(batch: list[Work]) -> None:
    try:
        with bookkeeping_write():
            for work in batch:
                work()
        return
    except Exception:  # noqa: BLE001 - one bad item must not lose the others: write them one by one
        logger.warning("a batch of bookkeeping writes failed; retrying them one at a time", exc_info=True)
    for work in batch:
        try:
            with bookkeeping_write():
                work()
        except Exception:  # noqa: BLE001 - bookkeeping never takes the server down
            logger.exception("a bookkeeping write failed and was dropped")


def _drain(limit: int) -> list[Work | None]:
    out: list[Work | None] = []
    while len(out) < limit:
        try:
            out.append(_queue.get_nowait())
        except queue.Empty:
            break
    return out


def _worker() -> None:
    stopping = False
    while not stopping:
        taken = [_queue.get()]
        taken += _drain(_BATCH + 1 - len(taken))
        batch = [work for work in taken if work is not None]
        stopping = len(batch) < len(taken)
        if batch:
            priority.yield_to_searches()  # the counts can wait a moment longer; queued items join this batch
            taken += _drain(_BATCH + 1 - len(taken))
            batch = [work for work in taken if work is not None]
            stopping = len(batch) < len(taken)
            close_old_connections()  # as a request would: a connection past its age or gone bad is replaced
            _run_batch(batch)
        for _ in taken:
            _queue.task_done()
    connection.close()


def start() -> None:
    """From now on, `later` queues its work for the background thread (idempotent)."""
    global _thread
    with _lock:
        if _thread is None:
            _thread = threading.Thread(target=_worker, name="memoryhub-bookkeeping", daemon=True)
            _thread.start()


def flush() -> None:
    """Wait until everything queued so far is written (tests, shutdown)."""
    if _thread is not None:
        _queue.join()


def stop() -> None:
    """Write what is queued, then end the thread; `later` writes inline again."""
    global _thread
    with _lock:
        thread, _thread = _thread, None
    if thread is not None:
        _queue.put(None)
        thread.join()
    # Work queued by a request that saw the thread still running, after the thread took its last batch.
    rest: list[Work] = []
    while True:
        try:
            work = _queue.get_nowait()
        except queue.Empty:
            break
        _queue.task_done()
        if work is not None:
            rest.append(work)
    if rest:
        _run_batch(rest)
