"""`serve --workers N`: N processes answer on one port, see each other's writes, and stop together on SIGTERM,
writing the bookkeeping they still held; a worker that dies at start stops the server and is named."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import httpx
import pytest

from memoryhub.runtime import prefork
from tests.live_server import LiveServer, create_token, migrated_store, query_store


def children_of(pid: int) -> set[int]:
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    state = Path(f"/proc/{pid}/stat")
    return state.exists() and state.read_text().rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds the worker processes through /proc")
def test_two_workers_answer_share_the_store_and_stop_together(store_template, tmp_path):
    db = migrated_store(store_template, tmp_path)
    server = LiveServer(db, threads=4, workers=2).start()
    try:
        workers = children_of(server.process.pid)
        assert len(workers) == 2
        token = create_token(db, "agent-1")
        with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=60) as http:
            written = http.post("/api/v1/memories", json={"content": "The nightly export runs at 02:00 UTC"})
            assert written.status_code == 201
            memory_id = written.json()["memory"]["id"]
            # New connections spread over the workers; whichever answers sees the write.
            for _ in range(6):
                with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}) as fresh:
                    found = fresh.post("/api/v1/search", json={"query": "when does the nightly export run"})
                    assert found.status_code == 200
                    assert [hit["id"] for hit in found.json()["results"]][:1] == [memory_id]
    finally:
        server.process.send_signal(signal.SIGTERM)
        code = server.process.wait(timeout=60)
    assert code == 0, server.log()
    assert not [pid for pid in workers if alive(pid)]
    assert "Traceback" not in server.log()

    # The searches' bookkeeping, written after each answer, was all written before the workers exited.
    ((searches,),) = query_store(db, "SELECT count(*) FROM memoryhub_usagerecord WHERE kind = 'search'")
    ((uses,),) = query_store(db, f"SELECT access_count FROM memoryhub_memory WHERE id = {int(memory_id)}")
    assert (searches, uses) == (6, 6)


def test_a_worker_that_dies_at_start_stops_the_server_and_is_named():
    def run_worker(index: int) -> None:
        if index == 0:
            sys.exit(3)
        time.sleep(120)  # the other worker serves until the parent stops it

    reports: list[str] = []
    code = prefork.Prefork(2, run_worker, report=reports.append).run()
    assert code == 1
    assert reports[0].startswith("worker 0 (pid ") and "exited with code 3" in reports[0]
    assert "stopping the server" in reports[1]


def test_a_worker_killed_while_holding_the_write_turn_does_not_hold_the_others(tmp_path):
    path = str(tmp_path / "turn")
    ready_read, ready_write = os.pipe()
    pid = os.fork()
    if pid == 0:  # a worker that takes the turn and is killed holding it
        try:
            with prefork.SharedLock(path):
                os.write(ready_write, b"1")
                time.sleep(120)
        finally:
            os._exit(0)
    assert os.read(ready_read, 1) == b"1"
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    with prefork.SharedLock(path):  # the kernel dropped the dead worker's lock
        pass
