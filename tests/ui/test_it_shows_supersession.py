"""The dashboard and knowledge updates: a superseded memory shows what replaced it and restores in one action,
the conflict queue offers its three answers, and superseded memories are counted apart from archived ones."""

from __future__ import annotations

import pytest

from memoryhub.memories.supersession import queue_conflict
from memoryhub.models import Memory, Proposal, Status
from memoryhub.writes.gate import gate_write
from tests.ui.conftest import HX, remember

OLD = "The shopfront API listens on port 8000."
NEW = "The shopfront API now listens on port 9000 since the reverse-proxy change."


@pytest.fixture
def chain(db) -> tuple[Memory, Memory]:
    old = gate_write(content=OLD, project="shop").memory
    new = gate_write(content=NEW, project="shop").memory
    old.refresh_from_db()
    assert old.status == Status.SUPERSEDED
    return old, new


def test_a_superseded_memory_shows_its_successor_and_a_restore(ui, chain):
    old, new = chain
    html = ui.get(f"/memories/{old.pk}/").content.decode()
    assert f'id="superseded-{old.pk}"' in html
    assert f'superseded by <a href="/memories/{new.pk}/">#{new.pk}</a>' in html
    assert f'action="/memories/{old.pk}/restore/"' in html
    successor = ui.get(f"/memories/{new.pk}/").content.decode()
    assert f'<dt>Supersedes</dt><dd><a href="/memories/{old.pk}/">#{old.pk}</a></dd>' in successor


def test_the_list_filters_superseded_memories_and_chips_them(ui, chain):
    old, new = chain
    html = ui.get("/", {"status": "superseded"}).content.decode()
    assert f'id="memory-{old.pk}"' in html and f'id="memory-{new.pk}"' not in html
    assert f'superseded by <a href="/memories/{new.pk}/">#{new.pk}</a>' in html


def test_restoring_from_the_dashboard_undoes_the_link_on_both_sides(ui, chain):
    old, new = chain
    response = ui.post(f"/memories/{old.pk}/restore/", {"next": f"/memories/{old.pk}/"})
    assert response.status_code in (200, 302)
    old.refresh_from_db()
    assert (old.status, old.superseded_by_id) == (Status.ACTIVE, None)
    assert not Memory.objects.filter(superseded_by=new).exists()


def test_superseded_memories_are_counted_apart_from_archived(ui, chain):
    from memoryhub.memories.lifecycle import archive

    archive(memory_ids=[remember("Archived for the count, on its own", project="shop").pk], actor="test")
    html = ui.get("/counters/", **HX).content.decode()
    assert '<strong data-counter="superseded">1</strong> superseded' in html
    assert '<strong data-counter="archived">1</strong> archived' in html


def test_the_conflict_queue_offers_three_answers_and_each_is_one_post(ui, db):
    older = remember("The bastion host is bastion-1.", project="shop")
    newer = remember("The bastion host is bastion-3.", project="shop")
    proposal = queue_conflict(older=older, newer=newer, reason="test")
    html = ui.get("/proposals/").content.decode()
    card = html[html.index(f'id="proposal-{proposal.pk}"') :]
    assert "Which is current?" in card
    for choice in ("newer", "both", "older"):
        assert f'name="choice" value="{choice}" data-shortcut="{choice}"' in card
    response = ui.post(f"/proposals/{proposal.pk}/accept/", {"choice": "older"}, **HX)
    assert response.status_code == 200
    assert "Decided: keep the older." in response.content.decode()
    newer.refresh_from_db()
    assert (newer.status, newer.superseded_by_id) == (Status.SUPERSEDED, older.pk)
    assert Proposal.objects.get(pk=proposal.pk).choice == "older"


def test_the_decay_page_counts_superseded_memories_apart(ui, chain):
    html = ui.get("/decay/").content.decode()
    assert 'id="superseded-apart"' in html and ">1 superseded</a>" in html


def test_a_bulk_restore_brings_back_a_superseded_memory(ui, chain):
    old, new = chain
    response = ui.post("/memories/bulk/", {"selected": [old.pk], "action": "restore"})
    assert response.status_code in (200, 302)
    old.refresh_from_db()
    assert (old.status, old.superseded_by_id) == (Status.ACTIVE, None)
