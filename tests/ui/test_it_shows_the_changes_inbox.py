"""The Changes inbox: after agents' writes that supersede, conflict and fold, one page lists all three with both
texts and an action each; Restore and a conflict's decision (and its Undo) work from there; filters by kind and
project; counts per kind; "new since your last visit"; and only what the person may see."""

from __future__ import annotations

import re

import pytest

from memoryhub.memories.lifecycle import run_decay_sweep
from memoryhub.models import GateLogEntry, Membership, Memory, MemoryEvent, Proposal, Status
from tests.api.conftest import make_agent, write
from tests.dashboard_fixtures import viewer_of
from tests.ui.conftest import HX

OLD = "The shopfront API listens on port 8000."
NEW = "The shopfront API now listens on port 9000 since the reverse-proxy change."
BASTION_OLD = "The bastion host is bastion-1."
BASTION_NEW = "The bastion host is bastion-3."
FOLDED = "Deploys run through GitHub Actions to Fly.io."


def items(html: str) -> list[str]:
    return re.findall(r'<article id="(change-[a-z]+-\d+)"', html)


def item_html(html: str, row_id: str) -> str:
    part = html[html.index(f'id="{row_id}"') :]
    return part[: part.index("</article>")]


@pytest.fixture
def decisions(db) -> dict:
    agent = make_agent("claude", projects=["alpha", "beta"])
    old = write(agent, OLD)["memory"]["id"]
    new = write(agent, NEW)["memory"]["id"]
    bastion_old = write(agent, BASTION_OLD)["memory"]["id"]
    body = write(agent, BASTION_NEW)
    conflict = Proposal.objects.get(pk=body["conflicts"][0])
    kept = write(agent, FOLDED)["memory"]["id"]
    assert write(agent, FOLDED)["outcome"] == "duplicate"
    fold = GateLogEntry.objects.get(decision="duplicate")
    other = write(agent, "The beta worker pool has four workers.", project="beta")["memory"]["id"]
    return {
        "old": old, "new": new, "conflict": conflict, "bastion": (bastion_old, body["memory"]["id"]),
        "fold": fold, "kept": kept, "other": other,
    }  # fmt: skip


def test_it_lists_a_supersession_a_conflict_and_a_fold_with_texts_and_actions(ui, decisions):
    response = ui.get("/changes/")
    assert response.status_code == 200
    html = response.content.decode()
    old, conflict, fold = decisions["old"], decisions["conflict"], decisions["fold"]
    shown = items(html)
    assert {f"change-supersession-{old}", f"change-conflict-{conflict.pk}", f"change-fold-{fold.pk}"} <= set(shown)
    # Newest first: the fold came last.
    assert shown.index(f"change-fold-{fold.pk}") < shown.index(f"change-supersession-{old}")

    replaced = item_html(html, f"change-supersession-{old}")
    # Both texts, in their own words, the changed words marked; the cue; the dates; no stemmed reason.
    assert "<del>8000.</del>" in replaced and "<ins>now</ins>" in replaced and "<ins>9000 since" in replaced
    assert "shopfront API" in replaced and "'goe'" not in replaced and "->" not in replaced
    assert '<span class="badge badge-info"' in replaced and ">now</span>" in replaced
    assert "written <time" in replaced
    assert f'hx-post="/supersessions/{old}/restore/"' in replaced and 'data-shortcut="restore"' in replaced

    waiting = item_html(html, f"change-conflict-{conflict.pk}")
    assert "bastion-1." in waiting and "bastion-3." in waiting and "which is current?" in waiting
    assert waiting.count("written <time") == 2  # both facts' dates
    for choice in ("newer", "both", "older"):
        assert f'value="{choice}" data-shortcut="{choice}"' in waiting
    assert f'hx-post="/proposals/{conflict.pk}/accept/"' in waiting

    folded = item_html(html, f"change-fold-{fold.pk}")
    assert FOLDED in folded and f'href="/memories/{decisions["kept"]}/"' in folded
    assert "The write said" in folded and f'hx-post="/gate/{fold.pk}/promote/"' in folded


