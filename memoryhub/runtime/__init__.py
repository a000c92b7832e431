"""The runtime: every thread, lock, pool and process of a MemoryHub process lives here, with an explicit start and
stop, so the domain reads as plain functions. It imports nothing of the domain (only Django's settings).

What the domain calls:
- `write_turn(exclusive=...)`: a write's turn at the gate (after the searches running, one write at a time with
  the bundled model) and `yield_to_searches()` before its other heavy step; `searching()` around a search;
- `after_response(item, write=...)`: bookkeeping written after the answer, on a background thread when serving,
  many requests' items in one `write`;
- `on_write_lane(work)`: texts about to be stored embedded on the write lane (one at a time, lower CPU priority);
  `queue_on_write_lane(work)` the same without waiting (a future);
  `alongside(work, *args)`: a search's query embedded while its keyword side runs;
- `lock(name)`: the lock a module's own per-process state (the embedder, the vector copy, SQLite's writer slot)
  is built and changed under, named so every lock of the process is listed in one place (`LOCKS`).

What `serve` calls: `start()` and `stop()` around serving, `start_deliveries()` (webhooks, runtime/deliveries.py),
`serve_workers(...)` for `serve --workers N`.
"""

from memoryhub.runtime.background import after_response
from memoryhub.runtime.deliveries import start_deliveries
from memoryhub.runtime.lifecycle import start, stop
from memoryhub.runtime.threads import LOCKS, alongside, lock, on_write_lane, queue_on_write_lane
from memoryhub.runtime.turns import searching, serve_workers, write_turn, yield_to_searches

__all__ = [
    "LOCKS", "after_response", "alongside", "lock", "on_write_lane", "queue_on_write_lane", "searching",
    "serve_workers", "start", "start_deliveries", "stop", "write_turn", "yield_to_searches",
]  # fmt: skip
