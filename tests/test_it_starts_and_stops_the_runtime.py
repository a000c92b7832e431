"""The runtime's start and stop: work after the response runs inline until `start()`, on one background thread after
it, and all of it before `stop()` returns; `stop()` ends every thread the runtime started, and the next use of a
lane starts it again."""

from __future__ import annotations

import threading
import time

from memoryhub import runtime


def _runtime_threads() -> set[str]:
    return {t.name.split("_")[0] for t in threading.enumerate() if t.name.startswith("memoryhub-")}


def test_work_after_the_response_runs_inline_until_the_runtime_starts_and_all_of_it_before_it_stops():
    written: list[list[int]] = []
    release = threading.Event()

    def write(items: list[int]) -> None:
        if 2 in items:
            release.wait(10)
        written.append(items)

    runtime.after_response(1, write=write)
    assert written == [[1]]  # not started: now, on the caller's thread
    runtime.start()
    try:
        runtime.after_response(2, write=write)
        runtime.after_response(3, write=write)
        assert written == [[1]]  # queued for the background thread
        release.set()
    finally:
        runtime.stop()
    assert [item for items in written for item in items] == [1, 2, 3]
    runtime.after_response(4, write=write)
    assert written[-1] == [4]


def test_items_queued_for_one_writer_are_written_in_one_call_and_a_failing_batch_one_by_one():
    calls: list[list[str]] = []

    def write(items: list[str]) -> None:
        calls.append(list(items))
        if "bad" in items:
            raise ValueError("a bad item")

    runtime.start()
    try:
        for item in ("a", "bad", "b"):  # queued within the moment the thread gathers for, once woken
            runtime.after_response(item, write=write)
    finally:
        runtime.stop()
    # Tried as one batch; it fails, and each is written alone (only the bad one fails again).
    assert calls == [["a", "bad", "b"], ["a"], ["bad"], ["b"]]


def test_stop_ends_every_thread_the_runtime_started_and_the_lanes_start_again_on_use():
    runtime.start()
    assert runtime.on_write_lane(lambda: threading.current_thread().name).startswith("memoryhub-write-embedding")
    assert runtime.alongside(lambda: 7).result() == 7
    assert {"memoryhub-after-response", "memoryhub-write-embedding", "memoryhub-query-embedding"} <= _runtime_threads()
    runtime.stop()
    assert _runtime_threads() == set()
    assert runtime.on_write_lane(lambda: 5) == 5
    runtime.stop()


def test_every_lock_of_the_process_is_named_in_one_place():
    import memoryhub.retrieval.search  # noqa: F401  (loads the embedder and the vector copy)

    assert {"embedder", "vector copy"} <= set(runtime.LOCKS)
    assert runtime.lock("vector copy") is runtime.LOCKS["vector copy"]


def test_stop_cuts_the_gathering_short_and_still_writes_what_was_queued(monkeypatch):
    from memoryhub.runtime import background

    monkeypatch.setattr(background, "_GATHER_SECONDS", 600.0)  # a stop that waited for it would hang the suite
    written: list[int] = []
    runtime.start()
    try:
        runtime.after_response(1, write=written.extend)
    finally:
        started = time.monotonic()
        runtime.stop()
    assert written == [1]
    assert time.monotonic() - started < 60