def test_a_queued_conflict_leaves_history_on_both_memories(decisions):
    conflict = decisions["conflict"]
    for memory_id in conflict.sources:
        event = MemoryEvent.objects.get(memory_id=memory_id, action="conflict_queued")
        assert event.note.startswith(f"conflict proposal #{conflict.pk}: ")


def test_restore_from_the_inbox_works_and_the_list_reloads_itself(ui, decisions):
    old = decisions["old"]
    html = ui.get("/changes/").content.decode()
    assert 'hx-trigger="memories-changed from:body"' in html
    response = ui.post(f"/supersessions/{old}/restore/", {"next": "/changes/"}, **HX)
    assert response.status_code == 200 and "memories-changed" in response["HX-Trigger"]
    assert Memory.objects.get(pk=old).status == Status.ACTIVE
    assert f"change-supersession-{old}" not in items(ui.get("/changes/", **HX).content.decode())
    # Without JavaScript: back to the inbox.
    fold = decisions["fold"]
    response = ui.post(f"/gate/{fold.pk}/promote/", {"next": "/changes/?kind=fold"})
    assert response.status_code == 302 and response["Location"] == "/changes/?kind=fold"
    fold.refresh_from_db()
    assert "Stored apart as" in item_html(ui.get("/changes/").content.decode(), f"change-fold-{fold.pk}")


def test_a_conflict_decision_has_undo_in_its_notice_and_in_the_inbox(ui, decisions):
    conflict = decisions["conflict"]
    older, newer = decisions["bastion"]
    response = ui.post(f"/proposals/{conflict.pk}/accept/", {"choice": "both"}, **HX)
    assert response.status_code == 200
    trigger = response["HX-Trigger"]
    assert "is current" not in trigger and "both kept" in trigger
    assert f"/proposals/{conflict.pk}/undo/" in trigger  # the notice's Undo
    response = ui.post(f"/proposals/{conflict.pk}/accept/", {"choice": "newer"}, **HX)
    assert response.status_code == 409  # decided already
    html = item_html(ui.get("/changes/").content.decode(), f"change-conflict-{conflict.pk}")
    assert "kept both" in html and f'hx-post="/proposals/{conflict.pk}/undo/"' in html
    assert ui.post(f"/proposals/{conflict.pk}/undo/", **HX).status_code == 200
    conflict.refresh_from_db()
    assert (conflict.status, conflict.choice) == ("pending", "")

    # Keep the newer, then undo: both active again, unlinked, the question pending.
    ui.post(f"/proposals/{conflict.pk}/accept/", {"choice": "newer"}, **HX)
    assert Memory.objects.get(pk=older).status == Status.SUPERSEDED
    assert ui.post(f"/proposals/{conflict.pk}/undo/", **HX).status_code == 200
    for pk in (older, newer):
        memory = Memory.objects.get(pk=pk)
        assert (memory.status, memory.superseded_by_id) == (Status.ACTIVE, None)
    conflict.refresh_from_db()
    assert conflict.status == "pending"
    assert MemoryEvent.objects.filter(memory_id=older, action="conflict_reopened").count() == 2
    # Still decidable afterwards (not closed as stale).
    assert ui.post(f"/proposals/{conflict.pk}/accept/", {"choice": "older"}, **HX).status_code == 200
    assert Memory.objects.get(pk=newer).superseded_by_id == older


def test_it_filters_by_kind_and_project_and_counts_each_kind(ui, decisions):
    only = items(ui.get("/changes/", {"kind": "conflict"}).content.decode())
    assert only == [f"change-conflict-{decisions['conflict'].pk}"]
    html = ui.get("/changes/").content.decode()
    assert re.search(r'data-count="supersession"><strong>1</strong>', html)
    assert re.search(r'data-count="conflict"><strong>1</strong>', html)
    assert re.search(r'data-count="fold"><strong>1</strong>', html)
    assert items(ui.get("/changes/", {"project": "beta"}).content.decode()) == []
    partial = ui.get("/changes/", {"kind": "fold"}, **HX).content.decode()
    assert "<html" not in partial and items(partial) == [f"change-fold-{decisions['fold'].pk}"]
    assert "Unknown kind" in ui.get("/changes/", {"kind": "nonsense"}).content.decode()


