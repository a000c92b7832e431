"""Before the service trusts a store it checks the store's vector extension, and a broken one is one line, not a
500: on PostgreSQL a role that may not create pgvector, and a server whose backend dies while pgvector builds an
HNSW index (what a pgvector compiled for newer CPU instructions does), stood in for by a proxy that cuts the
connection when the index is built."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connection

from bench.processes import free_port
from memoryhub.storage import sql

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.django_db
def test_the_configured_store_passes():
    assert sql.extension_problem() is None


def _admin_params() -> dict:
    params = connection.get_connection_params()
    params["dbname"] = "postgres"
    return params


@pytest.fixture
def database_without_pgvector() -> Iterator[str]:
    """A database owned by a role that is not a superuser, so it may not create the `vector` extension."""
    import psycopg

    name = f"novector_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(**_admin_params(), autocommit=True) as admin:
        admin.execute(f"CREATE ROLE {name} LOGIN")
        admin.execute(f"CREATE DATABASE {name} OWNER {name}")
    settings = connection.settings_dict
    host = settings["HOST"]
    where = f"?host={host}" if host.startswith("/") else ""
    authority = "" if host.startswith("/") else f"{host}:{settings['PORT'] or 5432}"
    yield f"postgresql://{name}:@{authority}/{name}{where}"
    with psycopg.connect(**_admin_params(), autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        admin.execute(f"DROP ROLE IF EXISTS {name}")


def _manage(*args: str, url: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "MEMORYHUB_DATABASE_URL": url}
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.postgresql_only
@pytest.mark.slow
def test_check_and_serve_say_in_one_line_that_pgvector_cannot_be_created(database_without_pgvector):
    from memoryhub.storage.postgres.probe import vector_extension_problem

    problem = vector_extension_problem(database_without_pgvector)
    assert problem is not None
    assert "CREATE EXTENSION vector" in problem and "\n" not in problem
    serve_args = ("serve", "--port", str(free_port()), "--no-preload")
    for args in (("check",), serve_args, ("migrate", "--noinput")):
        result = _manage(*args, url=database_without_pgvector)
        assert result.returncode != 0, args
        assert "CREATE EXTENSION vector" in result.stderr, (args, result.stderr)
        assert "Traceback" not in result.stderr, (args, result.stderr)
    serve = _manage(*serve_args, url=database_without_pgvector)
    assert serve.stderr.strip().count("\n") == 0, serve.stderr


class _CuttingProxy:
    """A TCP stand-in for a PostgreSQL whose backend crashes building an HNSW index: it relays bytes to the real
    server and drops both sides of a connection as soon as the client sends a statement that builds one."""

    def __init__(self, target: tuple[str, int] | str, *, cut_on: bytes) -> None:
        self.target = target
        self.cut_on = cut_on
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.cut = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _connect_upstream(self) -> socket.socket:
        if isinstance(self.target, str):
            upstream = socket.socket(socket.AF_UNIX)
            upstream.connect(self.target)
            return upstream
        return socket.create_connection(self.target)

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = self._connect_upstream()
            threading.Thread(target=self._relay, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._relay, args=(upstream, client, False), daemon=True).start()

    def _relay(self, source: socket.socket, sink: socket.socket, from_client: bool) -> None:
        try:
            while chunk := source.recv(65536):
                if from_client and self.cut_on and self.cut_on in chunk:
                    self.cut.set()
                    break
                sink.sendall(chunk)
        except OSError:
            pass
        for side in (source, sink):
            try:
                side.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            side.close()

    def close(self) -> None:
        self.listener.close()


def _probe_through_proxy(*, cut_on: bytes) -> tuple[str | None, bool]:
    from memoryhub.storage.postgres.probe import vector_extension_problem

    settings = connection.settings_dict
    host = settings["HOST"]
    port = int(settings["PORT"] or 5432)
    target = f"{host}/.s.PGSQL.{port}" if host.startswith("/") else (host, port)
    proxy = _CuttingProxy(target, cut_on=cut_on)
    try:
        params = {**connection.get_connection_params(), "host": "127.0.0.1", "port": proxy.port}
        return vector_extension_problem(**params), proxy.cut.is_set()
    finally:
        proxy.close()


@pytest.mark.postgresql_only
def test_a_backend_that_dies_building_the_index_is_named_as_the_cause():
    problem, cut = _probe_through_proxy(cut_on=b"USING hnsw")
    assert cut
    assert problem is not None and "\n" not in problem
    assert "HNSW" in problem and "CPU" in problem and "Illegal instruction" in problem
    healthy, cut = _probe_through_proxy(cut_on=b"")
    assert not cut and healthy is None
