"""GET /export: JSON lines and Markdown of everything the token may see; export then import round-trips."""

from __future__ import annotations

import json

import pytest

from memoryhub.memories.store import create_memory, reinforce
from memoryhub.models import Memory
from tests.api.conftest import error_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def store(db):
    a = create_memory(
        content="Alpha deploys with make deploy",
        project="alpha",
        category="skill",
        tier="procedural",
        tags=["deploy"],
        metadata={"file": "Makefile"},
        importance=0.7,
        confirmed=True,
        source="claude",
    )
    b = create_memory(content="Alpha used to deploy with fabric", project="alpha", category="fact", source="claude")
    Memory.objects.filter(pk=b.pk).update(status="archived", merged_into=a)
    reinforce(memory_ids=[a.pk])
    g = create_memory(content="The user prefers concise answers", category="preference", source="curator")
    z = create_memory(content="Beta deploys with helm", project="beta", category="skill", source="codex")
    return {"a": a, "b": b, "g": g, "z": z}


def lines(response) -> list[dict]:
    return [json.loads(line) for line in b"".join(response.streaming_content).decode().splitlines()]


def test_jsonl_is_the_default_with_one_memory_per_line(curator, store):
    response = curator.get("export")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/x-ndjson"
    exported = lines(response)
    assert [m["id"] for m in exported] == sorted(m.pk for m in store.values())
    assert exported[0]["metadata"] == {"file": "Makefile"}


def test_a_project_token_exports_its_project_and_globals_only(claude, store):
    ids = {m["id"] for m in lines(claude.get("export", format="jsonl"))}
    assert ids == {store["a"].pk, store["b"].pk, store["g"].pk}


def test_markdown_is_grouped_by_project_then_category(claude, store):
    response = claude.get("export", format="markdown")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/markdown")
    text = response.content.decode()
    assert text.index("## Global") < text.index("### Preference") < text.index("## alpha")
    assert text.index("## alpha") < text.index("### Fact") < text.index("### Skill")
    assert "- Alpha deploys with make deploy (#" in text
    assert "Beta" not in text


def test_an_unknown_format_is_a_400(curator):
    response = curator.get("export", format="xml")
    assert response.status_code == 400
    assert list(error_of(response)["fields"]) == ["format"]


def test_export_then_import_round_trips_every_field(curator, store, settings):
    settings.MEMORYHUB_RESTORE_AGENTS = ["curator"]  # a restore token keeps each item's own source
    exported = lines(curator.get("export"))
    before = {m["content"]: m for m in exported}
    Memory.objects.all().delete()
    response = curator.post("memories/import", {"memories": exported})
    assert response.status_code == 201
    ids = response.json()["ids"]
    after = {m["content"]: m for m in lines(curator.get("export"))}
    assert set(after) == set(before)
    old_to_new = dict(zip([m["id"] for m in exported], ids, strict=True))
    for content, old in before.items():
        new = after[content]
        assert new["id"] == old_to_new[old["id"]]
        assert new["merged_into"] == (old_to_new[old["merged_into"]] if old["merged_into"] else None)
        # effective_importance is computed at read time: a few milliseconds later it may differ in the last digit.
        assert new["effective_importance"] == pytest.approx(old["effective_importance"], abs=1e-5)
        same = {k: v for k, v in old.items() if k not in ("id", "merged_into", "effective_importance")}
        assert {k: new[k] for k in same} == same, content


def test_an_import_that_fails_partway_stores_nothing_and_can_simply_be_sent_again(curator):
    from memoryhub import embeddings

    real = embeddings.get_embedder()

    class FailsOnTheSecondBatch:
        model_id, dimensions, calls = real.model_id, real.dimensions, 0

        def embed(self, texts):
            self.calls += 1
            if self.calls == 2:
                raise embeddings.EmbeddingError("the embedder went away mid-import")
            return real.embed(texts)

    items = [{"content": f"Imported fact number {n} about the queue", "project": "p"} for n in range(600)]
    embeddings.set_embedder(FailsOnTheSecondBatch())  # the import embeds 512 at a time
    try:
        failed = curator.post("memories/import", {"memories": items})
    finally:
        embeddings.set_embedder(real)
    assert failed.status_code == 503, failed.content
    assert Memory.objects.count() == 0
    again = curator.post("memories/import", {"memories": items})
    assert again.status_code == 201 and len(again.json()["ids"]) == 600
    assert Memory.objects.count() == 600
