"""SIGKILL in the middle of a bulk import: after a restart the store is sound, every acknowledged write is there,
and the import that was cut off left all of its memories or none (the API imports all or nothing)."""

from __future__ import annotations

import threading
import time

import httpx

from memoryhub.memories.health import run_checks
from memoryhub.storage.backend.driver import connect as driver_connect
from tests.live_server import LiveServer, create_token, migrated_store

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
        conn = driver_connect(str(db))
        try:
            report = run_checks(conn)
            stored = dict(conn.execute("SELECT id, content FROM memoryhub_memory").fetchall())
            batch_rows = dict(
                conn.execute(
                    "SELECT json_extract(metadata, '$.batch'), count(*) FROM memoryhub_memory GROUP BY 1"
                ).fetchall()
            )
        finally:
            conn.close()
        print(
            f"crash: {len(acknowledged)} acknowledged, {report.rows} rows after restart; " + "; ".join(report.lines())
        )
        # The request that was cut off is all there (it committed, the answer was lost) or not there at all.
        assert set(batch_rows.values()) == {BATCH}, batch_rows
        assert report.rows - len(acknowledged) in (0, BATCH)
        assert report.integrity == ["ok"]
        assert report.fts_errors == {}
        assert report.ok, report.lines()
        assert report.rows == report.fts == report.trigram == report.vectors
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
