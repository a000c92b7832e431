"""POST/GET/PATCH/DELETE /memories, refresh, history and import, through the HTTP layer."""

from __future__ import annotations

import pytest
from django.conf import settings

from memoryhub.memories.store import create_memory
from memoryhub.models import Memory, MemoryEvent, UsageRecord
from tests.api.conftest import error_of

pytestmark = pytest.mark.django_db

FACT = "The alpha service listens on port 8080 behind nginx"


def test_it_creates_a_memory_with_the_agents_name_as_source(claude):
    response = claude.store(
        FACT,
        project="alpha",
        category="fact",
        tier="semantic",
        tags=["net"],
        metadata={"file": "deploy/nginx.conf"},
        importance=0.7,
        source="someone-else",
    )
    assert response.status_code == 201
    body = response.json()
    memory = Memory.objects.get()
    assert body == {
        "outcome": "created",
        "reason": "stored as a new memory",
        "memory": {
            "id": memory.pk,
            "content": FACT,
            "category": "fact",
            "tier": "semantic",
            "project": "alpha",
            "tags": ["net"],
            "metadata": {"file": "deploy/nginx.conf"},
            "source": "claude",
            "importance": 0.7,
            "effective_importance": 0.7,
            "confirmed": False,
            "status": "active",
            "embed_model": memory.embed_model,
            "created_at": memory.created_at.isoformat().replace("+00:00", "Z"),
            "updated_at": memory.updated_at.isoformat().replace("+00:00", "Z"),
            "last_accessed_at": None,
            "access_count": 0,
            "merged_into": None,
            "valid_from": memory.created_at.isoformat().replace("+00:00", "Z"),
            "supersedes": [],
            "superseded_by": None,
            "valid_to": None,
            "expires_at": None,
            "verified_at": memory.created_at.isoformat().replace("+00:00", "Z"),
        },
    }
    assert memory.source == "claude"
    assert memory.embed_model != ""
    assert UsageRecord.objects.filter(agent="claude", kind="write").count() == 1


def test_a_missing_content_is_a_400_naming_the_field(claude):
    response = claude.post("memories", {"project": "alpha"})
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "invalid"
    assert list(error["fields"]) == ["content"]
    assert "content" in error["message"]
    assert Memory.objects.count() == 0


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("category", "rumour"),
        ("tier", "eternal"),
        ("importance", 1.5),
        ("importance", "high"),
        ("tags", "not-a-list"),
        ("tags", [1, 2]),
        ("metadata", ["not", "an", "object"]),
        ("content", 42),
        ("content", "   "),
        ("project", 7),
    ],
)
def test_a_bad_field_is_a_400_naming_it_and_nothing_is_stored(claude, field, value):
    body = {"content": FACT, "project": "alpha", field: value}
    response = claude.post("memories", body)
    assert response.status_code == 400
    assert any(name.split(".")[0] == field for name in error_of(response)["fields"])
    assert Memory.objects.count() == 0


def test_content_over_the_limit_is_a_400_with_the_limit(claude, settings):
    settings.MEMORYHUB_MAX_CONTENT_CHARS = 200
    response = claude.store("word " * 100, project="alpha")
    assert response.status_code == 400
    assert "limit is 200" in error_of(response)["fields"]["content"][0]


