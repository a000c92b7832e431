"""Embedding throughput (texts/s at batch 32) and single-query latency (p50/p95) of the active model: the
yardstick `python -m bench ingest` and `python -m bench search` measure again in their own runs and print beside
their figures."""

import statistics
import time

from django.core.management.base import BaseCommand

from bench.measure import MODEL_BATCH, cpu_note, model_rate, percentile, query_times_ms
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
        rate = model_rate(corpus, embedder)
        latencies = query_times_ms(
            [f"how do I {SAMPLE[i % len(SAMPLE)].lower()[:40]}" for i in range(queries)], embedder
        )
        backend = getattr(embedder, "backend", "remote")
        self.stdout.write(f"model: {embedder.model_id} ({backend}), dims {embedder.dimensions}, load {load_s:.2f} s")
        self.stdout.write(f"throughput: {rate:.0f} texts/s (batch {MODEL_BATCH}, {texts} texts)")
        self.stdout.write(
            f"single query: p50 {statistics.median(latencies):.2f} ms, p95 {percentile(latencies, 0.95):.2f} ms "
            f"({queries} queries)"
        )
