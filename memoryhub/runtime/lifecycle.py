"""Start and stop: what `serve` calls around serving, and tests after using the runtime's threads."""

from __future__ import annotations

from memoryhub.runtime.background import start_thread, stop_thread
from memoryhub.runtime.deliveries import stop_deliveries
from memoryhub.runtime.threads import stop_pools


def start() -> None:
    """From now on, work after the response runs on its background thread (idempotent). The pools and the write
    lane start on first use."""
    start_thread()


def stop() -> None:
    """Run the queued work after the response, then end every thread the runtime started; the next use of a pool
    starts it again, and work after the response runs inline until `start()`."""
    stop_deliveries()
    stop_thread()
    stop_pools()
