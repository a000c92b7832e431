"""Actions on one memory, in its row: confirm, edit, re-tag, archive, restore, refresh, delete; and refusals."""

from __future__ import annotations

import json
from datetime import timedelta

from django.utils import timezone

from memoryhub.models import Memory, MemoryEvent
from memoryhub.retrieval.search import MemoryFilter, search_memories
from memoryhub.storage import sql
from tests.ui.conftest import HX, row_ids


def fresh(memory: Memory) -> Memory:
    memory.refresh_from_db()
    return memory


def events(memory: Memory) -> list[str]:
    return list(MemoryEvent.objects.filter(memory_id=memory.pk).values_list("action", flat=True))


def test_confirming_in_place_returns_the_new_row_and_refreshes_the_counters(ui, store):
    memory = store["deploy"]
    response = ui.post(f"/memories/{memory.pk}/confirm/", {"confirmed": "1"}, **HX)
    html = response.content.decode()
    assert response.status_code == 200
    assert html.strip().startswith(f'<tr id="memory-{memory.pk}"')
    assert ">confirmed<" in html and ">Unconfirm<" in html
    assert fresh(memory).confirmed is True
    trigger = json.loads(response["HX-Trigger"])
    assert trigger["memories-changed"] is True
    assert trigger["notice"]["text"] == f"Memory #{memory.pk} confirmed."
    assert events(memory)[-1] == "confirmed"


def test_unconfirming_takes_the_confirmation_back(ui, store):
    memory = store["editor"]
    html = ui.post(f"/memories/{memory.pk}/confirm/", {"confirmed": "0"}, **HX).content.decode()
    assert fresh(memory).confirmed is False
    assert ">Confirm<" in html


def test_archiving_and_restoring_in_place(ui, store):
    memory = store["deploy"]
    html = ui.post(f"/memories/{memory.pk}/archive/", **HX).content.decode()
    assert fresh(memory).status == "archived"
    assert "is-archived" in html and ">Restore<" in html
    hits = search_memories(query="GitHub Actions Fly.io deploys", within=MemoryFilter(visible_from="alpha"))
    assert memory.pk not in [h.memory.pk for h in hits]  # archived: out of search
    html = ui.post(f"/memories/{memory.pk}/restore/", **HX).content.decode()
    assert fresh(memory).status == "active"
    assert ">Archive<" in html
    assert events(memory)[-2:] == ["archived", "restored"]


def test_undoing_an_archive_leaves_the_last_use_where_it_was_and_a_restore_restarts_it(ui, store):
    memory = store["deploy"]
    long_ago = timezone.now() - timedelta(days=90)
    Memory.objects.filter(pk=memory.pk).update(last_accessed_at=long_ago)
    response = ui.post(f"/memories/{memory.pk}/archive/", **HX)
    assert '"undo": "1"' in response["HX-Trigger"]  # the notice's Undo posts undo=1
    ui.post(f"/memories/{memory.pk}/restore/", {"undo": "1"}, **HX)
    assert (fresh(memory).status, fresh(memory).last_accessed_at) == ("active", long_ago)
    ui.post(f"/memories/{memory.pk}/archive/", **HX)
    ui.post(f"/memories/{memory.pk}/restore/", **HX)  # a restore, not an undo: a fresh decay clock
    assert fresh(memory).last_accessed_at > long_ago + timedelta(days=89)
    # The bulk Undo leaves it too.
    Memory.objects.filter(pk=memory.pk).update(last_accessed_at=long_ago)
    ui.post("/memories/bulk/", {"action": "archive", "selected": [memory.pk]}, **HX)
    assert fresh(memory).status == "archived"
    ui.post("/memories/bulk/", {"action": "restore", "undo": "1", "selected": [memory.pk]}, **HX)
    assert (fresh(memory).status, fresh(memory).last_accessed_at) == ("active", long_ago)


def test_archiving_an_archived_memory_is_refused_with_a_message(ui, store):
    memory = store["deploy"]
    ui.post(f"/memories/{memory.pk}/archive/", **HX)
    response = ui.post(f"/memories/{memory.pk}/archive/", **HX)
    assert response.status_code == 409
    assert response["HX-Retarget"] == "#messages"
    assert "already archived" in response.content.decode()
    assert events(memory).count("archived") == 1


