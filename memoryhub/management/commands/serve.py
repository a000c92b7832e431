"""python manage.py serve [--host 127.0.0.1] [--port 8000] [--threads 8]: serve with waitress.

Loopback by default: the API holds what agents learned and the dashboard edits it. One process with several
threads, because SQLite allows one writer at a time anyway (WAL lets readers run beside it) and the embedding
model is loaded once per process.
"""

from __future__ import annotations

import ipaddress
import logging
import signal

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

logger = logging.getLogger(__name__)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _raise_system_exit(signum: int, frame: object) -> None:
    raise SystemExit(0)


class Command(BaseCommand):
    help = "Serve MemoryHub with waitress (production WSGI server) on 127.0.0.1 by default."
    requires_system_checks = []  # `check` is a separate command; serving should start fast

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1, loopback only)")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--threads", type=int, default=8, help="worker threads (default 8)")
        parser.add_argument(
            "--no-preload", action="store_true", help="load the embedding model on the first request, not at start"
        )

    def handle(self, *args, host: str, port: int, threads: int, no_preload: bool, **options):
        from waitress import serve

        from memoryhub.wsgi import application

        if not 0 < port < 65536:
            raise CommandError("--port must be between 1 and 65535")
        if threads < 1:
            raise CommandError("--threads must be at least 1")
        if not is_loopback(host):
            self.stderr.write(
                f"warning: binding {host} exposes the memory store beyond this machine; "
                "set MEMORYHUB_SECRET_KEY and MEMORYHUB_ALLOWED_HOSTS, and put TLS in front"
            )
        from memoryhub.storage import sql

        if sql.MEMORY_TABLE not in sql.schema_names():
            raise CommandError("the store is not set up: run `python manage.py migrate` first")
        if not no_preload:
            # The first agent request should not wait a second or two for the model to load.
            from memoryhub.embeddings import get_embedder, write_lane

            get_embedder()
            write_lane.warm_up()  # the write lane's own copy of the model (embeddings/write_lane.py)
        from memoryhub.memories import bookkeeping

        self.stdout.write(f"MemoryHub serving on http://{host}:{port}/ with {threads} threads (waitress)")
        self.stdout.flush()
        bookkeeping.start()
        # SIGTERM ends waitress's loop as Ctrl-C does, so the queued bookkeeping is written before the exit.
        signal.signal(signal.SIGTERM, _raise_system_exit)
        try:
            self._serve(serve, application, host, port, threads)
        finally:
            bookkeeping.stop()

    def _serve(self, serve, application, host: str, port: int, threads: int) -> None:
        serve(
            application,
            host=host,
            port=port,
            threads=threads,
            ident="MemoryHub",
            # A backstop at the socket for absurd bodies; up to twice the limit, the API itself answers with its
            # JSON 413 (api/auth.py enforces MEMORYHUB_MAX_BODY_BYTES), which tells an agent more.
            max_request_body_size=2 * settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 65536,
            channel_timeout=120,
            clear_untrusted_proxy_headers=True,
        )
