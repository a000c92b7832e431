"""Searches first: a write about to spend CPU waits, a bounded moment, until no search is running.

Why: with the bundled model, writes already go through the gate one at a time (gate._write_turn) and embed at a
lower OS priority (embeddings/write_lane.py), but the one write in its turn still runs Python (the gate's checks,
the duplicate search, the insert) under the interpreter lock that every search of the process needs. A search
that arrives meanwhile waits for it. Agents wait for a search's answer before they go on; a write is usually
sent and forgotten. So the write steps aside: before each of its heavy steps it waits until no search is
running, for at most MEMORYHUB_WRITE_YIELD_MS, so writes are delayed, never starved. The searches counted are
those of the server process, or of all its workers under `serve --workers`.
"""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings

_lock = threading.Lock()
_changed = threading.Condition(_lock)
_mine = 0  # searches running in this process
# `serve --workers`: one slot per worker in shared memory, this process's own count in its slot. Only its own
# process writes a slot (under _lock), and the parent zeroes the slot of a worker that died mid-search.
_slots: Any = None
_slot = 0


def share_between_processes(workers: int) -> None:
    """`serve --workers`, before the fork: each worker then counts the searches of all of them (a write in one
    process steps aside for a search in another as well: they share the cores)."""
    global _slots
    _slots = multiprocessing.get_context("fork").Array("i", workers, lock=False)


def worker_started(index: int) -> None:
    """In a worker, after the fork: its slot."""
    global _slot
    _slot = index
    _slots[index] = 0


def worker_died(index: int) -> None:
    """In the parent: forget the searches a dead worker was running."""
    if _slots is not None:
        _slots[index] = 0


def _running() -> int:
    return _mine if _slots is None else sum(_slots)


@contextmanager
def searching() -> Iterator[None]:
    """Around a search: writes step aside until it is done (see yield_to_searches)."""
    global _mine
    with _lock:
        _mine += 1
        if _slots is not None:
            _slots[_slot] = _mine
    try:
        yield
    finally:
        with _lock:
            _mine -= 1
            if _slots is not None:
                _slots[_slot] = _mine
            if not _mine:
                _changed.notify_all()


def yield_to_searches() -> None:
    """Wait until no search is running, or MEMORYHUB_WRITE_YIELD_MS have passed."""
    limit = settings.MEMORYHUB_WRITE_YIELD_MS / 1000.0
    if limit <= 0:
        return
    deadline = time.monotonic() + limit
    with _changed:
        while _running():
            left = deadline - time.monotonic()
            if left <= 0:
                return
            # Another worker's search ending wakes nothing here: look again every few milliseconds.
            _changed.wait(left if _slots is None else min(left, 0.002))
