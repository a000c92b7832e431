"""The process's locks and its two thread pools: the write lane and the query embedding pool."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from django.conf import settings

logger = logging.getLogger(__name__)
T = TypeVar("T")

# Every lock of the process by name: the domain asks for one (`lock`) instead of creating its own.
LOCKS: dict[str, threading.Lock] = {}
_pools_lock = threading.Lock()
_write_lane: ThreadPoolExecutor | None = None
_query_pool: ThreadPoolExecutor | None = None

# As many query embedding threads as the server has request threads (8 by default): with a remote embedding
# provider each query waits on the network, and a smaller pool would queue one request's search behind another's
# embedding.
QUERY_THREADS = 8


def lock(name: str) -> threading.Lock:
    """The lock called `name` (made on first ask): one per module-level state, created at import."""
    with _pools_lock:
        return LOCKS.setdefault(name, threading.Lock())


def _lower_priority() -> None:
    """Runs once on the write lane's thread: Linux gives each thread its own nice value, and threads it starts (the
    onnxruntime session's) inherit it."""
    nice = int(settings.MEMORYHUB_WRITE_EMBED_NICE)
    if nice <= 0 or not hasattr(os, "setpriority"):
        return
    me = threading.get_native_id()
    try:
        # Relative to the thread that started the lane, so a server already run under `nice` stays below it too.
        os.setpriority(os.PRIO_PROCESS, me, min(19, os.getpriority(os.PRIO_PROCESS, me) + nice))
    except OSError as exc:  # not Linux, or a sandbox that forbids it: the lane still serialises
        logger.info("the write lane runs at normal priority: %s", exc)


def on_write_lane(work: Callable[[], T]) -> T:
    """Run `work` (an embedding of texts about to be stored) on the write lane and wait for it: one at a time, in the
    order they came, MEMORYHUB_WRITE_EMBED_NICE steps of `nice` below the server, so a search's embedding gets the
    CPU first (see embeddings/write_lane.py for what runs there)."""
    return queue_on_write_lane(work).result()


def queue_on_write_lane(work: Callable[[], T]) -> Future[T]:
    """`on_write_lane` without the wait: the caller goes on (an import judges its texts while the lane embeds
    them) and asks the future when it needs the result."""
    global _write_lane
    with _pools_lock:
        if _write_lane is None:
            _write_lane = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memoryhub-write-embedding",
                                             initializer=_lower_priority)  # fmt: skip
        lane = _write_lane
    return lane.submit(work)


def alongside(work: Callable[..., T], *args: Any) -> Future[T]:
    """Start `work(*args)` on the query embedding pool; the caller goes on and asks the future later. ONNX and SQLite
    both release the interpreter lock, so a search's embedding runs while its keyword side reads the store."""
    global _query_pool
    with _pools_lock:
        if _query_pool is None:
            _query_pool = ThreadPoolExecutor(max_workers=QUERY_THREADS, thread_name_prefix="memoryhub-query-embedding")
        pool = _query_pool
    return pool.submit(work, *args)


def stop_pools() -> None:
    """Finish what the pools hold and end their threads; the next use starts them again."""
    global _write_lane, _query_pool
    with _pools_lock:
        pools, _write_lane, _query_pool = (_write_lane, _query_pool), None, None
    for pool in pools:
        if pool is not None:
            pool.shutdown(wait=True)
