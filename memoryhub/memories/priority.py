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


class _Count:
    value = 0


_count: Any = _Count()  # searches running; shared by the workers of `serve --workers` (share_between_processes)
_changed: Any = threading.Condition()


def share_between_processes() -> None:
    """`serve --workers`: called before the workers fork, so each counts the searches of all of them (a write in
    one process steps aside for a search in another as well: they share the cores)."""
    global _count, _changed
    context = multiprocessing.get_context("fork")
    _count, _changed = context.Value("i", 0, lock=False), context.Condition()


@contextmanager
def searching() -> Iterator[None]:
    """Around a search: writes step aside until it is done (see yield_to_searches)."""
    with _changed:
        _count.value += 1
    try:
        yield
    finally:
        with _changed:
            _count.value -= 1
            if not _count.value:
                _changed.notify_all()


def yield_to_searches() -> None:
    """Wait until no search is running, or MEMORYHUB_WRITE_YIELD_MS have passed."""
    limit = settings.MEMORYHUB_WRITE_YIELD_MS / 1000.0
    if limit <= 0:
        return
    deadline = time.monotonic() + limit
    with _changed:
        while _count.value:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            _changed.wait(left)
