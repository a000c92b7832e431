"""Bulk actions on a selection (confirm, archive, restore, re-tag) and merging a selection into one memory."""

from __future__ import annotations

import json

from memoryhub.models import Memory, Proposal
from tests.ui.conftest import HX, remember, row_ids


def bulk(ui, action: str, ids: list[int], return_query: str = "", **fields):
    return ui.post("/memories/bulk/", {"action": action, "selected": ids, "return_query": return_query, **fields}, **HX)


def test_bulk_confirm_confirms_every_selected_memory_and_re_renders_the_list(ui, store):
    ids = [store["deploy"].pk, store["pytest"].pk]
    response = bulk(ui, "confirm", ids, return_query="project=alpha")
    html = response.content.decode()
    assert response.status_code == 200
    assert set(Memory.objects.filter(confirmed=True).values_list("pk", flat=True)) == {*ids, store["editor"].pk}
    assert html.lstrip().startswith('<div id="memory-results"')
    assert set(row_ids(html)) == {store["pagination"].pk, store["deploy"].pk}  # the filter the person had
    assert json.loads(response["HX-Trigger"])["notice"]["text"] == "2 memories confirmed."


def test_bulk_archive_then_restore(ui, store):
    ids = [store["deploy"].pk, store["pagination"].pk]
    html = bulk(ui, "archive", ids).content.decode()
    assert set(Memory.objects.filter(status="archived").values_list("pk", flat=True)) == set(ids)
    assert not set(ids) & set(row_ids(html))  # gone from the active list
    bulk(ui, "restore", ids, return_query="status=archived")
    assert not Memory.objects.filter(status="archived").exists()


def test_bulk_re_tag_adds_and_removes_tags_and_keeps_what_was_not_asked(ui, store):
    ids = [store["pagination"].pk, store["deploy"].pk]
    bulk(ui, "retag", ids, add_tags="reviewed, alpha-team", remove_tags="api", category="__keep__", tier="__keep__")
    pagination, deploy = Memory.objects.get(pk=ids[0]), Memory.objects.get(pk=ids[1])
    assert pagination.tags == ["pagination", "reviewed", "alpha-team"]
    assert deploy.tags == ["deploy", "reviewed", "alpha-team"]
    assert (pagination.category, deploy.category) == ("decision", "fact")
    assert (pagination.project, deploy.project) == ("alpha", "alpha")


def test_bulk_re_tag_can_move_and_recategorise(ui, store):
    ids = [store["pagination"].pk, store["deploy"].pk]
    bulk(ui, "retag", ids, category="reference", tier="__keep__", set_project="1", project="")
    rows = Memory.objects.filter(pk__in=ids)
    assert {(m.category, m.project) for m in rows} == {("reference", None)}


def test_a_bad_tag_in_a_bulk_re_tag_changes_nothing(ui, store):
    ids = [store["pagination"].pk, store["deploy"].pk]
    response = bulk(ui, "retag", ids, add_tags="fine, <script>", category="fact")
    assert response.status_code == 422
    assert response["HX-Retarget"] == "#messages"
    assert "may not have" in response.content.decode()
    assert Memory.objects.get(pk=ids[0]).tags == ["api", "pagination"]
    assert Memory.objects.get(pk=ids[0]).category == "decision"


def test_a_bulk_action_without_a_selection_is_refused(ui, store):
    response = bulk(ui, "archive", [])
    assert response.status_code == 400
    assert "Select at least one memory" in response.content.decode()
    assert not Memory.objects.filter(status="archived").exists()


def test_an_unknown_bulk_action_is_refused(ui, store):
    response = bulk(ui, "explode", [store["deploy"].pk])
    assert response.status_code == 422
    assert Memory.objects.filter(status="active").count() == 4


def test_a_stale_selection_acts_on_what_still_exists_and_says_what_was_gone(ui, store):
    response = bulk(ui, "archive", [store["deploy"].pk, 99999])
    assert Memory.objects.get(pk=store["deploy"].pk).status == "archived"
    assert "1 selected memory was already gone" in json.loads(response["HX-Trigger"])["notice"]["text"]
    response = bulk(ui, "archive", [99998, 99999])
    assert response.status_code == 404


