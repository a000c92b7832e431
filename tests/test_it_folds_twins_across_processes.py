"""Four server processes on one store, eight agents sending the same facts to them at once: each fact is stored
once, on SQLite and on PostgreSQL alike.

Within a process the write gate's lock orders writes; across processes only the database can (SQLite's write
lock, PostgreSQL's advisory lock), so the gate looks for a twin inside a transaction that holds it."""

from __future__ import annotations

import threading

import httpx

from tests.live_server import LiveServer, create_token, migrated_store

SERVICES = ["billing", "search", "ingest", "checkout", "reporting", "media", "auth", "export", "catalog", "mail"]
FACTS = [f"The {name} service listens on port {8100 + n} inside the cluster" for n, name in enumerate(SERVICES)]


def test_four_processes_never_store_the_same_fact_twice(store_template, tmp_path):
    db = migrated_store(store_template, tmp_path)
    token = create_token(db, "twins")
    answers: list[int] = []
    servers = [LiveServer(db, threads=4) for _ in range(4)]
    for server in servers:
        server.start()
    try:
        urls = [server.url for server in servers] * 2  # eight agents, two on each process
        start = threading.Barrier(len(urls))

        def agent(url: str) -> None:
            with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=120) as http:
                start.wait()
                for fact in FACTS:
                    answers.append(http.post("/api/v1/memories", json={"content": fact, "project": "p"}).status_code)

        agents = [threading.Thread(target=agent, args=(url,)) for url in urls]
        for thread in agents:
            thread.start()
        for thread in agents:
            thread.join(timeout=300)
        with httpx.Client(base_url=servers[3].url, headers={"Authorization": f"Bearer {token}"}, timeout=60) as http:
            listed = http.get("/api/v1/memories", params={"project": "p", "limit": 100}).json()
    finally:
        for server in servers:
            server.stop()

    assert len(answers) == 8 * len(FACTS)
    assert sorted(set(answers)) == [200, 201] and answers.count(201) == len(FACTS)
    stored = [item["content"] for item in listed["results"] if item["project"] == "p"]
    assert sorted(stored) == sorted(FACTS)
