"""Write latency with webhooks: POST /api/v1/memories one after another through the real server on a scratch store,
with no hook, with a hook whose receiver is down (connections refused), and with one whose receiver accepts the
connection and never answers (each try waits out MEMORYHUB_WEBHOOK_TIMEOUT_S). Delivery runs on the server's own
thread from the change log, retrying every second here (MEMORYHUB_WEBHOOK_MAX_BACKOFF_S=1, the worst case); a write
only commits its history event, so its latency should not change.

    python -m bench webhooks              # 40 writes per phase, the phases in turn, 6 times (drift hits each alike)
"""

from __future__ import annotations

import os
import socket
import statistics
import tempfile
import time

import httpx
from django.core.management.base import BaseCommand, CommandError

from bench import corpus as bench_corpus
from bench.measure import cpu_note, percentile, scratch_store, served
from bench.processes import ServerDidNotStart, free_port

PHASES = ("no hook", "receiver down", "receiver hangs")


class Command(BaseCommand):
    help = "Benchmark write latency over the API with no webhook, a receiver that is down, and one that hangs."

    def add_arguments(self, parser):
        parser.add_argument("--n", type=int, default=40, help="writes per phase and round")
        parser.add_argument("--rounds", type=int, default=6, help="times the three phases run, in turn")

    def handle(self, *args, n: int, rounds: int, **options):
        if n < 10 or rounds < 1:
            raise CommandError("--n at least 10, --rounds at least 1")
        self.stdout.write(cpu_note())
        texts = iter([item["content"] for item in bench_corpus.memories(n * len(PHASES) * rounds * 2)])
        # A receiver that accepts connections (the kernel's backlog does) and never reads or answers.
        hanging = socket.socket()
        hanging.bind(("127.0.0.1", 0))
        hanging.listen(1024)
        down = f"http://127.0.0.1:{free_port()}/hook"
        targets = {"receiver down": down, "receiver hangs": f"http://127.0.0.1:{hanging.getsockname()[1]}/hook"}
        took: dict[str, list[float]] = {phase: [] for phase in PHASES}
        with (
            tempfile.TemporaryDirectory(prefix="memoryhub-bench-webhooks-") as scratch,
            scratch_store(scratch, "bench-webhooks", MEMORYHUB_WEBHOOK_ALLOW_PRIVATE="true",
                          MEMORYHUB_WEBHOOK_MAX_BACKOFF_S="1") as store,
        ):  # fmt: skip
            run = store.manage
            try:
                with served(store.env) as (_, base), httpx.Client(headers=store.headers, timeout=60) as client:
                    for _ in range(n):  # warm up: the model, the connection, the store's first pages
                        client.post(f"{base}/memories", json={"content": next(texts), "project": "warm"})
                    for _ in range(rounds):
                        for phase in PHASES:
                            for line in run("list_webhooks").stdout.splitlines():
                                if line.startswith("#"):
                                    run("remove_webhook", line[1:].split()[0])
                            if phase in targets:
                                added = run("add_webhook", targets[phase], "--events", "memory.created")
                                if added.returncode != 0:
                                    raise CommandError(f"could not add the hook: {added.stderr[-300:]}")
                                time.sleep(1.5)  # its first failed tries are under way
                            took[phase] += self._writes(client, base, texts, n)
                    tries = run("list_webhooks").stdout.strip()
            except ServerDidNotStart as exc:
                raise CommandError(str(exc)) from exc
            finally:
                hanging.close()
        base_p50 = statistics.median(took["no hook"])
        for phase in PHASES:
            p50, p95 = statistics.median(took[phase]), percentile(took[phase], 0.95)
            self.stdout.write(f"  {phase:<15} {len(took[phase])} writes: p50 {p50:.1f} ms, p95 {p95:.1f} ms, "
                              f"p50 / no hook's {p50 / base_p50:.2f}")  # fmt: skip
        self.stdout.write(f"  hooks at the end: {tries}")
        self.stdout.write(f"  load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cpus")

    def _writes(self, client: httpx.Client, base: str, texts, n: int) -> list[float]:
        took = []
        for _ in range(n):
            started = time.perf_counter()
            answer = client.post(f"{base}/memories", json={"content": next(texts), "project": "bench"})
            took.append((time.perf_counter() - started) * 1000)
            if answer.status_code not in (200, 201):
                raise CommandError(f"a write failed: {answer.status_code} {answer.text[:200]}")
        return took