def test_merge_opens_a_dialog_with_the_sources_and_an_editable_text(ui, store):
    a = store["pagination"]
    b = remember("Every list endpoint pages with a cursor", project="alpha", category="decision", tags=["cursor"])
    response = bulk(ui, "merge", [a.pk, b.pk], return_query="project=alpha")
    html = response.content.decode()
    assert response.status_code == 200
    assert response["HX-Retarget"] == "#dialog-slot"
    assert "<dialog" in html and "data-autoshow" in html
    assert a.content in html and b.content in html
    assert '<textarea name="content"' in html
    assert 'value="api, pagination, cursor"' in html  # the union of the tags to start from
    assert Memory.objects.count() == 5  # nothing merged yet


def test_merging_makes_one_memory_and_archives_the_sources_into_it(ui, store):
    a = store["pagination"]
    b = remember("Every list endpoint pages with a cursor", project="alpha", category="decision", tags=["cursor"])
    response = ui.post(
        "/memories/merge/",
        {
            "selected": [a.pk, b.pk],
            "content": "List endpoints use cursor pagination",
            "category": "decision",
            "tier": "semantic",
            "tags": "api, pagination",
            "return_query": "project=alpha",
        },
        **HX,
    )
    html = response.content.decode()
    assert response.status_code == 200
    merged = Memory.objects.get(content="List endpoints use cursor pagination")
    assert (merged.project, merged.category, merged.tags) == ("alpha", "decision", ["api", "pagination"])
    for source in (a, b):
        source.refresh_from_db()
        assert source.status == "archived" and source.merged_into_id == merged.pk
    assert merged.pk in row_ids(html) and a.pk not in row_ids(html)
    assert 'id="dialog-slot" hx-swap-oob="innerHTML"' in html  # the dialog closes
    assert Proposal.objects.get(merged_memory=merged).status == "accepted"  # so the merge can be undone


def test_merging_across_projects_is_refused_in_the_dialog(ui, store):
    response = ui.post(
        "/memories/merge/",
        {"selected": [store["pagination"].pk, store["pytest"].pk], "content": "Mixed", "tags": ""},
        **HX,
    )
    assert response.status_code == 422
    assert response["HX-Retarget"] == "#dialog-slot"
    assert "different projects" in response.content.decode()
    assert not Memory.objects.filter(content="Mixed").exists()
    assert not Memory.objects.filter(status="archived").exists()


def test_merging_needs_two_memories_and_a_text(ui, store):
    response = bulk(ui, "merge", [store["deploy"].pk])
    assert response.status_code == 200  # the dialog opens and says what is missing once submitted
    response = ui.post("/memories/merge/", {"selected": [store["deploy"].pk], "content": "x"}, **HX)
    assert response.status_code == 422 and "at least two" in response.content.decode()
    response = ui.post(
        "/memories/merge/", {"selected": [store["deploy"].pk, store["pagination"].pk], "content": ""}, **HX
    )
    assert response.status_code == 422 and "This field is required" in response.content.decode()
    assert Memory.objects.count() == 4


def test_merging_memories_deleted_meanwhile_is_refused(ui, store):
    response = ui.post("/memories/merge/", {"selected": [store["deploy"].pk, 99999], "content": "x y z"}, **HX)
    assert response.status_code == 409
    assert "no longer exist" in response.content.decode()
    assert Memory.objects.get(pk=store["deploy"].pk).status == "active"


def test_without_javascript_a_bulk_action_redirects_back_to_the_filtered_list(ui, store):
    response = ui.post(
        "/memories/bulk/", {"action": "confirm", "selected": [store["deploy"].pk], "return_query": "project=alpha"}
    )
    assert response.status_code == 302 and response["Location"] == "/?project=alpha"
    assert Memory.objects.get(pk=store["deploy"].pk).confirmed is True


def test_without_javascript_merge_is_a_page_that_posts_the_merge(ui, store):
    b = remember("Every list endpoint pages with a cursor", project="alpha")
    page = ui.post("/memories/bulk/", {"action": "merge", "selected": [store["pagination"].pk, b.pk]})
    assert page.status_code == 200 and b"<html" in page.content and b"Merge into one memory" in page.content
    response = ui.post("/memories/merge/", {"selected": [store["pagination"].pk, b.pk], "content": "Cursor pages"})
    assert response.status_code == 302
    assert Memory.objects.get(content="Cursor pages").status == "active"
