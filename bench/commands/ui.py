"""python -m bench ui [--count 10000] [--requests 60] [--keep PATH]: how fast the dashboard's list answers.

Builds a scratch store (never the configured one) of realistic memories with their real vectors, logs a user in
with Django's test client (the whole middleware stack and template rendering, no network), and prints p50/p95
in milliseconds of GET / plain, filtered, sorted by decayed importance, paged, searched with ?q=, and of the
decay page; the first search and decay page right after the import are timed on their own.
"""

from __future__ import annotations

import os
import statistics
import time
from datetime import datetime
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.test import Client

from bench import corpus as bench_corpus
from bench.measure import percentile
from bench.scratch import scratch_database
from memoryhub.embeddings import get_embedder
from memoryhub.memories.fields import clean_fields
from memoryhub.models import Memory
from memoryhub.storage import sql

TARGET_MS = 150.0


class Command(BaseCommand):
    help = "Measure the dashboard's memory list (GET /) on a scratch store: p50/p95 with and without ?q=."
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("--count", type=int, default=10_000, help="memories in the scratch store")
        parser.add_argument("--requests", type=int, default=60, help="timed requests per case")
        parser.add_argument("--keep", help="a store file to build once and reuse on the next run")

    def handle(self, *args, count: int, requests: int, keep: str | None, **options):
        if count < 100 or requests < 5:
            raise CommandError("--count must be at least 100 and --requests at least 5")
        if keep:
            Path(keep).parent.mkdir(parents=True, exist_ok=True)
        self.stdout.write(f"cpus: {os.cpu_count()}; load average: {os.getloadavg()[0]:.2f}")
        with scratch_database(keep) as path:
            corpus = self._build(count)
            self.stdout.write(f"store: {path} ({count} memories)")
            self._measure(corpus, requests)

    def _build(self, count: int) -> list[dict]:
        """Rows in bulk through the ORM (the FTS triggers fire), their vectors from the active model beside them."""

        corpus = bench_corpus.memories(count)
        have = Memory.objects.count()
        if have == count:
            return corpus
        if have:
            raise CommandError(f"{have} memories in the kept store, not {count}: delete it or give another --keep")
        embedder = get_embedder()
        started = time.perf_counter()
        for start in range(0, count, 500):
            items = corpus[start : start + 500]
            vectors = embedder.embed([item["content"] for item in items])
            rows = []
            for item in items:
                fields = clean_fields({key: item[key] for key in ("content", "project", "category", "tags",
                                                                   "importance", "confirmed", "status")})  # fmt: skip
                stamps = {key: datetime.fromisoformat(item[key]) for key in
                          ("created_at", "updated_at", "last_accessed_at") if item[key]}  # fmt: skip
                rows.append(
                    Memory(**fields, **stamps, source=f"agent-{start // 500 % 4}", embed_model=embedder.model_id)
                )
            with transaction.atomic():
                created = Memory.objects.bulk_create(rows)
                sql.insert_new_vectors([(row.pk, vector) for row, vector in zip(created, vectors, strict=True)])
            self.stdout.write(f"\r  built {min(count, start + 500)}/{count}", ending="")
            self.stdout.flush()
        self.stdout.write(f"\n  built in {time.perf_counter() - started:.0f} s")
        return corpus

    def _measure(self, corpus: list[dict], requests: int) -> None:

        # A hub admin: the benchmark measures pages over the whole store.
        user, _ = get_user_model().objects.update_or_create(username="bench-ui", defaults={"is_superuser": True})
        client = Client()
        client.force_login(user)
        queries = [q for q, _ in bench_corpus.queries(requests, corpus)]
        project = bench_corpus.PROJECTS[0]
        cases = {
            "GET / (newest first, page 1)": ["/"] * requests,
            "GET /?project=…&category=fact": [f"/?project={project}&category=fact"] * requests,
            "GET /?sort=importance (decayed)": ["/?sort=importance"] * requests,
            "GET /?page=40": ["/?page=40"] * requests,
            "GET /?tag=backend&confirmed=no": ["/?tag=backend&confirmed=no"] * requests,
            "GET /?q=… (hybrid search, all projects)": [f"/?q={q}" for q in queries],
            "GET /?q=…&project=… (htmx partial)": [f"/?q={q}&project={project}" for q in queries],
            "GET /decay/ (charts over every memory)": ["/decay/"] * requests,
            "GET /decay/sweep/preview/?open=1 (htmx)": ["/decay/sweep/preview/?open=1"] * requests,
            "GET /proposals/": ["/proposals/"] * requests,
            "GET /gate/": ["/gate/"] * requests,
            "GET /overview/": ["/overview/"] * requests,
        }
        # Right after the import: the first search and the first decay page pay for whatever the import left
        # cold (the vector index catching up, SQLite's page cache); reported on their own, not in the medians.
        for label, url in (("first GET /?q=… after the import", f"/?q={queries[0]}"), ("first GET /decay/", "/decay/")):
            started = time.perf_counter()
            client.get(url)
            self.stdout.write(f"{label:40} {(time.perf_counter() - started) * 1000:8.1f} ms")
        self.stdout.write(f"\n{'case':40} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'cpu p50':>8} {'cpu p95':>8}")
        worst = 0.0
        medians: dict[str, float] = {}
        for name, urls in cases.items():
            headers = {"HTTP_HX_REQUEST": "true"} if "htmx" in name else {}
            for url in urls[:3]:
                client.get(url, **headers)  # warm: model, page cache, template cache
            timings, cpu = [], []
            for url in urls:
                started, cpu_started = time.perf_counter(), time.process_time()
                response = client.get(url, **headers)
                timings.append((time.perf_counter() - started) * 1000)
                # CPU time of this process: what the request cost, without the wait for a busy machine's cores.
                cpu.append((time.process_time() - cpu_started) * 1000)
                if response.status_code != 200:
                    raise CommandError(f"{url} answered {response.status_code}")
            p95 = percentile(timings, 0.95)
            worst = max(worst, p95)
            medians[name] = statistics.median(timings)
            self.stdout.write(
                f"{name:40} {statistics.median(timings):8.1f} {p95:8.1f} {max(timings):8.1f}"
                f" {statistics.median(cpu):8.1f} {percentile(cpu, 0.95):8.1f}"
            )
        watched = {name: ms for name, ms in medians.items() if "?q=" in name or "decay" in name}
        slowest = max(watched, key=watched.get)
        verdict = "within" if watched[slowest] < TARGET_MS else "OVER"
        self.stdout.write(
            f"\nsearch and decay medians: slowest {slowest} at {watched[slowest]:.1f} ms, {verdict} {TARGET_MS:.0f} ms"
        )
        verdict = "within" if worst < TARGET_MS else "OVER"
        self.stdout.write(f"\nworst wall-clock p95 {worst:.1f} ms: {verdict} the {TARGET_MS:.0f} ms target")
        self.stdout.write(
            f"load average now: {os.getloadavg()[0]:.2f} (wall-clock figures grow with it; CPU ones less)"
        )
