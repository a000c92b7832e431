"""The "Replaced automatically" page: every supersession the write gate made, with both texts, the rules' reason
and cue, who wrote the newer and when; never one a person decided; filtered by project and by what the person may
see; and a Restore that undoes the link in place, with history on both memories."""

from __future__ import annotations

import re

import pytest

from memoryhub.memories.supersession import decide_conflict, queue_conflict, supersede
from memoryhub.models import Membership, Memory, MemoryEvent, Status
from memoryhub.writes.gate import gate_write
from tests.dashboard_fixtures import viewer_of
from tests.ui.conftest import HX, remember

OLD = "The shopfront API listens on port 8000."
NEW = "The shopfront API now listens on port 9000 since the reverse-proxy change."


def rows(html: str) -> list[int]:
    return [int(n) for n in re.findall(r'<tr id="supersession-(\d+)"', html)]


@pytest.fixture
def links(db) -> dict[str, tuple[Memory, Memory]]:
    # Made by the write gate, as an agent writes.
    old = gate_write(content=OLD, project="shop", source="codex").memory
    new = gate_write(content=NEW, project="shop", source="codex").memory
    old.refresh_from_db()
    assert old.superseded_by_id == new.pk
    # Another project's, made by the same rule at write time (set directly: the texts need not pass the gate).
    ledger_old = remember("Ledger's release branch is release/2.3.", project="ledger")
    ledger_new = remember("Ledger's release branch is now release/2.4.", project="ledger", source="claude")
    supersede(older=ledger_old, newer=ledger_new, actor="claude", reason="says it changed ('now'): '2.3' -> '2.4'")
    # A person's decision: not automatic.
    older = remember("The bastion host is bastion-1.", project="shop")
    newer = remember("The bastion host is bastion-3.", project="shop")
    decide_conflict(proposal=queue_conflict(older=older, newer=newer, reason="test"), choice="newer", actor="curator")
    return {"shop": (old, new), "ledger": (ledger_old, ledger_new), "person": (older, newer)}


def test_it_lists_an_automatic_supersession_with_both_texts_and_the_reason(ui, links):
    old, new = links["shop"]
    response = ui.get("/supersessions/")
    assert response.status_code == 200
    html = response.content.decode()
    assert rows(html) == [links["ledger"][0].pk, old.pk]  # newest first
    row = html[html.index(f'id="supersession-{old.pk}"') :]
    row = row[: row.index("</tr>")]
    text = re.sub(r"<[^>]+>", "", row)  # the changed words are marked (<del>, <ins>) inside the texts
    assert OLD in text and NEW in text and "<del>8000.</del>" in row
    assert "says it changed" in row and '<span class="badge badge-info"' in row
    assert f'href="/memories/{old.pk}/"' in row and f'href="/memories/{new.pk}/"' in row
    assert "codex" in row  # who wrote the newer
    assert f'action="/supersessions/{old.pk}/restore/"' in row and "csrfmiddlewaretoken" in row


def test_it_leaves_out_what_a_person_decided(ui, links):
    older, _ = links["person"]
    assert Memory.objects.get(pk=older.pk).status == Status.SUPERSEDED
    html = ui.get("/supersessions/").content.decode()
    assert older.pk not in rows(html) and "bastion" not in html


def test_it_filters_by_project(ui, links):
    assert rows(ui.get("/supersessions/", {"project": "ledger"}).content.decode()) == [links["ledger"][0].pk]
    partial = ui.get("/supersessions/", {"project": "shop"}, **HX).content.decode()
    assert rows(partial) == [links["shop"][0].pk] and "<html" not in partial
    assert rows(ui.get("/supersessions/", {"project": "-"}).content.decode()) == []


def test_it_hides_other_peoples_projects(links):
    client, person = viewer_of("ledger")
    html = client.get("/supersessions/").content.decode()
    assert rows(html) == [links["ledger"][0].pk]
    assert OLD not in html and NEW not in html
    assert rows(client.get("/supersessions/", {"project": "shop"}).content.decode()) == []
    # A viewer may not restore, here or elsewhere; nothing changes.
    assert client.post(f"/supersessions/{links['ledger'][0].pk}/restore/").status_code == 403
    # Another project's memory answers as one that does not exist.
    Membership.objects.filter(user=person).update(role="curator")
    assert client.post(f"/supersessions/{links['shop'][0].pk}/restore/").status_code == 404
    assert Memory.objects.get(pk=links["shop"][0].pk).status == Status.SUPERSEDED


def test_restore_brings_the_older_back_in_place_with_history(ui, links):
    old, new = links["shop"]
    response = ui.post(f"/supersessions/{old.pk}/restore/", **HX)
    assert response.status_code == 200
    html = response.content.decode()
    assert html.strip().startswith(f'<tr id="supersession-{old.pk}"') and "Restored: both are active." in html
    assert "memories-changed" in response["HX-Trigger"]
    old.refresh_from_db()
    assert (old.status, old.superseded_by_id) == (Status.ACTIVE, None)
    assert Memory.objects.get(pk=new.pk).status == Status.ACTIVE
    assert MemoryEvent.objects.filter(memory_id=old.pk, action="restored", actor="curator").exists()
    assert MemoryEvent.objects.filter(memory_id=new.pk, action="supersession_undone").exists()
    assert old.pk not in rows(ui.get("/supersessions/").content.decode())
    # Asked again (another tab): said, not done twice.
    assert ui.post(f"/supersessions/{old.pk}/restore/", **HX).status_code == 409


def test_restore_without_htmx_redirects_back(ui, links):
    old, _ = links["ledger"]
    response = ui.post(f"/supersessions/{old.pk}/restore/", {"next": "/supersessions/?project=ledger"})
    assert response.status_code == 302 and response["Location"] == "/supersessions/?project=ledger"
    assert Memory.objects.get(pk=old.pk).status == Status.ACTIVE
    assert f"Memory #{old.pk} restored" in ui.get(response["Location"]).content.decode()


def test_the_reason_stays_in_both_memories_history(links):
    old, new = links["shop"]
    superseded = MemoryEvent.objects.get(memory_id=old.pk, action="superseded")
    supersedes = MemoryEvent.objects.get(memory_id=new.pk, action="supersedes")
    assert superseded.note.startswith(f"superseded by #{new.pk}: says it changed")
    assert supersedes.note.startswith(f"supersedes #{old.pk}: says it changed")


def test_every_page_links_to_it(ui, links):
    for path in ("/", "/proposals/", "/gate/", "/supersessions/"):
        assert 'href="/supersessions/"' in ui.get(path).content.decode(), path
