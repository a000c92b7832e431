"""Two agents, each limited to its own project (claude: alpha, codex: beta), an unscoped curator, a read-only
reader and an anonymous client, so every read and write can be checked for isolation. `claude` and `curator` are
tests/conftest.py's, for the suites outside this one that act through the API too."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from memoryhub.agents.tokens import create_token
from memoryhub.models import ApiToken, Memory, Status


@dataclass
class AgentClient:
    name: str
    raw: str
    token: ApiToken
    client: APIClient

    def get(self, path: str, **params):
        return self.client.get(api(path), params)

    def post(self, path: str, body: dict | None = None, **kwargs):
        return self.client.post(api(path), body if body is not None else {}, format="json", **kwargs)

    def patch(self, path: str, body: dict):
        return self.client.patch(api(path), body, format="json")

    def delete(self, path: str):
        return self.client.delete(api(path))

    def store(self, content: str, **fields):
        return self.post("memories", {"content": content, **fields})


def api(path: str) -> str:
    return path if path.startswith("/") else f"/api/v1/{path}"


def make_agent(name: str, projects: list[str] | None = None, read_only: bool = False) -> AgentClient:
    token, raw = create_token(name=name, projects=projects, read_only=read_only)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return AgentClient(name=name, raw=raw, token=token, client=client)


def write(agent: AgentClient, content: str, project: str = "alpha", **fields) -> dict:
    """The gate's answer to a write through the API: stored or folded (200 or 201), never refused."""
    response = agent.store(content, project=project, **fields)
    assert response.status_code in (200, 201), response.json()
    return response.json()


def in_the_store(detail: str, project: str = "alpha") -> bool:
    """Whether an active memory of the project says `detail` (in any case)."""
    texts = Memory.objects.filter(project=project, status=Status.ACTIVE).values_list("content", flat=True)
    return any(detail.lower() in text.lower() for text in texts)


@pytest.fixture(autouse=True)
def _fresh_turn_counters():
    cache.clear()  # the per-turn tool-call guard lives in the cache
    yield
    cache.clear()


@pytest.fixture
def codex(db) -> AgentClient:
    return make_agent("codex", projects=["beta"])


@pytest.fixture
def reader(db) -> AgentClient:
    return make_agent("reader", read_only=True)


@pytest.fixture
def anon(db) -> APIClient:
    return APIClient()


def error_of(response) -> dict:
    """The one error shape: {"error": {"code", "message", "fields"}}."""
    body = response.json()
    assert set(body["error"]) == {"code", "message", "fields"}, body
    return body["error"]