def test_refreshing_counts_a_use(ui, store):
    memory = store["pytest"]
    ui.post(f"/memories/{memory.pk}/refresh/", **HX)
    memory = fresh(memory)
    assert memory.access_count == 1 and memory.last_accessed_at is not None
    assert events(memory)[-1] == "refreshed"


def test_deleting_removes_the_row_and_the_memory(ui, store):
    memory = store["deploy"]
    response = ui.post(f"/memories/{memory.pk}/delete/", **HX)
    assert response.status_code == 200 and response.content == b""
    assert not Memory.objects.filter(pk=memory.pk).exists()
    assert memory.pk not in sql.vector_ids()
    assert events(memory)[-1] == "deleted"  # the history outlives the memory
    assert memory.pk not in row_ids(ui.get("/", **HX).content.decode())


def test_without_javascript_delete_asks_first_then_goes_back_to_the_list(ui, store):
    memory = store["deploy"]
    page = ui.get(f"/memories/{memory.pk}/delete/")
    assert page.status_code == 200 and b"Delete for good" in page.content
    assert Memory.objects.filter(pk=memory.pk).exists()
    response = ui.post(f"/memories/{memory.pk}/delete/")
    assert response.status_code == 302 and response["Location"] == "/"
    assert not Memory.objects.filter(pk=memory.pk).exists()


def _edit(ui, memory, content: str, version: str):
    """The row's edit form sent as htmx sends it, with the version the form was opened at."""
    fields = {f"m{memory.pk}-content": content, f"m{memory.pk}-version": version}
    return ui.post(f"/memories/{memory.pk}/edit/", fields, **HX)


def test_editing_the_text_in_place_re_indexes_it(ui, store):
    memory = store["deploy"]
    form = ui.get(f"/memories/{memory.pk}/edit/", **HX).content.decode()
    assert f'name="m{memory.pk}-content"' in form
    response = _edit(ui, memory, "Deploys run through a Jenkins pipeline", fresh(memory).updated_at.isoformat())
    assert response.status_code == 200
    assert "Deploys run through a Jenkins pipeline" in response.content.decode()
    assert fresh(memory).content == "Deploys run through a Jenkins pipeline"
    hits = search_memories(query="jenkins", within=MemoryFilter(visible_from="alpha"), mode="keyword")
    assert [h.memory.pk for h in hits] == [memory.pk]
    event = MemoryEvent.objects.filter(memory_id=memory.pk).last()
    assert event.action == "edited" and event.actor == "curator"
    assert event.before == {"content": "Deploys run through GitHub Actions to Fly.io"}


def test_a_stale_edit_form_is_refused_and_saves_nothing(ui, store):
    memory = store["deploy"]
    stale_version = fresh(memory).updated_at.isoformat()
    _edit(ui, memory, "Someone else's change", stale_version)
    response = _edit(ui, memory, "My late change", stale_version)
    assert response.status_code == 409
    assert "changed after you opened this form" in response.content.decode()
    assert fresh(memory).content == "Someone else's change"


def test_empty_text_is_refused_in_the_form(ui, store):
    memory = store["deploy"]
    response = _edit(ui, memory, "   ", fresh(memory).updated_at.isoformat())
    assert response.status_code == 422
    assert "This field is required" in response.content.decode()
    assert fresh(memory).content == "Deploys run through GitHub Actions to Fly.io"


def test_re_tagging_adds_and_removes_tags_and_moves_the_memory(ui, store):
    memory = store["pagination"]
    p = f"m{memory.pk}"
    response = ui.post(
        f"/memories/{memory.pk}/retag/",
        {
            f"{p}-add_tags": "rest, cursors ,rest",
            f"{p}-remove_tags": ["pagination"],
            f"{p}-project": "beta",
            f"{p}-category": "fact",
            f"{p}-tier": "",
            f"{p}-version": fresh(memory).updated_at.isoformat(),
        },
        **HX,
    )
    assert response.status_code == 200
    memory = fresh(memory)
    assert memory.tags == ["api", "rest", "cursors"]
    assert (memory.project, memory.category, memory.tier) == ("beta", "fact", "")
    assert 'href="/?tag=cursors"' in response.content.decode()
    assert MemoryEvent.objects.filter(memory_id=memory.pk).last().action == "retagged"


