"""Time in the dashboard: "needs checking" lists the facts checked longest ago first, per project, and Confirm
moves one to the back; an expired memory is marked in the list, listed apart and can be extended (back in search at
once); a memory's page shows when its fact ended, when it expires and when it was last checked; the decay page
counts expired memories apart."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from django.utils import timezone

from memoryhub.models import Memory, MemoryEvent
from memoryhub.retrieval.search import MemoryFilter, search_memories
from memoryhub.writes.gate import gate_write
from tests.ui.conftest import HX, remember, row_ids
from ui.forms import version_of


def checking_rows(html: str) -> list[int]:
    return [int(n) for n in re.findall(r'<tr id="checking-(\d+)" data-nav-item', html)]


def expired_rows(html: str) -> list[int]:
    return [int(n) for n in re.findall(r'<tr id="expired-(\d+)"', html)]


def checked(memory: Memory, days_ago: int) -> Memory:
    Memory.objects.filter(pk=memory.pk).update(verified_at=timezone.now() - timedelta(days=days_ago))
    return memory


def test_needs_checking_lists_the_oldest_checked_first_per_project_and_confirm_moves_one(ui, db):
    recent = checked(remember("The alpha API answers in JSON only", project="alpha"), 3)
    oldest = checked(remember("The alpha workers restart every night at two", project="alpha"), 400)
    middle = checked(remember("The alpha cache keeps entries for an hour", project="alpha"), 200)
    other = checked(remember("The beta importer reads CSV files from the inbox", project="beta"), 900)
    page = ui.get("/checking/", {"project": "alpha"}).content.decode()
    assert checking_rows(page) == [oldest.pk, middle.pk, recent.pk]  # oldest checked first, this project only
    assert other.pk not in checking_rows(page)
    assert checking_rows(ui.get("/checking/").content.decode())[0] == other.pk
    assert f'action="/checking/{oldest.pk}/confirm/"' in page and 'data-shortcut="confirm"' in page

    answer = ui.post(f"/checking/{oldest.pk}/confirm/", **HX)
    assert answer.status_code == 200 and "Checked just now" in answer.content.decode()
    assert "checked" in answer["HX-Trigger"]
    oldest.refresh_from_db()
    assert oldest.confirmed and timezone.now() - oldest.verified_at < timedelta(minutes=1)
    assert checking_rows(ui.get("/checking/", {"project": "alpha"}).content.decode()) == [
        middle.pk, recent.pk, oldest.pk,
    ]  # fmt: skip
    # Confirming an already confirmed fact checks it again.
    checked(oldest, 50)
    ui.post(f"/checking/{oldest.pk}/confirm/", **HX)
    oldest.refresh_from_db()
    assert timezone.now() - oldest.verified_at < timedelta(minutes=1)
    assert MemoryEvent.objects.filter(memory_id=oldest.pk, action="verified").count() == 1


def test_an_edit_or_a_repeated_write_checks_a_fact(ui, db):
    text = "The gamma service writes its logs to /var/log/gamma"
    memory = checked(gate_write(content=text, project="gamma").memory, 300)
    assert gate_write(content=text, project="gamma").outcome == "duplicate"
    memory.refresh_from_db()
    assert timezone.now() - memory.verified_at < timedelta(minutes=1)
    checked(memory, 300)
    memory.refresh_from_db()
    p = f"m{memory.pk}"
    edited = {f"{p}-content": text + " and rotates them daily", f"{p}-version": version_of(memory)}
    assert ui.post(f"/memories/{memory.pk}/edit/", edited, **HX).status_code == 200
    memory.refresh_from_db()
    assert timezone.now() - memory.verified_at < timedelta(minutes=1)


def test_an_expired_memory_is_marked_listed_apart_and_extended_back_into_search(ui, db):
    gone = remember("The delta staging cluster is down for maintenance this week", project="delta")
    kept = remember("The delta production cluster runs in Frankfurt", project="delta")
    Memory.objects.filter(pk=gone.pk).update(expires_at=timezone.now() - timedelta(hours=1))
    listed = ui.get("/", {"project": "delta"}).content.decode()
    assert set(row_ids(listed)) == {gone.pk, kept.pk}  # the list still shows it, marked
    row = listed[listed.index(f'id="memory-{gone.pk}"') :]
    assert ">expired</span>" in row[: row.index("</tr>")]
    assert ">expired</span>" not in listed[listed.index(f'id="memory-{kept.pk}"') :].split("</tr>")[0]
    page = ui.get("/checking/", {"project": "delta"}).content.decode()
    assert expired_rows(page) == [gone.pk] and gone.pk not in checking_rows(page)
    detail = ui.get(f"/memories/{gone.pk}/").content.decode()
    assert "Expires" in detail and ">expired</span>" in detail and f'action="/memories/{gone.pk}/expiry/"' in detail

    def found() -> bool:
        hits = search_memories(query="delta staging cluster maintenance", within=MemoryFilter(visible_from="delta"))
        return gone.pk in [h.memory.pk for h in hits]

    assert not found()
    refused = ui.post(f"/memories/{gone.pk}/expiry/", {"expires_at": "next tuesday"}, **HX)
    assert refused.status_code == 400 and "The expiry must be a date" in refused.content.decode()
    later = (datetime.now(UTC) + timedelta(days=30)).date()
    answer = ui.post(f"/memories/{gone.pk}/expiry/", {"expires_at": later.isoformat()}, **HX)
    assert answer.status_code == 200 and "Extend" in answer.content.decode()
    gone.refresh_from_db()
    assert gone.expires_at == datetime(later.year, later.month, later.day, tzinfo=UTC)
    assert found()
    assert expired_rows(ui.get("/checking/", {"project": "delta"}).content.decode()) == []
    event = MemoryEvent.objects.get(memory_id=gone.pk, action="expiry_set")
    assert "it had expired" in event.note and event.actor == "curator"
    ui.post(f"/memories/{gone.pk}/expiry/", {"expires_at": ""}, **HX)  # never expire
    gone.refresh_from_db()
    assert gone.expires_at is None


def test_a_memorys_page_shows_when_its_fact_ended_and_when_it_was_checked(ui, db):
    old = gate_write(content="The epsilon API listens on port 8000.", project="eps",
                     valid_from="2026-01-15T00:00:00Z").memory  # fmt: skip
    gate_write(content="The epsilon API now listens on port 9000.", project="eps", valid_from="2026-06-01T00:00:00Z")
    old.refresh_from_db()
    detail = ui.get(f"/memories/{old.pk}/").content.decode()
    assert old.valid_to is not None
    assert re.search(r'<dd id="valid-to">2026-06-01 00:00</dd>', detail)
    assert re.search(r'<dd id="expires">never', detail)
    assert f'id="verified"><time datetime="{old.verified_at.isoformat()}' in detail


def test_the_decay_page_counts_expired_memories_apart(ui, db):
    for n in range(3):
        remember(f"The zeta job number {n} exports invoices nightly", project="zeta")
    gone = remember("The zeta freeze holds until the audit ends", project="zeta")
    before = ui.get("/decay/").context["active_total"]
    Memory.objects.filter(pk=gone.pk).update(expires_at=timezone.now() - timedelta(minutes=5))
    answer = ui.get("/decay/")
    assert answer.context["active_total"] == before - 1 and answer.context["expired_total"] == 1
    assert re.search(r'id="expired-apart"><a href="/checking/#expired-h">1 expired</a>', answer.content.decode())
