"""An import judges its texts (held for a person's review or not) while the write lane embeds them, and only the
items judged so are read back to be held: the same memories are held as when each stored row was judged after."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from django.db import connection

from memoryhub import runtime
from memoryhub.embeddings import get_embedder, write_lane
from memoryhub.memories import holds, store
from memoryhub.memories.holds import UNTRUSTED_REASON, hold_reason, judge_imported
from memoryhub.memories.secrets import WriteRefused
from memoryhub.models import Memory, MemoryEvent, Status
from memoryhub.storage import sql
from memoryhub.writes import exports
from memoryhub.writes.exports import import_items
from tests.test_it_holds_planted_instructions import FORCEFUL, PLANTED_WRITES

pytestmark = pytest.mark.django_db(transaction=True)

FACT = "The licence of the vendored chart library is MIT."


def _statuses(ids: list[int]) -> list[str]:
    by_id = {m.pk: m.status for m in Memory.objects.filter(pk__in=ids)}
    return [by_id[i] for i in ids]


def test_a_planted_item_is_held_and_an_archived_one_or_a_plain_fact_is_not():
    items = [
        {"content": PLANTED_WRITES[2], "project": "web"},
        {"content": PLANTED_WRITES[2] + " Again.", "project": "web", "status": "archived"},
        {"content": FORCEFUL[0], "project": "web"},
        {"content": FACT, "project": "web"},
    ]
    ids = import_items(items=items, source="coder", actor="coder", keep_source=False, judge_text=True)
    assert _statuses(ids) == [Status.QUARANTINED, Status.ARCHIVED, Status.ACTIVE, Status.ACTIVE]
    held = Memory.objects.get(pk=ids[0])
    assert held.held_reason == hold_reason(PLANTED_WRITES[2])
    assert MemoryEvent.objects.filter(memory_id=held.pk, action="held", actor="coder").exists()


def test_an_untrusted_tokens_active_items_are_all_held_and_a_restore_judges_no_text():
    items = [{"content": FACT, "project": "web"}, {"content": PLANTED_WRITES[2], "project": "web"}]
    untrusted = import_items(items=items, source="scraper", actor="scraper", trusted=False, judge_text=True)
    assert _statuses(untrusted) == [Status.QUARANTINED, Status.QUARANTINED]
    assert UNTRUSTED_REASON in Memory.objects.get(pk=untrusted[0]).held_reason
    restored = import_items(items=items, source="backup", actor="backup", judge_text=False)
    assert _statuses(restored) == [Status.ACTIVE, Status.ACTIVE]
    assert [item.reason() for item in judge_imported([FACT, PLANTED_WRITES[2]], trusted=True, judge_text=False)] == [
        None,
        None,
    ]


def test_the_texts_are_judged_while_the_write_lane_still_embeds_them(monkeypatch):
    assert write_lane.uses_lane(get_embedder())  # the bundled model: an import's texts wait for the lane
    busy, release, judged = threading.Event(), threading.Event(), threading.Event()
    lane_busy_when_judged = []

    def judge(texts, **kwargs):
        lane_busy_when_judged.append(not release.is_set())
        judged.set()
        return holds.judge_imported(texts, **kwargs)

    monkeypatch.setattr(exports, "judge_imported", judge)

    def hold_the_lane() -> None:
        busy.set()
        release.wait(timeout=120)

    runtime.start()
    try:
        held = threading.Thread(target=lambda: runtime.on_write_lane(hold_the_lane), daemon=True)
        held.start()
        assert busy.wait(timeout=60)
        done: list[list[int]] = []

        def run_import() -> None:
            try:
                done.append(import_items(items=[{"content": FACT, "project": "web"}], source="c", judge_text=True))
            finally:
                connection.close()

        importer = threading.Thread(target=run_import, daemon=True)
        importer.start()
        # The lane is still busy (this import's texts wait behind the held work), yet the texts are judged.
        assert judged.wait(timeout=60)
        assert lane_busy_when_judged == [True] and not done
        release.set()
        importer.join(timeout=120)
        held.join(timeout=60)
    finally:
        release.set()
        runtime.stop()
    assert len(done) == 1 and _statuses(done[0]) == [Status.ACTIVE]


def test_a_future_from_the_write_lane_is_its_result_once_the_lane_ran_it():
    runtime.start()
    try:
        future = runtime.queue_on_write_lane(lambda: threading.current_thread().name)
        assert future.result(timeout=60).startswith("memoryhub-write-embedding")
    finally:
        runtime.stop()


def _hold_the_lane():
    """Keep the write lane busy until the returned event is set: what an import queues waits behind it."""
    busy, release = threading.Event(), threading.Event()

    def hold() -> None:
        busy.set()
        release.wait(timeout=120)

    threading.Thread(target=lambda: runtime.on_write_lane(hold), daemon=True).start()
    assert busy.wait(timeout=60)
    return release


def _noting_starts(monkeypatch) -> tuple[list[int], list[tuple[int, object]]]:
    """Count the items checked, and note each chunk handed to the lane: (items checked by then, its future)."""
    checked: list[int] = []
    started: list[tuple[int, object]] = []
    check, start = store.clean_import_item, store.start_embedding_for_storage

    def counting(item, **kwargs):
        checked.append(1)
        return check(item, **kwargs)

    def noting(texts):
        future = start(texts)
        started.append((len(checked), len(texts), future))
        return future

    monkeypatch.setattr(store, "clean_import_item", counting)
    monkeypatch.setattr(store, "start_embedding_for_storage", noting)
    return checked, started


def test_the_lane_starts_on_the_first_items_while_the_rest_are_still_checked(monkeypatch):
    checked, started = _noting_starts(monkeypatch)
    items = [{"content": f"Tomato bed {n} is watered at {n} o'clock", "project": "web"} for n in range(100)]
    first = store.IMPORT_FIRST_CHUNK
    picked = [0, first, 99]
    texts = [FACT, "Deploys go out on Tuesdays after the standup.", "Ana prefers tea."]
    for at, text in zip(picked, texts, strict=True):
        items[at]["content"] = text
    runtime.start()
    try:
        ids = import_items(items=items, source="c", judge_text=True)
    finally:
        runtime.stop()
    assert [(at, size) for at, size, _ in started] == [(first, first), (100, 100 - first)]
    assert len(ids) == 100 and _statuses(ids) == [Status.ACTIVE] * 100
    assert [m.content for m in Memory.objects.filter(pk__in=ids).order_by("pk")] == [i["content"] for i in items]
    # Every row has its own text's vector, in input order across the chunks: each of these three rows' stored
    # vector is nearest to its own text's embedding.
    stored = sql.read_vectors([ids[at] for at in picked], get_embedder().dimensions)
    expected = get_embedder().embed([items[at]["content"] for at in picked])
    for own, at in enumerate(picked):
        assert int(np.argmax(expected @ stored[ids[at]])) == own


def test_an_import_refused_midway_drops_what_the_lane_has_not_started_and_writes_nothing(monkeypatch):
    _, started = _noting_starts(monkeypatch)
    items = [{"content": f"Tomato bed {n} is watered at {n} o'clock", "project": "web"} for n in range(100)]
    items[80]["content"] = "The deploy key is AKIAIOSFODNN7EXAMPLE for the bucket"
    runtime.start()
    release = _hold_the_lane()
    try:
        with pytest.raises(WriteRefused) as refused:
            import_items(items=items, source="c", judge_text=True)
        # The first chunk passed and was queued; the refusal cancelled it before the lane reached it.
        assert [(at, size) for at, size, _ in started] == [(store.IMPORT_FIRST_CHUNK, store.IMPORT_FIRST_CHUNK)]
        assert started[0][2].cancelled()
    finally:
        release.set()
        runtime.stop()
    assert "memories.80.content" in refused.value.message_dict
    assert not Memory.objects.exists() and not MemoryEvent.objects.exists()


def test_the_planted_head_reads_an_imported_text_as_it_reads_a_write():
    from tests.test_it_holds_planted_text_by_its_meaning import PLANTED, SPOKEN_TO_AGENTS

    items = [{"content": text, "project": "web"} for text in (PLANTED, SPOKEN_TO_AGENTS, FACT)]
    ids = import_items(items=items, source="coder", actor="coder", keep_source=False, judge_text=True)
    # The rules let the first in and hold the second for naming the agents; read with its vector, each is judged
    # as a single write of it is: the first waits for a person, the second (a team's rule) is kept.
    assert _statuses(ids) == [Status.QUARANTINED, Status.ACTIVE, Status.ACTIVE]
    vector = get_embedder().embed([PLANTED])[0]
    assert Memory.objects.get(pk=ids[0]).held_reason == hold_reason(
        PLANTED, vector=vector, model_id=get_embedder().model_id
    )