def test_an_empty_project_makes_the_memory_global(ui, store):
    memory = store["pytest"]
    p = f"m{memory.pk}"
    ui.post(
        f"/memories/{memory.pk}/retag/",
        {
            f"{p}-project": "",
            f"{p}-category": "skill",
            f"{p}-tier": "procedural",
            f"{p}-version": memory.updated_at.isoformat(),
        },
        **HX,
    )
    assert fresh(memory).project is None


def test_an_invalid_tag_is_refused_and_nothing_changes(ui, store):
    memory = store["pagination"]
    p = f"m{memory.pk}"
    response = ui.post(
        f"/memories/{memory.pk}/retag/",
        {
            f"{p}-add_tags": "ok, " + "x" * 65,
            f"{p}-project": "gamma",
            f"{p}-category": "decision",
            f"{p}-tier": "semantic",
            f"{p}-version": memory.updated_at.isoformat(),
        },
        **HX,
    )
    assert response.status_code == 422
    assert "longer than 64 characters" in response.content.decode()
    memory = fresh(memory)
    assert memory.tags == ["api", "pagination"] and memory.project == "alpha"


def test_a_missing_memory_gets_a_message_not_a_server_error(ui, db):
    for method, path in [
        ("post", "/memories/999/confirm/"),
        ("post", "/memories/999/archive/"),
        ("get", "/memories/999/edit/"),
        ("post", "/memories/999/delete/"),
        ("get", "/memories/999/"),
    ]:
        response = getattr(ui, method)(path, **HX)
        assert response.status_code == 404, path
        assert "Memory #999 does not exist" in response.content.decode()
        assert response["HX-Retarget"] == "#messages"


def test_a_missing_memory_on_a_plain_page_is_a_readable_page(ui, db):
    response = ui.get("/memories/999/")
    assert response.status_code == 404
    assert b"<html" in response.content and b"Memory #999 does not exist" in response.content


def test_without_javascript_an_action_redirects_back_with_a_message(ui, store):
    memory = store["deploy"]
    response = ui.post(f"/memories/{memory.pk}/confirm/", {"confirmed": "1", "next": "/?project=alpha"})
    assert response.status_code == 302 and response["Location"] == "/?project=alpha"
    assert fresh(memory).confirmed is True
    page = ui.get("/?project=alpha").content.decode()
    assert f"Memory #{memory.pk} confirmed." in page


def test_a_next_url_to_another_site_is_not_followed(ui, store):
    memory = store["deploy"]
    response = ui.post(f"/memories/{memory.pk}/archive/", {"next": "https://evil.example/"})
    assert response["Location"] == f"/memories/{memory.pk}/"


def test_the_decay_page_gets_its_own_row_back(ui, store):
    memory = store["deploy"]
    html = ui.post(f"/memories/{memory.pk}/confirm/", {"view": "decay", "confirmed": "1"}, **HX).content.decode()
    assert f'<tr id="memory-{memory.pk}">' in html
    assert "never" in html  # a confirmed memory no longer falls below the threshold
    assert fresh(memory).confirmed is True


def test_without_javascript_the_edit_form_is_a_page_of_its_own(ui, store):
    memory = store["deploy"]
    page = ui.get(f"/memories/{memory.pk}/edit/?next=/memories/{memory.pk}/")
    assert page.status_code == 200 and b"<html" in page.content and b"Edit the text of" in page.content
    response = ui.post(
        f"/memories/{memory.pk}/edit/",
        {
            f"m{memory.pk}-content": "Deploys run on Fridays only",
            f"m{memory.pk}-version": memory.updated_at.isoformat(),
            "next": f"/memories/{memory.pk}/",
        },
    )
    assert response.status_code == 302 and response["Location"] == f"/memories/{memory.pk}/"
    assert fresh(memory).content == "Deploys run on Fridays only"
