"""Work after the response: a search's reinforcement and the usage record of an agent call, written by one
background thread of the server after the answer has gone, many requests' worth in one transaction.

Why: every agent search wrote twice before it answered (the results' use counts, the usage record), and each
write queues for the process's single writer slot behind whatever a memory write holds it for (the gate's
duplicate check runs inside its transaction). Under eight agents writing and searching at once, a quarter of a
search's time went to that queue. Nothing in a search's answer depends on these writes.

What it costs: the counts land a moment later (up to `_GATHER_SECONDS` and the write itself), and a process killed
outright (SIGKILL, an out-of-memory kill) loses what was still queued: the last moments' use counts and usage
records, as a power cut already could under a bookkeeping transaction's synchronous=NORMAL; never a memory.
`serve` stops the thread on SIGTERM/SIGINT after writing everything queued.

Off until `runtime.start()` (only `serve` calls it): commands, tests and the MCP server run the work inline, as
before, inside whatever transaction they are in.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from typing import Any

from django.db import close_old_connections, connection

from memoryhub.runtime.turns import yield_to_searches

logger = logging.getLogger(__name__)

# Writes a list of queued items, many requests' worth at once (memories/bookkeeping.py: one transaction, one
# statement per kind of item instead of one per request).
Writer = Callable[[list[Any]], None]
_BATCH = 200  # queued items written per transaction at most
# Once woken by a first item, the thread gathers for this long before writing. Two reasons. Waking a thread that
# waits on the queue is paid by the request that queues (a thread switch, then the GIL passed back and forth): while
# the thread sleeps here, queueing wakes nothing. And every commit costs every reader: a connection's next statement
# after another connection committed starts from an empty page cache and the word index reloads what it keeps of
# itself, which made the keyword statement of a search 1.0 -> 1.6 ms (a commit before each of 200 searches, one
# process, AMD EPYC). Each server thread has its own connection, so with a commit every 50 ms nearly every search
# paid it; once a second, a few in a hundred do.
_GATHER_SECONDS = 1.0

_queue: queue.Queue[tuple[Any, Writer] | None] = queue.Queue()
_thread: threading.Thread | None = None
_lock = threading.Lock()
_stopping = threading.Event()  # cuts the gathering short: a stop does not wait for it


def after_response(item: Any, *, write: Writer) -> None:
    """`write([item])`: on the background thread once the runtime started, in one call with the other items queued
    for the same `write`; otherwise now."""
    if _thread is None:
        write([item])
        return
    _queue.put((item, write))


def _run_batch(batch: list[tuple[Any, Writer]]) -> None:
    for write in dict.fromkeys(w for _, w in batch):
        items = [item for item, w in batch if w is write]
        try:
            write(items)
            continue
        except Exception:  # noqa: BLE001 - one bad item must not lose the others: write them one by one
            logger.warning("a batch of work after the response failed; retrying it one at a time", exc_info=True)
        for item in items:
            try:
                write([item])
            except Exception:  # noqa: BLE001 - bookkeeping never takes the server down
                logger.exception("work after the response failed and was dropped")


def _drain(taken: list) -> list:
    while len(taken) < _BATCH + 1:
        try:
            taken.append(_queue.get_nowait())
        except queue.Empty:
            break
    return taken


def _worker() -> None:
    stopping = False
    while not stopping:
        taken = [_queue.get()]
        if taken[0] is not None:
            _stopping.wait(_GATHER_SECONDS)
        taken = _drain(taken)
        if any(item is not None for item in taken):
            yield_to_searches()  # the counts can wait a moment longer; queued items join this batch
            taken = _drain(taken)
        batch = [item for item in taken if item is not None]
        stopping = len(batch) < len(taken)
        if batch:
            close_old_connections()  # as a request would: a connection past its age or gone bad is replaced
            _run_batch(batch)
        for _ in taken:
            _queue.task_done()
    connection.close()


def start_thread() -> None:
    global _thread
    with _lock:
        if _thread is None:
            _thread = threading.Thread(target=_worker, name="memoryhub-after-response", daemon=True)
            _thread.start()


def stop_thread() -> None:
    """Run what is queued, then end the thread; `after_response` runs work inline again."""
    global _thread
    with _lock:
        thread, _thread = _thread, None
    if thread is not None:
        _stopping.set()
        _queue.put(None)
        thread.join()
        _stopping.clear()
    # Work queued by a request that saw the thread still running, after the thread took its last batch.
    rest = []
    while True:
        try:
            item = _queue.get_nowait()
        except queue.Empty:
            break
        _queue.task_done()
        if item is not None:
            rest.append(item)
    if rest:
        _run_batch(rest)
