"""Shared fixtures. The real SQLite extensions and the real default embedding model are used throughout."""

from __future__ import annotations

import os

import numpy as np
import pytest

from memoryhub import embeddings


class FailingEmbedder:
    model_id = "failing"
    dimensions = 384

    def embed(self, texts: list[str]) -> np.ndarray:
        raise embeddings.EmbeddingError("the embedder is down")


def pytest_collection_modifyitems(config, items):
    """The suite runs once per store (scripts/test.sh). Tests of what only the SQLite file has (its backup file,
    FTS5's and vec0's own tables, the extension loading, the in-process vector copy PostgreSQL does not need)
    are marked `sqlite_only` and run in the SQLite pass; `postgresql_only` ones in the PostgreSQL pass."""
    from django.db import connection

    vendor = connection.vendor
    for item in items:
        if vendor != "sqlite" and item.get_closest_marker("sqlite_only"):
            item.add_marker(pytest.mark.skip(reason="SQLite's own storage; covered by the SQLite pass"))
        if vendor != "postgresql" and item.get_closest_marker("postgresql_only"):
            item.add_marker(pytest.mark.skip(reason="PostgreSQL's own storage; covered by the PostgreSQL pass"))


@pytest.fixture(autouse=True)
def _fresh_search_caches():
    """Search keeps per-process answers (word frequencies for a minute, the vector copy): each test starts
    without another test's, so no result depends on the order the tests ran in."""
    import memoryhub.retrieval.search  # noqa: F401  (registers its caches)
    from memoryhub.storage.resets import forget_store_caches

    forget_store_caches()
    yield


@pytest.fixture(autouse=True)
def _async_safety_stays_on(request):
    """DJANGO_ALLOW_ASYNC_UNSAFE belongs to the browser tests alone (tests/e2e/conftest.py sets it while Chromium is
    open). Anywhere else it would hide a synchronous ORM call made from async code, here or in the MCP and server
    subprocesses that inherit this environment."""
    if request.node.get_closest_marker("browser") is None:
        assert "DJANGO_ALLOW_ASYNC_UNSAFE" not in os.environ, "only the browser tests may run with it"


@pytest.fixture
def wsgi_transport():
    """The app called in process over HTTP (httpx), inside the test's transaction. As Django's own test client
    does, the start and end of each request do not close the test's connection: on PostgreSQL, whose connections come
    from a pool (CONN_MAX_AGE 0), closing it would end the transaction the test runs in."""
    import httpx
    from django.core.signals import request_finished, request_started
    from django.core.wsgi import get_wsgi_application
    from django.db import close_old_connections

    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    try:
        yield httpx.WSGITransport(app=get_wsgi_application())
    finally:
        for signal in (request_started, request_finished):
            signal.connect(close_old_connections)


@pytest.fixture
def wsgi_send(wsgi_transport):
    """The client package's `send` (clients/python/memoryhub_client/api.py) through the app in process."""
    import httpx

    def send(method: str, url: str, headers: dict, body: bytes | None, timeout: float) -> tuple[int, bytes]:
        with httpx.Client(transport=wsgi_transport, timeout=timeout) as http:
            response = http.request(method, url, headers=headers, content=body)
        return response.status_code, response.content

    return send


@pytest.fixture
def tuned(monkeypatch):
    """Search's tuning table (memoryhub/retrieval/tuning.py) with some values changed for one test:
    `tuned(search_pool=5)`. The vector copy's limits are constants of memoryhub/storage/vector_index.py, changed
    with monkeypatch."""
    from dataclasses import replace

    from memoryhub.retrieval import tuning

    def change(**values) -> None:
        monkeypatch.setattr(tuning, "DEFAULTS", replace(tuning.DEFAULTS, **values))

    return change


@pytest.fixture
def failing_embedder():
    previous = embeddings.get_embedder()
    embeddings.set_embedder(FailingEmbedder())
    yield
    embeddings.set_embedder(previous)


@pytest.fixture(scope="session")
def real_embedder():
    return embeddings.get_embedder()


@pytest.fixture(scope="session")
def store_template(tmp_path_factory):
    """A migrated store file made once per session; tests/live_server.migrated_store copies it."""
    from tests.live_server import make_template

    return make_template(tmp_path_factory.mktemp("store-template"))


# The API suite's agent limited to project alpha and its unscoped curator (tests/api/conftest.py makes them), for
# every suite that acts through the API; a suite with a fixture of the same name (tests/ui's curator) uses its own.
@pytest.fixture
def claude(db):
    from tests.api.conftest import make_agent

    return make_agent("claude", projects=["alpha"])


@pytest.fixture
def curator(db):
    from tests.api.conftest import make_agent

    return make_agent("curator")


@pytest.fixture
def upstream(settings):
    """The chat proxy pointed at a fake OpenAI upstream on 127.0.0.1 (tests/integrations/fake_upstream.py)."""
    from tests.integrations.fake_upstream import FakeUpstream

    with FakeUpstream() as fake:
        settings.MEMORYHUB_UPSTREAM_BASE_URL = fake.base_url
        settings.MEMORYHUB_UPSTREAM_API_KEY = "upstream-secret"
        settings.MEMORYHUB_UPSTREAM_TIMEOUT = 10.0
        yield fake
