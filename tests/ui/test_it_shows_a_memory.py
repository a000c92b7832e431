"""A memory's page: every field, its history with before and after, and its nearest neighbours."""

from __future__ import annotations

from memoryhub.memories.store import update_memory
from tests.ui.conftest import remember


def test_it_shows_every_field(ui, store):
    memory = remember(
        "Releases are tagged vX.Y.Z and built by CI",
        project="alpha",
        category="skill",
        tier="procedural",
        tags=["release"],
        metadata={"file": "RELEASING.md"},
        importance=0.7,
    )
    html = ui.get(f"/memories/{memory.pk}/").content.decode()
    for text in [
        "Releases are tagged vX.Y.Z and built by CI",
        "alpha",
        "skill",
        "procedural",
        ">release<",
        "claude",
        "RELEASING.md",
        "all-MiniLM-L6-v2",
        "0.700",
        "Created",
        "Updated",
        "Used",
    ]:
        assert text in html, text


def test_it_shows_the_history_with_who_changed_what(ui, store):
    memory = store["deploy"]
    update_memory(
        memory=memory, changes={"content": "Deploys run through Jenkins"}, actor="ui:someone", action="edited"
    )
    html = ui.get(f"/memories/{memory.pk}/").content.decode()
    assert html.index(">created<") < html.index(">edited<")
    assert "by ui:someone" in html
    assert "<del>Deploys run through GitHub Actions to Fly.io</del>" in html
    assert "<ins>Deploys run through Jenkins</ins>" in html


def test_it_lists_the_most_similar_memories_first(ui, store):
    twin = remember("GitHub Actions deploys the app to Fly.io", project="alpha")
    html = ui.get(f"/memories/{store['deploy'].pk}/").content.decode()
    similar = html[html.index('id="similar-h"') :]
    assert f'href="/memories/{twin.pk}/"' in similar
    assert similar.index(f"#{twin.pk}<") < similar.index(f"#{store['editor'].pk}<")
    assert f'href="/memories/{store["deploy"].pk}/"' not in similar  # not itself


def test_a_merged_memory_offers_the_undo(ui, store):
    from memoryhub.consolidation.proposals import merge_memories

    b = remember("Every list endpoint pages with a cursor", project="alpha")
    merged = merge_memories(memory_ids=[store["pagination"].pk, b.pk], content="Lists page with cursors", actor="t")
    html = ui.get(f"/memories/{merged.pk}/").content.decode()
    assert "Undo merge" in html
    assert f'href="/memories/{b.pk}/"' in html  # merged from
    source = ui.get(f"/memories/{b.pk}/").content.decode()
    assert f'merged into <a href="/memories/{merged.pk}/"' in source
