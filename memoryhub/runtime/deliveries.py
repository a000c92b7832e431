"""The webhook delivery thread: `serve` starts it in each serving process with the domain's pass
(`start_deliveries(operations.deliveries.deliver_due)`), and `runtime.stop()` ends it.

One process delivers at a time: under `serve --workers N` each worker starts the thread, but only the one that holds
a `flock` on a file named for the store passes over the hooks; the others wait to take over if it dies (the kernel
drops the lock of a process that is gone). One sender keeps each hook's events in order. The thread sleeps a second
between passes, less when a pass left more waiting, so a change reaches its receivers within a second or two; it
never runs on a write's path: a write only commits its history event, which is the outbox.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import tempfile
import threading
from collections.abc import Callable

from django.conf import settings
from django.db import close_old_connections, connection

logger = logging.getLogger(__name__)

PAUSE_S = 1.0  # between passes that found nothing more to send

_thread: threading.Thread | None = None
_stop = threading.Event()
_lock = threading.Lock()


def _lock_path() -> str:
    database = settings.DATABASES["default"]
    where = f"{database.get('HOST', '')}:{database.get('PORT', '')}/{database.get('NAME', '')}"
    name = hashlib.sha256(where.encode()).hexdigest()[:16]
    return os.path.join(tempfile.gettempdir(), f"memoryhub-webhooks-{name}.lock")


def _take_turn(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _loop(delivery_pass: Callable[[], bool]) -> None:
    fd = os.open(_lock_path(), os.O_RDWR | os.O_CREAT, 0o600)
    holding = False
    try:
        while not _stop.is_set():
            more = False
            holding = holding or _take_turn(fd)
            if holding:
                close_old_connections()
                try:
                    more = delivery_pass()
                except Exception:  # noqa: BLE001 - a bad pass is logged; the next one tries again
                    logger.exception("a webhook delivery pass failed")
            _stop.wait(0.05 if more else PAUSE_S)
    finally:
        os.close(fd)  # the flock goes with the descriptor
        connection.close()


def start_deliveries(delivery_pass: Callable[[], bool]) -> None:
    """Start the delivery thread of this process (idempotent): it runs `delivery_pass` (sends what is due, True when
    more is waiting) again and again while this process holds the sender's turn."""
    global _thread
    with _lock:
        if _thread is not None:
            return
        _stop.clear()
        _thread = threading.Thread(target=_loop, args=(delivery_pass,), name="memoryhub-webhooks", daemon=True)
        _thread.start()


def stop_deliveries() -> None:
    """End the thread after the delivery in flight (at most one receiver's timeout)."""
    global _thread
    with _lock:
        thread, _thread = _thread, None
    if thread is not None:
        _stop.set()
        thread.join(timeout=settings.MEMORYHUB_WEBHOOK_TIMEOUT_S + 5)