def test_it_lists_decay_archives_with_restore(ui, decisions, settings):
    settings.MEMORYHUB_ARCHIVE_THRESHOLD = 2.0  # every memory is below it: the sweep archives them all
    run_decay_sweep()
    html = ui.get("/changes/", {"kind": "decay"}).content.decode()
    kept = decisions["kept"]
    row = item_html(html, f"change-decay-{kept}")
    assert "decayed: effective importance" in row.lower() and f'hx-post="/memories/{kept}/restore/"' in row
    assert ui.post(f"/memories/{kept}/restore/", **HX).status_code == 200
    assert Memory.objects.get(pk=kept).status == Status.ACTIVE


def test_it_marks_what_is_new_since_the_last_visit(ui, decisions):
    first = ui.get("/changes/").content.decode()
    assert "Your first visit" in first and first.count("badge-new") >= 3
    again = ui.get("/changes/").content.decode()
    assert "0 new since your last visit" in again and "badge-new" not in again.split('id="changes-since"')[1]
    agent = make_agent("codex", projects=["alpha"])
    write(agent, "The nightly backup runs at 02:00 UTC to the cold bucket.")
    write(agent, "The nightly backup runs at 02:00 UTC to the cold bucket.")  # folded
    html = ui.get("/changes/").content.decode()
    assert "1 new since your last visit" in html
    # The list reloading in place (after an action) keeps the same mark.
    assert "1 new since your last visit" in ui.get("/changes/", **HX).content.decode()


def test_every_page_links_to_it(ui, decisions):
    for path in ("/", "/proposals/", "/gate/", "/supersessions/", "/decay/", "/changes/"):
        assert 'href="/changes/"' in ui.get(path).content.decode(), path


def test_it_shows_only_what_the_person_may_see(decisions):
    client, person = viewer_of("beta")
    html = client.get("/changes/").content.decode()
    assert items(html) == [] and OLD not in html and "bastion" not in html and FOLDED not in html
    assert items(client.get("/changes/", {"project": "alpha"}).content.decode()) == []
    Membership.objects.create(user=person, project="alpha", role="viewer")
    html = client.get("/changes/").content.decode()
    assert f"change-conflict-{decisions['conflict'].pk}" in items(html)
    assert 'data-shortcut="newer"' not in html and "Restore the older" not in html  # a viewer decides nothing
    assert client.post(f"/supersessions/{decisions['old']}/restore/").status_code == 403


def test_reasons_read_in_the_memories_own_words(ui, decisions):
    html = ui.get("/supersessions/").content.decode()
    assert "says it changed" in html and "->" not in html and "<del>8000.</del>" in html
    listed = ui.get("/", {"status": "superseded"}).content.decode()
    row = listed[listed.index(f'id="memory-{decisions["old"]}"') :]
    row = row[: row.index("</tr>")]
    assert f'Now <a href="/memories/{decisions["new"]}/">' in row and "<ins>9000 since" in row
    assert "why: says it changed ('now')" in row.replace("&#x27;", "'") and "->" not in row
    conflict = decisions["conflict"]
    card = ui.get("/proposals/").content.decode()
    card = card[card.index(f'id="proposal-{conflict.pk}"') :]
    card = card[: card.index("</article>")]
    assert "->" not in card and card.count("written <time") == 2


def test_rejecting_a_conflict_keeps_both_with_undo(ui, decisions):
    conflict = decisions["conflict"]
    response = ui.post(f"/proposals/{conflict.pk}/reject/", **HX)
    assert response.status_code == 200
    assert "both kept" in response["HX-Trigger"] and f"/proposals/{conflict.pk}/undo/" in response["HX-Trigger"]
    assert ui.post(f"/proposals/{conflict.pk}/undo/", **HX).status_code == 200
    conflict.refresh_from_db()
    assert conflict.status == "pending"
