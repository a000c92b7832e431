"""python manage.py serve [--host 127.0.0.1] [--port 8000] [--threads 8] [--workers 1]: serve with waitress.

Loopback by default: the API holds what agents learned and the dashboard edits it. One process with several
threads by default, because SQLite allows one writer at a time anyway (WAL lets readers run beside it) and the
embedding model is loaded once per process; `--workers N` runs N such processes on one port
(runtime/prefork.py) for machines where one process's interpreter lock is the limit.

Each process starts the runtime (memoryhub/runtime/): the bookkeeping of agent searches (use counts, usage
records) is then written on a background thread after answering; SIGTERM and Ctrl-C stop it cleanly, writing what
is queued first.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import signal

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connections
from waitress import serve

from memoryhub import embeddings, runtime
from memoryhub.operations.deliveries import deliver_due
from memoryhub.runtime import metrics
from memoryhub.runtime.prefork import listening_socket, raise_system_exit
from memoryhub.storage import sql

logger = logging.getLogger(__name__)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class Command(BaseCommand):
    help = "Serve MemoryHub with waitress (production WSGI server) on 127.0.0.1 by default."
    requires_system_checks = []  # `check` is a separate command; serving should start fast

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1, loopback only)")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--threads", type=int, default=8, help="worker threads per process (default 8)")
        parser.add_argument(
            "--workers",
            type=int,
            default=1,
            help="serving processes sharing the port (default 1); more use more cores for Python work, each "
            "holding its own copy of the model and of the vectors",
        )
        parser.add_argument(
            "--no-preload", action="store_true", help="load the embedding model on the first request, not at start"
        )

    def handle(self, *args, host: str, port: int, threads: int, workers: int, no_preload: bool, **options):
        if not 0 < port < 65536:
            raise CommandError("--port must be between 1 and 65535")
        if threads < 1:
            raise CommandError("--threads must be at least 1")
        if workers < 1:
            raise CommandError("--workers must be at least 1")
        if workers > 1 and not hasattr(os, "fork"):
            raise CommandError("--workers above 1 needs os.fork (Linux, macOS); use one worker here")
        if not is_loopback(host):
            self.stderr.write(
                f"warning: binding {host} exposes the memory store beyond this machine; "
                "set MEMORYHUB_ALLOWED_HOSTS, put TLS in front and set MEMORYHUB_SECURE_COOKIES=true"
            )

        problem = sql.extension_problem()
        if problem:
            raise CommandError(problem)
        if sql.MEMORY_TABLE not in sql.schema_names():
            raise CommandError("the store is not set up: run `.venv/bin/python manage.py migrate` first")
        listen = {"host": host, "port": port}
        if workers > 1:
            try:
                sock = listening_socket(host, port)
            except OSError as exc:
                raise CommandError(f"cannot listen on {host}:{port}: {exc}") from exc
            connections.close_all()  # no database connection may cross the fork
            for connection in connections.all():
                if hasattr(connection, "close_pool"):
                    connection.close_pool()  # PostgreSQL: the pool's sockets too, or the workers would share them
            self.stdout.write(
                f"MemoryHub serving on http://{host}:{port}/ with {workers} processes of {threads} threads (waitress)"
            )
            shared = metrics.share_across_workers()  # one GET /metrics over every worker (runtime/metrics.py)
            try:
                code = runtime.serve_workers(
                    workers,
                    lambda index: self._worker({"sockets": [sock]}, threads, no_preload),
                    report=self.stderr.write,
                )
            finally:
                metrics.forget_workers(shared)
            sock.close()
            if code:
                raise SystemExit(code)
            return
        self.stdout.write(f"MemoryHub serving on http://{host}:{port}/ with {threads} threads (waitress)")
        # SIGTERM ends waitress's loop as Ctrl-C does, so the queued bookkeeping is written before the exit.
        signal.signal(signal.SIGTERM, raise_system_exit)
        self._worker(listen, threads, no_preload)

    def _worker(self, listen: dict, threads: int, no_preload: bool) -> None:
        """One serving process: the model loaded, bookkeeping on its thread, waitress until told to stop."""

        from memoryhub.wsgi import application  # built in each serving process, after the fork

        embeddings.embed_queries_only()  # its writes embed on the write lane's own copy of the model
        if not no_preload:
            # The first agent request should not wait a second or two for the model to load.
            from memoryhub.embeddings import get_embedder, write_lane

            get_embedder()
            write_lane.warm_up()  # the write lane's own copy of the model (embeddings/write_lane.py)
        self.stdout.flush()
        runtime.start()
        runtime.start_deliveries(deliver_due)  # webhooks: one worker of all sends them (runtime/deliveries.py)
        try:
            serve(
                application,
                **listen,
                threads=threads,
                ident="MemoryHub",
                # A backstop at the socket for absurd bodies; up to twice the limit, the API itself answers with
                # its JSON 413 (api/auth.py enforces MEMORYHUB_MAX_BODY_BYTES), which tells an agent more.
                max_request_body_size=2 * settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 65536,
                channel_timeout=120,
                clear_untrusted_proxy_headers=True,
                _quiet=listen.get("sockets") is not None,  # the parent said where; N workers need not repeat it
            )
        finally:
            runtime.stop()
