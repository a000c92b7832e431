"""The gate log: refused and folded writes with their reasons; a refused write can be promoted to a memory."""

from __future__ import annotations

import pytest

from memoryhub.models import GateLogEntry, Memory
from memoryhub.writes.gate import gate_write
from tests.ui.conftest import HX


@pytest.fixture
def entries(store) -> dict[str, GateLogEntry]:
    gate_write(content="ok", project="alpha", source="claude")
    gate_write(
        content="The deploy key is sk-live-abcdefghijklmnopqrstuvwxyz0123456789ABCD", project="alpha", source="claude"
    )
    gate_write(content=store["deploy"].content, project="alpha", source="codex")
    by_kind = {e.kind: e for e in GateLogEntry.objects.all()}
    return {"noise": by_kind["noise"], "secret": by_kind["secret"], "duplicate": by_kind["duplicate"]}


def test_it_lists_refused_and_folded_writes_with_their_reasons(ui, entries):
    html = ui.get("/gate/").content.decode()
    for entry in entries.values():
        assert f'id="gate-{entry.pk}"' in html
        assert entry.reason in html
    assert "sk-live" not in html  # a secret's value is never kept, so never shown
    assert f"folded into #{entries['duplicate'].memory_id}" in html


def test_the_decision_tabs_filter_the_log(ui, entries):
    html = ui.get("/gate/?decision=duplicate", **HX).content.decode()
    assert f'id="gate-{entries["duplicate"].pk}"' in html and f'id="gate-{entries["noise"].pk}"' not in html


def test_promoting_a_refused_write_stores_it_as_a_memory(ui, entries):
    entry = entries["noise"]
    response = ui.post(f"/gate/{entry.pk}/promote/", **HX)
    entry.refresh_from_db()
    memory = Memory.objects.get(pk=entry.promoted_to_id)
    assert (memory.content, memory.project, memory.source) == ("ok", "alpha", "claude")
    assert f"promoted to #{memory.pk}" in response.content.decode()


def test_a_secret_cannot_be_promoted(ui, entries):
    count = Memory.objects.count()
    response = ui.post(f"/gate/{entries['secret'].pk}/promote/", **HX)
    assert response.status_code == 409
    assert "cannot be promoted" in response.content.decode()
    assert Memory.objects.count() == count


def test_promoting_twice_is_refused(ui, entries):
    ui.post(f"/gate/{entries['noise'].pk}/promote/", **HX)
    response = ui.post(f"/gate/{entries['noise'].pk}/promote/", **HX)
    assert response.status_code == 409 and "already promoted" in response.content.decode()
    assert Memory.objects.filter(content="ok").count() == 1


def test_a_missing_entry_gets_a_message(ui, db):
    response = ui.post("/gate/999/promote/", **HX)
    assert response.status_code == 404 and "Gate log entry #999 does not exist" in response.content.decode()
