"""Ingest over the REST API, end to end: the real server on a scratch store, N synthetic memories posted to
`memories/import` (embeddings included), then hybrid searches over HTTP starting the moment the import returns
(over one keep-alive connection of the standard library, `bench.measure.LeanClient`: the server's time).

Every figure is printed beside the model alone on this machine, measured in the same run in this process: the
import's own texts 32 at a time as `python -m bench embed` does, and handed over as the import hands them (512 at
a time, which the model sorts by length: on texts of mixed lengths much faster), before and after the import; the
searches' own queries embedded one by one. Then the ratios: ingest rate / the model's rate handed over as the
import does, hybrid p50 minus the query's embedding, and p95 right after the import / p95 at rest.

    python -m bench ingest                      # 10k memories in requests of 1000, one client
    python -m bench ingest --clients 2          # two requests in flight: one embeds while one writes

The store is a fresh file in a temporary directory, or on PostgreSQL a database of its own on the configured server
(the configured store is never touched), deleted afterwards.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import threading
import time

import httpx
from django.core.management.base import BaseCommand, CommandError

from bench import corpus as bench_corpus
from bench.measure import (
    MODEL_BATCH,
    LeanClient,
    ModelSpeed,
    cpu_note,
    memory_note,
    model_rate,
    model_speed,
    percentile,
    scratch_store,
    served,
)
from bench.processes import ServerDidNotStart
from memoryhub.memories.store import IMPORT_EMBED_CHUNK

# Texts of the import the model alone embeds, before and after it: enough for a steady rate, a few seconds.
MODEL_SAMPLE = 1024


class Command(BaseCommand):
    help = "Benchmark ingest over POST /api/v1/memories/import (memories/s), then search right after it."

    def add_arguments(self, parser):
        parser.add_argument("--n", type=int, default=10_000, help="memories to import")
        parser.add_argument("--batch", type=int, default=1000, help="memories per request")
        parser.add_argument("--clients", type=int, default=1, help="requests in flight at once")
        parser.add_argument("--queries", type=int, default=240, help="hybrid searches right after the import")
        parser.add_argument("--port", type=int, default=0, help="the server's port (default: a free one)")
        parser.add_argument(
            "--idle-after", type=float, default=65.0, help="then wait this long and search again, at rest (0: skip)"
        )

    def handle(self, *args, n: int, batch: int, clients: int, queries: int, port: int, idle_after: float, **options):
        if n < 1 or not 1 <= batch <= 10_000 or clients < 1:
            raise CommandError("--n at least 1, --batch from 1 to 10000, --clients at least 1")

        items = [
            {key: item[key] for key in ("content", "project", "category", "tags")} for item in bench_corpus.memories(n)
        ]
        chars = statistics.mean(len(i["content"]) for i in items)
        self.stdout.write(cpu_note())
        pairs = bench_corpus.queries(queries, bench_corpus.memories(n)) if queries > 0 else []
        sample = [item["content"] for item in items[:MODEL_SAMPLE]]
        model = model_speed(sample, [text for text, _ in pairs] or ["warm up the model"])
        self.stdout.write(f"  {model.line()}; load average {os.getloadavg()[0]:.2f}")
        self.stdout.write(f"{n} memories ({chars:.0f} characters on average) in requests of {batch}, {clients} "
                          f"client(s); cpus {os.cpu_count()}, load average {os.getloadavg()[0]:.2f}")  # fmt: skip
        with (
            tempfile.TemporaryDirectory(prefix="memoryhub-bench-ingest-") as scratch,
            scratch_store(scratch, "bench-ingest") as store,
        ):
            env, headers = store.env, store.headers
            try:
                # Searches timed over the standard library's connection: the server's time, not a client library's.
                with served(env, port=port) as (server, base), LeanClient(base, headers, timeout=600) as client:
                    client.post("/search", {"query": "warm up the model"})
                    rate = self._ingest(base, headers, items, batch, clients)
                    after = self._search_after(client, pairs, "from the moment the import returned")
                    model_after = model_rate(sample, batch=IMPORT_EMBED_CHUNK)
                    rest = None
                    if idle_after > 0:
                        time.sleep(idle_after)
                        rest = self._search_after(client, pairs, f"at rest, {idle_after:.0f} s later")
                    self.stdout.write(f"  server: {memory_note(server.pid)}")
                    self._ratios(model, model_after, rate, after, rest)
            except ServerDidNotStart as exc:
                raise CommandError(str(exc)) from exc

    def _ingest(self, base: str, headers: dict, items: list[dict], batch: int, clients: int) -> float:
        """Memories per second through the import."""

        requests = [items[at : at + batch] for at in range(0, len(items), batch)]
        failures: list[str] = []
        took: list[float] = []
        lock = threading.Lock()

        def worker() -> None:
            with httpx.Client(headers=headers, timeout=600) as client:
                while True:
                    with lock:
                        if not requests:
                            return
                        chunk = requests.pop(0)
                    started = time.perf_counter()
                    answer = client.post(f"{base}/memories/import", json={"memories": chunk})
                    took.append(time.perf_counter() - started)
                    if answer.status_code != 201:
                        failures.append(f"{answer.status_code} {answer.text[:200]}")

        started = time.perf_counter()
        threads = [threading.Thread(target=worker) for _ in range(clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        seconds = time.perf_counter() - started
        if failures:
            raise CommandError(f"{len(failures)} import requests failed, first: {failures[0]}")
        self.stdout.write(f"  ingest: {len(items)} memories in {seconds:.1f} s = {len(items) / seconds:.0f} memories/s "
                          f"(a request of {batch}: median {statistics.median(took):.2f} s); load average "
                          f"{os.getloadavg()[0]:.2f}")  # fmt: skip
        return len(items) / seconds

    def _search_after(self, client: LeanClient, pairs: list, when: str) -> tuple[float, float] | None:
        """(p50, p95) ms of hybrid searches over HTTP, one after another."""
        if not pairs:
            return None
        times = []
        started = time.perf_counter()
        for text, project in pairs:
            began = time.perf_counter()
            status, body = client.post("/search", {"query": text, "project": project, "mode": "hybrid"})
            times.append((time.perf_counter() - began) * 1000)
            if status != 200:
                raise CommandError(f"search answered {status}: {body[:200].decode(errors='replace')}")
        first_second = [t for t, at in zip(times, _elapsed(times), strict=True) if at <= 1000]
        self.stdout.write(
            f"  hybrid search over HTTP {when}: p50 {percentile(times, 0.5):.1f} / p95 "
            f"{percentile(times, 0.95):.1f} ms over {len(times)} queries in {time.perf_counter() - started:.1f} s; "
            f"the first second's {len(first_second)}: p50 {percentile(first_second, 0.5):.1f} / p95 "
            f"{percentile(first_second, 0.95):.1f} ms, the very first {times[0]:.1f} ms; load average "
            f"{os.getloadavg()[0]:.2f}"
        )
        return percentile(times, 0.5), percentile(times, 0.95)

    def _ratios(self, model: ModelSpeed, model_after: float, rate: float, after, rest) -> None:
        """The figures as ratios to the model alone, which is what carries over from one machine to another. The
        yardstick for ingest is the model's best on the import's texts (handed over as the import hands them):
        what the import gets beyond that ratio is lost to the rest of the server."""
        yardstick = (model.sorted_per_s + model_after) / 2
        self.stdout.write(
            f"  model alone after the import: {model_after:.0f} texts/s handed {IMPORT_EMBED_CHUNK} at a time "
            f"(before: {model.sorted_per_s:.0f}); ingest / model-only rate: {rate / yardstick:.0%} ({rate:.0f} / "
            f"{yardstick:.0f}, the mean of both; against batch {MODEL_BATCH} before the import: "
            f"{rate / model.texts_per_s:.0%})"
        )
        if after is None:
            return
        embed = model.query_p50_ms
        line = f"  hybrid p50 minus the query's embedding ({embed:.1f} ms): {after[0] - embed:.1f} ms right after"
        if rest is not None:
            line += (f", {rest[0] - embed:.1f} ms at rest; p95 right after the import / p95 at rest: "
                     f"{after[1] / rest[1]:.2f}x ({after[1]:.1f} / {rest[1]:.1f} ms)")  # fmt: skip
        self.stdout.write(line)


def _elapsed(times: list[float]) -> list[float]:
    """When each query started, in ms after the first started (they run one after another)."""
    out, total = [], 0.0
    for t in times:
        out.append(total)
        total += t
    return out
