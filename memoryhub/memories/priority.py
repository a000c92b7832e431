"""Searches first: a write about to spend CPU waits, a bounded moment, until no search of its process is running.

Why: with the bundled model, writes already go through the gate one at a time (gate._write_turn) and embed at a
lower OS priority (embeddings/write_lane.py), but the one write in its turn still runs Python (the gate's checks,
the duplicate search, the insert) under the interpreter lock that every search of the process needs. A search
that arrives meanwhile waits for it. Agents wait for a search's answer before they go on; a write is usually
sent and forgotten. So the write steps aside: before each of its heavy steps it waits until no search is
running, for at most MEMORYHUB_WRITE_YIELD_MS, so writes are delayed, never starved.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings

_searches = 0
_changed = threading.Condition()


@contextmanager
def searching() -> Iterator[None]:
    """Around a search: writes in this process step aside until it is done (see yield_to_searches)."""
    global _searches
    with _changed:
        _searches += 1
    try:
        yield
    finally:
        with _changed:
            _searches -= 1
            if not _searches:
                _changed.notify_all()


def yield_to_searches() -> None:
    """Wait until no search is running in this process, or MEMORYHUB_WRITE_YIELD_MS have passed."""
    limit = settings.MEMORYHUB_WRITE_YIELD_MS / 1000.0
    if limit <= 0:
        return
    deadline = time.monotonic() + limit
    with _changed:
        while _searches:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            _changed.wait(left)


def running() -> int:
    """How many searches are running in this process now."""
    return _searches
