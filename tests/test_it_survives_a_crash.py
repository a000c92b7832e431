"""SIGKILL in the middle of a bulk import: after a restart the store is sound, every acknowledged write is there,
and the import that was cut off left all of its memories or none (the API imports all or nothing)."""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter

import httpx

from tests.live_server import LiveServer, check_store, create_token, migrated_store, query_store

WORKERS = ("alpha", "beta", "gamma")
BATCH = 128  # two of import_memories' 64-row batches: one request, one transaction


def batch(number: int) -> list[dict]:
    return [
        {
            "content": f"Import batch {number} item {i}: the {WORKERS[i % 3]} worker reads queue q{i}",
            "project": "crash",
            "tags": ["import", f"batch-{number}"],
            "metadata": {"batch": number, "item": i},
        }
        for i in range(BATCH)
    ]


class Importer(threading.Thread):
    """Posts import batches back to back until the server stops answering; keeps what was acknowledged."""

    def __init__(self, url: str, token: str):
        super().__init__(daemon=True)
        self.url, self.token = url, token
        self.acknowledged: dict[int, str] = {}
        self.batches_done = 0
        self.progress = threading.Condition()
        self.in_flight = threading.Event()
        self.failure: str | None = None

    def run(self) -> None:
        with httpx.Client(base_url=self.url, headers={"Authorization": f"Bearer {self.token}"}, timeout=120) as http:
            number = 0
            while True:
                items = batch(number)
                self.in_flight.set()
                try:
                    response = http.post("/api/v1/memories/import", json={"memories": items})
                except httpx.HTTPError:
                    break  # the server is gone: this batch was never acknowledged
                finally:
                    self.in_flight.clear()
                if response.status_code not in (200, 201):
                    self.failure = f"{response.status_code} {response.text[:300]}"
                    break
                ids = response.json()["ids"]
                with self.progress:
                    self.acknowledged.update(zip(ids, (item["content"] for item in items), strict=True))
                    self.batches_done += 1
                    self.progress.notify_all()
                number += 1

    def wait_for_batches(self, count: int) -> None:
        with self.progress:
            assert self.progress.wait_for(lambda: self.batches_done >= count or self.failure, timeout=180)
        assert self.failure is None, self.failure


def kill_mid_request(server: LiveServer, importer: Importer) -> bool:
    """SIGKILL while a request is in flight, at moments spread over it: embedding, inserting, or just committed."""
    for delay in (0.05, 0.15, 0.3, 0.5, 0.8) * 20:
        if not importer.in_flight.wait(timeout=60):
            return False
        time.sleep(delay)
        if importer.in_flight.is_set():
            server.kill()
            return True
    return False


def test_a_server_killed_mid_import_restarts_with_a_sound_store_and_every_acknowledged_write(store_template, tmp_path):
    db = migrated_store(store_template, tmp_path)
    token = create_token(db, "importer")
    server = LiveServer(db, threads=4).start()
    importer = Importer(server.url, token)
    try:
        importer.start()
        importer.wait_for_batches(3)
        assert kill_mid_request(server, importer)
        importer.join(timeout=60)
    finally:
        server.stop()
    acknowledged = importer.acknowledged
    assert len(acknowledged) >= 3 * BATCH

    restarted = LiveServer(db, threads=4).start()
    try:
        checked = check_store(db)
        rows = query_store(db, "SELECT id, content, metadata FROM memoryhub_memory")
        stored = {mid: content for mid, content, _ in rows}
        batch_rows = Counter((m if isinstance(m, dict) else json.loads(m)).get("batch") for _, _, m in rows)
        print(f"crash: {len(acknowledged)} acknowledged, {len(rows)} rows after restart; {checked}")
        # The request that was cut off is all there (it committed, the answer was lost) or not there at all.
        assert set(batch_rows.values()) == {BATCH}, batch_rows
        assert len(rows) - len(acknowledged) in (0, BATCH)
        assert "integrity_check: ok" in checked and "store ok" in checked
        counts = re.search(
            r"counts: (\d+) memories, (\d+) keyword entries, (\d+) trigram entries, (\d+) vectors", checked
        )
        assert counts and set(counts.groups()) == {str(len(rows))}, checked
        assert {i: stored.get(i) for i in acknowledged} == acknowledged

        # And the restarted server takes writes and finds them.
        with httpx.Client(base_url=restarted.url, headers={"Authorization": f"Bearer {token}"}) as http:
            written = http.post(
                "/api/v1/memories",
                json={
                    "content": "After the crash the importer resumes from the last acknowledged batch",
                    "project": "crash",
                },
            )
            assert written.status_code == 201, written.text
            found = http.post("/api/v1/search", json={"query": "importer resumes after the crash", "project": "crash"})
            assert found.status_code == 200
            assert written.json()["memory"]["id"] in [r["id"] for r in found.json()["results"]]
    finally:
        restarted.stop()
