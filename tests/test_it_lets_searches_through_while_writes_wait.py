"""Searches before writes: while a write waits for its turn at the gate, or the write lane is busy embedding,
a search still runs to the end; a write steps aside while a search runs, for a bounded moment; writes embed on a
thread of lower priority, with the same vectors."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest
from django.db import connection

from memoryhub import runtime
from memoryhub.embeddings import get_embedder, write_lane
from memoryhub.memories.store import import_memories
from memoryhub.models import Memory
from memoryhub.retrieval.search import MemoryFilter, search_memories
from memoryhub.writes import gate

pytestmark = pytest.mark.django_db(transaction=True)

FACTS = [
    "The billing webhook retries failed calls twice",
    "The staging cluster is rebuilt on Sundays",
    "The search index is owned by the platform team",
]


class Background(threading.Thread):
    """`work` on a thread of its own (its own database connection); `result` once it is done."""

    def __init__(self, work):
        super().__init__(daemon=True)
        self.work, self.result, self.error = work, None, None

    def run(self) -> None:
        try:
            self.result = self.work()
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            self.error = exc
        finally:
            connection.close()


def test_a_search_answers_while_a_write_waits_for_its_turn_at_the_gate():
    import_memories(items=[{"content": text, "project": "p"} for text in FACTS], source="test")
    assert write_lane.uses_lane(get_embedder())  # the bundled model: writes take turns
    with runtime.write_turn(exclusive=True):  # another write holds the turn
        write = Background(lambda: gate.gate_write(content="The mobile release ships on Thursdays", project="p"))
        write.start()
        hits = search_memories(query="when is the staging cluster rebuilt", within=MemoryFilter(visible_from="p"))
        assert [h.memory.content for h in hits][:1] == [FACTS[1]]
        assert write.is_alive()  # still waiting for its turn
    write.join(timeout=120)
    assert write.error is None and write.result.outcome == "created"


def test_a_search_embeds_while_the_write_lane_is_busy_and_writes_queue_behind_it():
    busy, release = threading.Event(), threading.Event()

    def hold_the_lane() -> None:
        busy.set()
        release.wait(timeout=120)

    held = Background(lambda: runtime.on_write_lane(hold_the_lane))
    held.start()
    try:
        assert busy.wait(timeout=60)
        text = "The nightly export is compressed before upload"
        queued = Background(lambda: write_lane.embed_for_storage([text]))
        queued.start()
        query_vector = get_embedder().embed(["how is the nightly export stored"])  # not through the lane
        assert query_vector.shape == (1, get_embedder().dimensions)
        assert queued.is_alive() and queued.result is None  # waits for the lane
    finally:
        release.set()
    held.join(timeout=60)
    queued.join(timeout=120)
    assert queued.error is None
    # The lane's own copy of the model gives the vectors the shared one gives.
    np.testing.assert_allclose(queued.result, get_embedder().embed([text]), atol=1e-5)


@pytest.mark.skipif(not hasattr(os, "setpriority"), reason="per-thread priority is a Linux feature")
def test_the_write_lane_runs_at_a_lower_priority(settings):
    nice = runtime.on_write_lane(lambda: os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
    mine = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    assert nice == min(19, mine + settings.MEMORYHUB_WRITE_EMBED_NICE) > mine


def test_a_write_steps_aside_while_a_search_runs(settings):
    settings.MEMORYHUB_WRITE_YIELD_MS = 600_000  # long enough that only the search's end lets the write go on
    import_memories(items=[{"content": text, "project": "p"} for text in FACTS], source="test")
    before = Memory.objects.count()
    with runtime.searching():  # a search in flight
        write = Background(lambda: gate.gate_write(content="The login page caches avatars for a day", project="p"))
        write.start()
        hits = search_memories(
            query="who owns the search index", within=MemoryFilter(visible_from="p")
        )  # another search gets through
        assert [h.memory.content for h in hits][:1] == [FACTS[2]]
        assert write.is_alive() and Memory.objects.count() == before
    write.join(timeout=120)
    assert write.error is None and write.result.outcome == "created"


def test_a_write_waits_for_searches_only_a_bounded_moment(settings):
    settings.MEMORYHUB_WRITE_YIELD_MS = 1
    with runtime.searching():  # a search that never ends does not hold writes back
        write = Background(lambda: gate.gate_write(content="The mobile release needs two approvals", project="p"))
        write.start()
        write.join(timeout=120)
        assert write.error is None and write.result.outcome == "created"
