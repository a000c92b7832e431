"""`MemoryHubStore` is LangGraph's long-term memory over the REST API of a real server (the real model): put, get,
search by meaning within a namespace, filters, replace and delete, namespaces listed; sync and async alike."""

from __future__ import annotations

import asyncio

import pytest

from memoryhub.integrations.langgraph import MemoryHubError, MemoryHubStore
from tests.live_server import LiveServer, create_token, migrated_store

pytest.importorskip("langgraph")  # the optional extra; installed by requirements-dev.txt, so this runs in the suite

FACTS = {
    (("shop", "alice"), "diet"): {"content": "Alice is vegetarian and never eats meat", "kind": "food"},
    (("shop", "alice"), "editor"): {"content": "Alice writes code in Neovim with a dark theme", "kind": "tools"},
    (("shop", "bob"), "diet"): {"content": "Bob is allergic to peanuts", "kind": "food"},
    (("blog", "carol"), "style"): {"tone": "short sentences", "person": "carol"},  # no text field: stored as JSON
}


@pytest.fixture(scope="module")
def server(store_template, tmp_path_factory):
    db = migrated_store(store_template, tmp_path_factory.mktemp("langgraph"))
    with LiveServer(db) as live:
        yield live, create_token(db, "langgraph-agent")


def test_a_round_trip_sync(server):
    live, token = server
    with MemoryHubStore(live.url, token=token) as store:
        for (namespace, key), value in FACTS.items():
            store.put(namespace, key, value)

        got = store.get(("shop", "alice"), "diet")
        assert got is not None and got.value == FACTS[(("shop", "alice"), "diet")]
        assert (got.namespace, got.key) == (("shop", "alice"), "diet")
        assert store.get(("shop", "alice"), "nothing") is None
        assert store.get(("blog", "carol"), "style").value == {"tone": "short sentences", "person": "carol"}

        # By meaning: no word of the query is in the memory ("eat" is, "food" and "diet" are not).
        hits = store.search(("shop", "alice"), query="which food does she avoid?")
        assert [h.key for h in hits][:1] == ["diet"]
        assert all(h.namespace == ("shop", "alice") for h in hits) and hits[0].score > 0
        across = store.search(("shop",), query="allergies to nuts", limit=1)
        assert [(h.namespace, h.key) for h in across] == [(("shop", "bob"), "diet")]
        everywhere = store.search((), query="how carol likes her sentences", limit=1)  # every project searched
        assert [(h.namespace, h.key) for h in everywhere] == [(("blog", "carol"), "style")]
        assert {h.namespace for h in store.search(("shop",), filter={"kind": "food"})} == {
            ("shop", "alice"),
            ("shop", "bob"),
        }
        assert [h.key for h in store.search(("shop", "alice"), query="meals", filter={"kind": "tools"})] == ["editor"]

        store.put(("shop", "alice"), "diet", {"content": "Alice is vegan since 2024", "kind": "food"})
        replaced = store.get(("shop", "alice"), "diet")
        assert replaced.value["content"] == "Alice is vegan since 2024"
        assert replaced.created_at == got.created_at  # the item's first put, kept across replacements
        assert len(store.search(("shop", "alice"))) == 2  # replaced, not added

        assert store.list_namespaces() == [("blog", "carol"), ("shop", "alice"), ("shop", "bob")]
        assert store.list_namespaces(prefix=("shop",)) == [("shop", "alice"), ("shop", "bob")]
        assert store.list_namespaces(suffix=("carol",)) == [("blog", "carol")]
        assert store.list_namespaces(max_depth=1) == [("blog",), ("shop",)]

        store.delete(("shop", "bob"), "diet")
        assert store.get(("shop", "bob"), "diet") is None
        assert store.list_namespaces(prefix=("shop",)) == [("shop", "alice")]

        with pytest.raises(MemoryHubError, match="422"):
            store.put(("shop", "alice"), "key", {"content": "the deploy key is AKIAIOSFODNN7EXAMPLE"})


def test_a_round_trip_async_in_one_fixed_project(server):
    live, token = server

    async def round_trip() -> None:
        store = MemoryHubStore(live.url, token=token, project="agents")
        await store.aput(("users", "dave"), "home", {"content": "Dave lives in Lisbon and works remotely"})
        await store.aput(("users", "erin"), "home", {"content": "Erin commutes to the Berlin office by bike"})
        got = await store.aget(("users", "dave"), "home")
        assert got.value["content"] == "Dave lives in Lisbon and works remotely"
        hits = await store.asearch(("users",), query="which city in Portugal", limit=1)
        assert [(h.namespace, h.key) for h in hits] == [(("users", "dave"), "home")]
        assert await store.alist_namespaces() == [("users", "dave"), ("users", "erin")]
        await store.adelete(("users", "dave"), "home")
        assert await store.aget(("users", "dave"), "home") is None
        assert await store.alist_namespaces() == [("users", "erin")]
        store.close()

    asyncio.run(round_trip())
    # The fixed project holds them; the sync store without one sees them too, under their own namespace.
    with MemoryHubStore(live.url, token=token) as anywhere:
        assert ("users", "erin") in anywhere.list_namespaces()


def test_the_documented_agent_remembers_across_runs(server, tmp_path):
    import os
    import re
    import subprocess
    import sys
    from pathlib import Path

    live, token = server
    docs = (Path(__file__).resolve().parents[2] / "docs" / "integrations.md").read_text()
    example = re.search(r"<!-- langgraph-example:.*?-->\n```python\n(.*?)```", docs, re.S).group(1)
    script = tmp_path / "agent.py"
    script.write_text(example)
    env = {**os.environ, "MEMORYHUB_URL": live.url, "MEMORYHUB_TOKEN": token,
           "PYTHONPATH": str(Path(__file__).resolve().parents[2])}  # fmt: skip

    def run(message: str) -> str:
        done = subprocess.run([sys.executable, str(script), message], env=env, capture_output=True, text=True,
                              timeout=120)  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    assert run("remember: I am vegetarian and never eat meat") == "What I remember about alice: nothing yet"
    # A second run, a new process: what the first one kept comes back for a question that names none of its words.
    assert run("what should I order for dinner tonight?") == (
        "What I remember about alice: I am vegetarian and never eat meat"
    )
