"""Embedding throughput (texts/s at batch 32) and single-query latency (p50/p95) of the active model."""

import statistics
import time

from django.core.management.base import BaseCommand

from memoryhub.bench.measure import cpu_note, percentile
from memoryhub.embeddings import get_embedder

SAMPLE = [
    "The deploy workflow runs migrations before restarting the web workers",
    "Use cargo nextest run because integration tests need the fixtures directory",
    "OrderService rounds VAT per line and changing it breaks invoices",
    "The user prefers concise answers with code first",
    "Celery beat must be restarted after the schedule changes in settings",
    "Postgres index creation should use CONCURRENTLY on large tables",
    "getUserId returns None for anonymous sessions in the middleware",
    "The staging database is refreshed from production every Sunday night",
]


class Command(BaseCommand):
    help = "Print embedding throughput (batch 32) and single-query latency p50/p95 for the active model."

    def add_arguments(self, parser):
        parser.add_argument("--texts", type=int, default=1024)
        parser.add_argument("--queries", type=int, default=200)

    def handle(self, *args, texts: int, queries: int, **options):
        self.stdout.write(cpu_note())
        started = time.perf_counter()
        embedder = get_embedder()
        load_s = time.perf_counter() - started
        corpus = [f"{SAMPLE[i % len(SAMPLE)]} (note {i})" for i in range(texts)]
        embedder.embed(corpus[:32])  # warm-up
        started = time.perf_counter()
        for start in range(0, len(corpus), 32):
            embedder.embed(corpus[start : start + 32])
        elapsed = time.perf_counter() - started
        latencies = []
        for i in range(queries):
            t = time.perf_counter()
            embedder.embed([f"how do I {SAMPLE[i % len(SAMPLE)].lower()[:40]}"])
            latencies.append((time.perf_counter() - t) * 1000)
        backend = getattr(embedder, "backend", "remote")
        self.stdout.write(f"model: {embedder.model_id} ({backend}), dims {embedder.dimensions}, load {load_s:.2f} s")
        self.stdout.write(f"throughput: {texts / elapsed:.0f} texts/s (batch 32, {texts} texts)")
        self.stdout.write(
            f"single query: p50 {statistics.median(latencies):.2f} ms, p95 {percentile(latencies, 0.95):.2f} ms "
            f"({queries} queries)"
        )
