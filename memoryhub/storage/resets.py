"""Per-process caches that must be dropped when the store under them is replaced (a restore in place).

Caches register a reset function here; whoever replaces the store calls `forget_store_caches`. This keeps the
dependency one way: backup knows nothing of search or the vector copy, which know nothing of backup.
"""

from __future__ import annotations

from collections.abc import Callable

_resets: list[Callable[[], None]] = []


def on_store_replaced(reset: Callable[[], None]) -> Callable[[], None]:
    """Register `reset` (usable as a decorator); it runs each time the store is replaced."""
    if reset not in _resets:
        _resets.append(reset)
    return reset


def forget_store_caches() -> None:
    for reset in list(_resets):
        reset()
