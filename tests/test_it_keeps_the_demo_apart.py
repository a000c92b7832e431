"""Demo data stays apart from the user's own: seeded into an empty store only, into its own demo projects (never
global), tagged demo, shown by a banner on the dashboard and removable in one step (`seed_demo --remove`, the
banner's button), leaving no trace in search or recall."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from memoryhub.memories.demo import DEMO_MEMORIES, DEMO_PROJECTS, demo_memories, remove_demo, seed_demo
from memoryhub.models import Memory
from memoryhub.retrieval.recall import build_recall
from memoryhub.retrieval.search import MemoryFilter, search_memories
from memoryhub.writes.gate import gate_write

pytestmark = pytest.mark.django_db
OWN_FACT = "The webshop sends order mails through Postmark templates."


def command(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_the_demo_goes_into_its_own_projects_tagged_demo_and_never_global():
    ids = seed_demo()
    assert len(ids) == len(DEMO_MEMORIES) == 20
    memories = list(Memory.objects.all())
    assert {m.project for m in memories} == set(DEMO_PROJECTS)
    assert all("demo" in m.tags and m.source == "demo" for m in memories)
    assert not Memory.objects.filter(project__isnull=True).exists()


def test_a_store_with_memories_gets_no_demo():
    gate_write(content=OWN_FACT, project="webshop", source="claude")
    assert seed_demo() is None
    assert "nothing seeded" in command("seed_demo")
    assert not demo_memories().exists()


def test_the_recall_of_the_users_own_project_holds_no_demo_memory():
    seed_demo()
    assert build_recall(project="webshop", query="which editor and python does the user use?").memory_ids == []
    gate_write(content=OWN_FACT, project="webshop", source="claude")
    block = build_recall(project="webshop", query="how are order mails sent?")
    assert [Memory.objects.get(pk=i).project for i in block.memory_ids] == ["webshop"]


def test_removing_the_demo_leaves_no_demo_memory_and_no_trace_in_search():
    seed_demo()
    gate_write(content=OWN_FACT, project="webshop", source="claude")
    within = MemoryFilter(visible_from="demo-shopfront", allowed_projects=None)
    assert search_memories(query="Stripe Checkout PCI scope", within=within, k=5)

    out = command("seed_demo", "--remove")

    assert out == "Removed 20 demo memories.\n"
    assert demo_memories().count() == 0
    assert list(Memory.objects.values_list("content", flat=True)) == [OWN_FACT]
    assert search_memories(query="Stripe Checkout PCI scope", within=within, k=5) == []


def test_remove_also_takes_the_global_demo_memories_an_older_version_seeded():
    from memoryhub.memories.store import import_memories

    legacy = [{k: v for k, v in item.items() if k != "project"} for item in DEMO_MEMORIES[:5]]
    import_memories(items=legacy, source="demo", actor="seed_demo")
    gate_write(content="The user prefers tabs over spaces in Go files.", source="claude")  # the user's own global

    assert remove_demo(actor="test") == 5
    assert list(Memory.objects.values_list("content", flat=True)) == ["The user prefers tabs over spaces in Go files."]


def test_the_first_run_says_how_to_start_without_the_demo_and_how_to_remove_it():
    out = command("bootstrap")
    assert "Seeded 20 demo memories into the projects demo-shopfront and demo-ingest-cli" in out
    assert "seed_demo --remove" in out and "bash scripts/run.sh --no-demo" in out
    assert ".venv/bin/python manage.py" in out and "(python manage.py" not in out
    again = command("bootstrap")
    assert "Demo data is still here; remove it with `.venv/bin/python manage.py seed_demo --remove`." in again


def test_no_demo_means_an_empty_store():
    command("bootstrap", "--no-demo")
    assert not Memory.objects.exists()
