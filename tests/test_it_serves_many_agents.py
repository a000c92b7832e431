"""Several agents writing and searching at once against the real server: no lock errors, no 500, no lost write."""

from __future__ import annotations

import threading

import httpx
import pytest

from tests.live_server import LiveServer, check_store, create_token, migrated_store

AGENTS = 6
CALLS = 20
TOPICS = [
    "the staging cluster",
    "the billing webhook",
    "the search index",
    "the nightly export",
    "the login page",
    "the mobile release",
]
ACTIONS = [
    "is rebuilt on Sundays",
    "needs the VPN",
    "retries failed calls twice",
    "logs to the audit table",
    "is owned by the platform team",
    "runs on Python 3.12",
    "reads its secrets from Vault",
]


def content_for(agent: int, n: int) -> str:
    # Distinct facts, so the write gate creates each instead of folding them together.
    topic, action = TOPICS[(agent + n) % len(TOPICS)], ACTIONS[n % len(ACTIONS)]
    return f"Agent {agent} learned that {topic} {action} (ticket {agent}{n:03d})"


class Agent(threading.Thread):
    def __init__(self, number: int, url: str, token: str):
        super().__init__()
        self.number, self.url, self.token = number, url, token
        self.acknowledged: dict[int, str] = {}
        self.answers: list[tuple[str, int, str]] = []  # (operation, status, body)

    def run(self) -> None:
        headers = {"Authorization": f"Bearer {self.token}"}
        with httpx.Client(base_url=self.url, headers=headers, timeout=120) as http:
            for n in range(CALLS):
                if n % 3 == 0:
                    content = content_for(self.number, n)
                    response = http.post("/api/v1/memories", json={"content": content, "project": "shared"})
                    self.answers.append(("write", response.status_code, response.text))
                    if response.status_code == 201:
                        self.acknowledged[response.json()["memory"]["id"]] = content
                else:
                    query = f"{TOPICS[n % len(TOPICS)]} {ACTIONS[(n + self.number) % len(ACTIONS)]}"
                    response = http.post("/api/v1/search", json={"query": query, "project": "shared", "k": 5})
                    self.answers.append(("search", response.status_code, response.text))


@pytest.fixture
def server(store_template, tmp_path):
    db = migrated_store(store_template, tmp_path)
    with LiveServer(db, threads=6) as live:
        yield live


def test_six_agents_writing_and_searching_at_once_all_succeed_and_nothing_is_lost(server):
    token = create_token(server.db, "swarm")
    agents = [Agent(i, server.url, token) for i in range(AGENTS)]
    for agent in agents:
        agent.start()
    for agent in agents:
        agent.join(timeout=600)

    answers = [a for agent in agents for a in agent.answers]
    assert len(answers) == AGENTS * CALLS
    assert [a for a in answers if "database is locked" in a[2]] == []
    assert [a for a in answers if a[1] >= 500] == []
    assert {(op, status) for op, status, _ in answers} == {("write", 201), ("search", 200)}

    acknowledged = {i: c for agent in agents for i, c in agent.acknowledged.items()}
    assert len(acknowledged) == AGENTS * len(range(0, CALLS, 3))
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}) as http:
        stored = {i: http.get(f"/api/v1/memories/{i}").json().get("content") for i in acknowledged}
    assert stored == acknowledged

    assert "store ok" in check_store(server.db)
    assert "database is locked" not in server.log()
    assert "Traceback" not in server.log()
