"""Two server processes on one store, agents sending the same facts to both at once: each fact is stored once.

Within a process the write gate's lock orders writes; across processes only SQLite's write lock can, so the
gate looks for a twin inside the write transaction."""

from __future__ import annotations

import threading

import httpx

from memoryhub.storage.backend.driver import connect as driver_connect
from tests.live_server import LiveServer, create_token, migrated_store

SERVICES = ["billing", "search", "ingest", "checkout", "reporting", "media", "auth", "export", "catalog", "mail"]
FACTS = [f"The {name} service listens on port {8100 + n} inside the cluster" for n, name in enumerate(SERVICES)]


def test_two_processes_never_store_the_same_fact_twice(store_template, tmp_path):
    db = migrated_store(store_template, tmp_path)
    token = create_token(db, "twins")
    answers: list[int] = []
    with LiveServer(db, threads=4) as first, LiveServer(db, threads=4) as second:
        urls = [first.url, second.url] * 2
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

    assert sorted(set(answers)) == [200, 201] and answers.count(201) == len(FACTS)
    conn = driver_connect(str(db))
    try:
        stored = [row[0] for row in conn.execute("SELECT content FROM memoryhub_memory WHERE project = 'p'")]
    finally:
        conn.close()
    assert sorted(stored) == sorted(FACTS)