def test_an_oversized_body_is_a_413_with_a_clear_message(claude, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 4096
    response = claude.store("x" * 5000, project="alpha")
    assert response.status_code == 413
    error = error_of(response)
    assert error["code"] == "too_large"
    assert "4096 bytes" in error["message"]
    assert Memory.objects.count() == 0


def test_malformed_json_is_a_400_in_the_error_shape(claude):
    response = claude.client.post("/api/v1/memories", data="{not json", content_type="application/json")
    assert response.status_code == 400
    assert "JSON" in error_of(response)["message"]


def test_a_body_that_is_not_an_object_is_a_400(claude):
    response = claude.post("memories", ["a", "list"])
    assert response.status_code == 400
    assert error_of(response)["fields"] == {"non_field_errors": ["the body must be a JSON object"]}


def test_a_project_token_may_not_write_into_another_project_nor_globally(claude):
    assert claude.store(FACT, project="beta").status_code == 403
    response = claude.store(FACT)
    assert response.status_code == 403
    assert "global" in error_of(response)["message"]
    assert Memory.objects.count() == 0


def test_a_read_only_token_may_not_write(reader):
    response = reader.store(FACT, project="alpha")
    assert response.status_code == 403
    assert error_of(response)["message"] == "this token is read-only"


def test_the_list_shows_own_project_and_globals_but_never_another_project(claude, codex):
    mine = create_memory(content="Alpha builds with make", project="alpha")
    theirs = create_memory(content="Beta builds with bazel", project="beta")
    shared = create_memory(content="The user prefers concise answers", category="preference")
    assert {m["id"] for m in claude.get("memories").json()["results"]} == {mine.pk, shared.pk}
    assert {m["id"] for m in codex.get("memories").json()["results"]} == {theirs.pk, shared.pk}


def test_listing_another_projects_memories_is_forbidden(claude):
    response = claude.get("memories", project="beta")
    assert response.status_code == 403


def test_the_list_filters_by_project_category_tier_status_and_tag(curator):
    a = create_memory(
        content="Alpha deploys on Fridays",
        project="alpha",
        category="decision",
        tier="semantic",
        tags=["deploy", "Ops"],
    )
    create_memory(content="Beta deploys on Mondays", project="beta", category="decision", tags=["deploy"])
    b = create_memory(
        content="Alpha CI is slow on arm", project="alpha", category="gotcha", tier="episodic", tags=["ci"]
    )
    Memory.objects.filter(pk=b.pk).update(status="archived")

    def ids(**params):
        response = curator.get("memories", **params)
        assert response.status_code == 200, response.content
        return [m["id"] for m in response.json()["results"]]

    assert ids(project="alpha") == [b.pk, a.pk]
    assert ids(project="alpha", category="decision") == [a.pk]
    assert ids(tier="episodic") == [b.pk]
    assert ids(status="archived") == [b.pk]
    assert ids(project="alpha", tag="deploy") == [a.pk]
    assert ids(tag="ops") == [a.pk]  # a whole tag, in any case
    assert ids(tag="OPS") == [a.pk]
    assert ids(tag="Ops") == [a.pk]
    assert ids(tag="dep") == []
    assert ids(tag="op") == []


def test_a_bad_list_filter_is_a_400_naming_it(curator):
    response = curator.get("memories", category="rumour")
    assert response.status_code == 400
    assert list(error_of(response)["fields"]) == ["category"]


def test_the_list_pages_with_a_cursor_without_repeats_or_gaps(curator):
    made = [
        create_memory(content=f"Service number {n} answers on port {9000 + n}", project="alpha").pk for n in range(7)
    ]
    seen, response = [], curator.get("memories", limit=3)
    pages = 0
    while True:
        body = response.json()
        seen += [m["id"] for m in body["results"]]
        pages += 1
        if not body["next"]:
            break
        response = curator.client.get(body["next"])
    assert pages == 3
    assert seen == sorted(made, reverse=True)


def test_a_forged_cursor_is_a_400_naming_it(curator):
    response = curator.get("memories", cursor="not-a-cursor")
    assert response.status_code == 400
    assert list(error_of(response)["fields"]) == ["cursor"]


def test_reading_a_memory_answers_it_and_unknown_ids_are_404(claude):
    memory = create_memory(content=FACT, project="alpha")
    response = claude.get(f"memories/{memory.pk}")
    assert response.status_code == 200
    assert response.json()["content"] == FACT
    missing = claude.get("memories/999999")
    assert missing.status_code == 404
    assert error_of(missing)["code"] == "not_found"
    assert claude.get("memories/not-a-number").status_code == 404


def test_reading_another_projects_memory_is_forbidden(codex):
    memory = create_memory(content=FACT, project="alpha")
    assert codex.get(f"memories/{memory.pk}").status_code == 404


def test_editing_changes_only_what_is_sent_and_records_history(claude):
    memory = create_memory(content=FACT, project="alpha", tags=["net"])
    response = claude.patch(
        f"memories/{memory.pk}", {"content": "The alpha service listens on port 9090", "confirmed": True}
    )
    assert response.status_code == 200
    body = response.json()
    assert body["content"] == "The alpha service listens on port 9090"
    assert body["confirmed"] is True
    assert body["tags"] == ["net"]
    memory.refresh_from_db()
    assert memory.content == "The alpha service listens on port 9090"
    event = MemoryEvent.objects.filter(memory_id=memory.pk).last()
    assert event.actor == "claude"
    assert event.before == {"content": FACT, "confirmed": False}


def test_an_edit_with_a_bad_field_or_nothing_to_change_is_a_400(claude):
    memory = create_memory(content=FACT, project="alpha")
    bad = claude.patch(f"memories/{memory.pk}", {"status": "deleted"})
    assert bad.status_code == 400
    assert list(error_of(bad)["fields"]) == ["status"]
    empty = claude.patch(f"memories/{memory.pk}", {})
    assert empty.status_code == 400
    assert "nothing to change" in error_of(empty)["message"]


def test_an_edit_may_not_bring_in_a_secret(claude):
    memory = create_memory(content=FACT, project="alpha")
    secret = "ghp_" + "a1B2c3D4e5" * 4
    response = claude.patch(f"memories/{memory.pk}", {"content": f"The deploy token is {secret}"})
    assert response.status_code == 422
    assert secret not in response.content.decode()
    assert "GitHub token" in error_of(response)["fields"]["content"][0]
    memory.refresh_from_db()
    assert memory.content == FACT


def test_editing_is_forbidden_across_projects_and_for_read_only_tokens(claude, codex, reader):
    memory = create_memory(content=FACT, project="alpha")
    assert codex.patch(f"memories/{memory.pk}", {"content": "Taken over by beta"}).status_code == 404
    assert reader.patch(f"memories/{memory.pk}", {"content": "Read-only edit"}).status_code == 403
    assert claude.patch(f"memories/{memory.pk}", {"project": "beta"}).status_code == 403
    memory.refresh_from_db()
    assert (memory.content, memory.project) == (FACT, "alpha")
    assert claude.patch("memories/999999", {"content": "Nothing here to edit"}).status_code == 404


def test_deleting_removes_the_memory_and_then_it_is_404(claude):
    memory = create_memory(content=FACT, project="alpha")
    response = claude.delete(f"memories/{memory.pk}")
    assert response.status_code == 204
    assert not Memory.objects.filter(pk=memory.pk).exists()
    assert claude.delete(f"memories/{memory.pk}").status_code == 404
    assert MemoryEvent.objects.filter(memory_id=memory.pk, action="deleted", actor="claude").exists()


def test_deleting_is_forbidden_across_projects_and_for_read_only_tokens(codex, reader):
    memory = create_memory(content=FACT, project="alpha")
    assert codex.delete(f"memories/{memory.pk}").status_code == 404
    assert reader.delete(f"memories/{memory.pk}").status_code == 403
    assert Memory.objects.filter(pk=memory.pk).exists()


def test_refresh_reinforces_the_memory(claude):
    memory = create_memory(content=FACT, project="alpha", importance=0.5)
    response = claude.post(f"memories/{memory.pk}/refresh")
    assert response.status_code == 200
    body = response.json()
    assert body["access_count"] == 1
    assert body["last_accessed_at"] is not None
    assert body["importance"] == pytest.approx(0.5 + settings.MEMORYHUB_REINFORCE_STEP)
    assert claude.post("memories/999999/refresh").status_code == 404


def test_refresh_of_another_projects_memory_is_forbidden(codex):
    memory = create_memory(content=FACT, project="alpha")
    assert codex.post(f"memories/{memory.pk}/refresh").status_code == 404
    memory.refresh_from_db()
    assert memory.access_count == 0


def test_history_lists_events_oldest_first(claude):
    memory = create_memory(content=FACT, project="alpha", source="claude")
    claude.patch(f"memories/{memory.pk}", {"tags": ["net"]})
    claude.patch(f"memories/{memory.pk}", {"importance": 0.9})
    response = claude.get(f"memories/{memory.pk}/history")
    assert response.status_code == 200
    events = response.json()["events"]
    assert [e["action"] for e in events] == ["created", "updated", "updated"]
    assert events[1]["before"] == {"tags": []} and events[1]["after"] == {"tags": ["net"]}
    assert events[2]["after"] == {"importance": 0.9}
    assert claude.get("memories/999999/history").status_code == 404


def test_history_of_another_projects_memory_is_forbidden(codex):
    memory = create_memory(content=FACT, project="alpha")
    assert codex.get(f"memories/{memory.pk}/history").status_code == 404


def test_import_stores_every_item_as_given_and_answers_ids_in_order(curator, settings):
    settings.MEMORYHUB_RESTORE_AGENTS = ["curator"]  # a restore token keeps each item's own source
    items = [
        {"content": "ok", "project": "alpha"},  # the gate would refuse this; import does not gate
        {
            "content": FACT,
            "project": "alpha",
            "source": "old-agent",
            "confirmed": True,
            "status": "archived",
            "created_at": "2024-01-02T03:04:05Z",
            "access_count": 7,
            "tags": ["net"],
        },
        {"content": FACT, "project": "alpha"},  # no merging either
    ]
    response = curator.post("memories/import", {"memories": items})
    assert response.status_code == 201
    body = response.json()
    assert body["imported"] == 3
    rows = [Memory.objects.get(pk=i) for i in body["ids"]]
    assert [r.content for r in rows] == ["ok", FACT, FACT]
    assert rows[0].source == "curator"
    assert (rows[1].source, rows[1].confirmed, rows[1].status, rows[1].access_count) == (
        "old-agent",
        True,
        "archived",
        7,
    )
    assert rows[1].created_at.isoformat() == "2024-01-02T03:04:05+00:00"
    # Each memory's history opens with its import, by whoever imported it, now (not at the memory's own date).
    events = list(MemoryEvent.objects.filter(memory_id__in=body["ids"]).order_by("memory_id"))
    assert [(e.memory_id, e.action, e.actor, e.before, e.after, e.note) for e in events] == [
        (i, "imported", "curator", None, None, "") for i in sorted(body["ids"])
    ]
    assert all(e.created_at > rows[1].created_at and e.created_at.tzinfo is not None for e in events)


def test_an_import_with_one_bad_item_stores_nothing_and_names_it(curator):
    response = curator.post("memories/import", {"memories": [{"content": FACT}, {"content": ""}]})
    assert response.status_code == 400
    fields = error_of(response)["fields"]
    assert any(name.startswith("memories") and "1" in name for name in fields), fields
    assert Memory.objects.count() == 0
    assert curator.post("memories/import", {"memories": []}).status_code == 400
    assert curator.post("memories/import", {}).status_code == 400


def test_import_is_forbidden_into_another_project_and_for_read_only_tokens(claude, reader):
    assert claude.post("memories/import", {"memories": [{"content": FACT, "project": "beta"}]}).status_code == 403
    assert reader.post("memories/import", {"memories": [{"content": FACT, "project": "alpha"}]}).status_code == 403
    assert Memory.objects.count() == 0


def test_paths_answer_with_a_trailing_slash_too(claude):
    memory = create_memory(content=FACT, project="alpha")
    assert claude.get("memories/").status_code == 200
    assert claude.get(f"memories/{memory.pk}/").status_code == 200
    assert claude.post("search/", {"query": "nginx", "project": "alpha"}).status_code == 200
