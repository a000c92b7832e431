"""Search latency on synthetic stores of 10k and 100k memories: keyword, semantic and hybrid, in process and
through the HTTP API; the recall of the quantized vector pass against exact search; peak memory.

Each store is built in its own scratch database (the configured store is never touched), embedding every
memory with the active model. That takes minutes at 100k; pass
`--keep-dir DIR` to keep the built stores and reuse them on the next run, `--sizes` to choose, or
`--fake-vectors` to embed the corpus with a random projection of its words instead of the model (much faster;
latency is the same, the quantized recall is then measured on those vectors and says so). Queries are always
embedded with the active model when the corpus was, and their embedding time is part of every figure.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import statistics
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import httpx
import numpy as np
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.urls import Resolver404, resolve

from bench import corpus as bench_corpus
from bench.measure import (
    LeanClient,
    cpu_note,
    memory_note,
    model_rate,
    peak_rss_mb,
    percentile,
    query_times_ms,
    served,
)
from bench.processes import ServerDidNotStart
from bench.scratch import scratch_database
from memoryhub.embeddings import embed_queries, get_embedder, set_embedder
from memoryhub.memories.fields import clean_fields
from memoryhub.models import Memory
from memoryhub.retrieval.search import MemoryFilter, search_memories
from memoryhub.storage import sql, vector_index

_WORD = re.compile(r"\w+")


class RandomProjectionEmbedder:
    """Clearly not a language model: each word maps to a fixed random vector; a text is their normalised sum.

    Texts sharing words land close, so the vectors have structure (unlike pure noise) and KNN and quantization
    behave like they do on real embeddings, at thousands of texts per second."""

    model_id = "bench-random-projection"
    dimensions = 384

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in _WORD.findall(text.lower()) or ["(empty)"]:
                out[i] += _word_vector(word)
        return out / np.clip(np.linalg.norm(out, axis=1, keepdims=True), 1e-12, None)


@functools.lru_cache(maxsize=200_000)
def _word_vector(word: str) -> np.ndarray:
    seed = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
    return np.random.default_rng(seed).standard_normal(RandomProjectionEmbedder.dimensions).astype(np.float32)


class TimingEmbedder(RandomProjectionEmbedder):
    """For `--timing-only`: the store holds random-projection vectors (embedding a million texts with the model
    takes hours here), but every query is also embedded with the real model first, so each figure still pays for
    a real query embedding. Rankings and recall mean nothing; the latencies and the memory do."""

    def __init__(self, model):
        self.model = model

    def embed(self, texts: list[str]) -> np.ndarray:
        self.model.embed(texts)
        return super().embed(texts)

    def project(self, texts: list[str]) -> np.ndarray:
        return super().embed(texts)


def _normal(text: str) -> str:
    return " ".join(text.split()).casefold()


def _copied_queries(pairs: list[tuple[str, str | None]], corpus: list[dict]) -> dict[int, str]:
    """Which queries (by position) occur verbatim in a memory of their scope: exact names must rank first."""
    parts: dict[str | None, list[str]] = {}
    for item in corpus:
        if item.get("status", "active") == "active":  # archived memories are rightly not found
            parts.setdefault(item["project"], []).append(_normal(item["content"]))
    scoped = {project: "\x00".join(texts) for project, texts in parts.items()}
    out = {}
    for i, (text, project) in enumerate(pairs):
        needle = _normal(text)
        if needle in scoped.get(project, "") or needle in scoped.get(None, ""):
            out[i] = needle
    return out


class Command(BaseCommand):
    help = "Benchmark search latency (p50/p95) on synthetic 10k/100k stores, in process and over HTTP."

    def add_arguments(self, parser):
        parser.add_argument("--sizes", default="10000,100000", help="comma-separated store sizes")
        parser.add_argument("--queries", type=int, default=240, help="queries per size (at least 200 advised)")
        parser.add_argument("--k", type=int, default=10)
        parser.add_argument("--keep-dir", help="keep the built stores here and reuse them on the next run")
        parser.add_argument("--fake-vectors", action="store_true", help="random-projection vectors, not the model")
        parser.add_argument("--no-http", action="store_true", help="skip the HTTP API measurement")
        parser.add_argument("--n", type=int, help="one store of this size (instead of --sizes)")
        parser.add_argument(
            "--timing-only",
            action="store_true",
            help="synthetic store vectors (random projection), queries still embedded by the model: for 1M",
        )

    def handle(self, *args, sizes: str, queries: int, k: int, keep_dir: str | None, fake_vectors: bool,
               no_http: bool, n: int | None = None, timing_only: bool = False, **options):  # fmt: skip
        try:
            counts = [n] if n else [int(s) for s in sizes.split(",") if s.strip()]
        except ValueError as exc:
            raise CommandError("--sizes must be whole numbers separated by commas") from exc
        self.timing_only = timing_only
        if not counts or min(counts) < 100 or queries < 1:
            raise CommandError("--sizes must be at least 100 each, --queries at least 1")
        previous = get_embedder()
        if timing_only:
            set_embedder(TimingEmbedder(previous))
        elif fake_vectors:
            set_embedder(RandomProjectionEmbedder())
        embedder = get_embedder()
        self.stdout.write(cpu_note())
        self.stdout.write(
            f"vectors: {embedder.model_id}"
            + (" (FAKE: random projection of words, not a language model)" if fake_vectors else "")
            + (
                " (TIMING ONLY: the store's vectors are a random projection of words; each query is embedded "
                "by the model too, so its cost is in every figure; rankings and recall mean nothing)"
                if timing_only
                else ""
            )
            + f"; cpus: {os.cpu_count()}; load average: {os.getloadavg()[0]:.2f}"
        )
        try:
            for count in counts:
                path = None
                if keep_dir:
                    Path(keep_dir).mkdir(parents=True, exist_ok=True)
                    path = str(Path(keep_dir) / f"bench-{count}-{embedder.model_id}.sqlite3")
                with scratch_database(path) as db_path:
                    self._bench(count, queries, k, db_path, no_http)
        finally:
            set_embedder(previous)
        self.stdout.write(f"\npeak memory (this process, building included): {peak_rss_mb():.0f} MB {memory_note()}")

    def _build(self, count: int) -> list[dict]:
        """Rows through the ORM in bulk (the FTS triggers fire as for any insert), vectors beside them.

        `store.import_memories` does the same one row at a time with its history events; at 100k rows that costs
        more than the benchmark itself, and the search does not care how the rows came in."""

        # Made 100k at a time (each its own seed), so a million memories never sit in this process at once; the
        # queries come from the first part.
        part = 100_000
        first = bench_corpus.memories(min(count, part))
        have = Memory.objects.count()
        if have == count:
            self.stdout.write(f"  reusing the {count} memories already in the store")
            return first
        if have:
            raise CommandError(f"the kept store holds {have} memories, not {count}: delete it or use another dir")
        embedder = get_embedder()
        embed = embedder.project if isinstance(embedder, TimingEmbedder) else embedder.embed
        started = time.perf_counter()
        batch = 1000
        corpus = first
        for start in range(0, count, batch):
            if start and start % part == 0:
                corpus = bench_corpus.memories(min(part, count - start), seed=7 + start // part)
            items = corpus[start % part : start % part + batch]
            vectors = embed([item["content"] for item in items])
            rows = []
            for item in items:
                fields = clean_fields({key: item[key] for key in ("content", "project", "category", "tags",
                                                                   "importance", "confirmed", "status")})  # fmt: skip
                stamps = ("created_at", "updated_at", "last_accessed_at")
                times = {key: datetime.fromisoformat(item[key]) for key in stamps if item[key]}
                rows.append(Memory(**fields, **times, source="bench", embed_model=embedder.model_id))
            with transaction.atomic():
                created = Memory.objects.bulk_create(rows)
                sql.insert_new_vectors([(row.pk, vector) for row, vector in zip(created, vectors, strict=True)])
            done = min(count, start + batch)
            rate = done / (time.perf_counter() - started)
            self.stdout.write(f"\r  stored {done}/{count} ({rate:.0f}/s)", ending="")
            self.stdout.flush()
        self.stdout.write(f"\n  built {count} memories in {time.perf_counter() - started:.0f} s")
        _word_vector.cache_clear()
        return first

    def _bench(self, count: int, n_queries: int, k: int, db_path: str, no_http: bool) -> None:
        self.stdout.write(f"\n== {count} memories ({db_path})")
        corpus = self._build(count)
        pairs = bench_corpus.queries(n_queries, corpus)
        embedder = get_embedder()
        started = time.perf_counter()
        search_memories(
            query="warm up the model and the page cache", within=MemoryFilter(visible_from=bench_corpus.PROJECTS[0])
        )
        warm = time.perf_counter() - started
        total = sql.count_memories("m.embed_model = %s", [embedder.model_id])
        quantized = total > vector_index.EXACT_KNN_MAX
        codes = "int8" if total > vector_index.COPY_INT8_ABOVE else "float32"
        self.stdout.write(
            f"  {len(pairs)} queries, k={k}, each scoped to a project (its memories + globals); vector search: "
            + (
                f"bit[] Hamming pass over the scope + {codes} rescore, in process (vector_index; the first search "
                f"read the copy in {warm:.1f} s; {memory_note()})"
                if quantized
                else "PostgreSQL's HNSW index (pgvector, iterative scans under the scope's filter)"
                if sql.FILTERED_KNN
                else "exact float KNN (vec0)"
            )
        )
        # The yardstick, measured here in this run: every latency below is read as "the query's embedding + the rest".
        embed_ms = query_times_ms([text for text, _ in pairs])
        self.embed_p50 = percentile(embed_ms, 0.5)
        fake = isinstance(embedder, RandomProjectionEmbedder)  # the timing-only one too: its texts/s mean nothing
        rate = "" if fake else f"; the model alone embeds {model_rate(self._texts(corpus)):.0f} texts/s (batch 32)"
        self.stdout.write(f"  query embedding alone: p50 {self.embed_p50:.1f} ms, "
                          f"p95 {percentile(embed_ms, .95):.1f} ms{rate}")  # fmt: skip
        header = f"  {'in process':<12}{'p50 ms':>9}{'p95 ms':>9}{'mean':>9}"
        self.stdout.write(header)
        copied = _copied_queries(pairs, corpus)
        verbatim_first = {}
        for mode in ("keyword", "semantic", "hybrid"):
            times, firsts = [], 0
            for i, (text, project) in enumerate(pairs):
                started = time.perf_counter()
                hits = search_memories(query=text, within=MemoryFilter(visible_from=project), k=k, mode=mode)
                times.append((time.perf_counter() - started) * 1000)
                if i in copied and hits and copied[i] in _normal(hits[0].memory.content):
                    firsts += 1
            verbatim_first[mode] = firsts
            self.stdout.write(f"  {mode:<12}{percentile(times, .5):>9.1f}{percentile(times, .95):>9.1f}"
                              f"{statistics.mean(times):>9.1f}{self._beyond(mode, times)}")  # fmt: skip
        self.stdout.write(
            f"  {len(copied)} queries are text copied from a memory (identifiers, error messages): the first result "
            "holds it for " + ", ".join(f"{n}/{len(copied)} ({mode})" for mode, n in verbatim_first.items())
        )
        self.stdout.write(f"  after the searches: {memory_note()}")
        if self.timing_only:
            self.stdout.write("  recall and HTTP: skipped in --timing-only mode (synthetic vectors)")
            return
        self._recall(pairs, k, total)
        if not no_http:
            self._http(pairs, k, db_path)

    def _texts(self, corpus: list[dict]) -> list[str]:
        """The store's own texts the model alone embeds (with the active embedder: fake vectors are fast)."""
        return [item["content"] for item in corpus[:1024]]

    def _beyond(self, mode: str, times: list[float]) -> str:
        """What a search costs beyond embedding its query (keyword mode embeds nothing)."""
        if mode == "keyword":
            return ""
        return f"   p50 - query embedding: {percentile(times, 0.5) - self.embed_p50:.1f} ms"

    def _recall(self, pairs, k: int, total: int) -> None:
        """Quantized passes against exact float KNN over the whole store (unfiltered, same vectors)."""

        embedder = get_embedder()
        vectors = embed_queries(embedder, [text for text, _ in pairs])
        if sql.FILTERED_KNN:
            self._recall_of_the_index(vectors, k)
            return
        exact_ms: list[float] = []
        results = {"in-process bits + float32 rescore": ([], []), "vec0 bit[] k=100 + float rescore": ([], [])}
        for vector in vectors:
            started = time.perf_counter()
            exact = {mid for mid, _ in sql.knn(vector, k)}
            exact_ms.append((time.perf_counter() - started) * 1000)
            for label, (recalls, times) in results.items():
                started = time.perf_counter()
                if label.startswith("in-process"):
                    approx = set(vector_index.nearest(vector, embedder.model_id, k)[0].tolist())
                else:
                    approx = {mid for mid, _ in sql.knn_binary_rescored_among(vector, k, min(100, total))}
                times.append((time.perf_counter() - started) * 1000)
                recalls.append(len(exact & approx) / max(1, len(exact)))
        self.stdout.write(f"  exact float KNN (vec0, whole store): p50 {percentile(exact_ms, .5):.1f} / p95 "
                          f"{percentile(exact_ms, .95):.1f} ms")  # fmt: skip
        for label, (recalls, times) in results.items():
            self.stdout.write(
                f"  {label}: recall@{k} vs exact {statistics.mean(recalls):.4f}; p50 {percentile(times, 0.5):.1f} / "
                f"p95 {percentile(times, 0.95):.1f} ms (vector search alone)"
            )

    def _recall_of_the_index(self, vectors, k: int) -> None:
        """PostgreSQL: the HNSW index (what search uses) against exact KNN over every vector of the store."""

        ids = list(Memory.objects.values_list("pk", flat=True))
        recalls, index_ms, exact_ms = [], [], []
        for vector in vectors:
            started = time.perf_counter()
            approx = {mid for mid, _ in sql.knn(vector, k)}
            index_ms.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            exact = {mid for mid, _ in sql.knn_among(vector, k, ids)}
            exact_ms.append((time.perf_counter() - started) * 1000)
            recalls.append(len(exact & approx) / max(1, len(exact)))
        self.stdout.write(f"  exact KNN (every vector): p50 {percentile(exact_ms, .5):.1f} / p95 "
                          f"{percentile(exact_ms, .95):.1f} ms")  # fmt: skip
        self.stdout.write(
            f"  HNSW (pgvector): recall@{k} vs exact {statistics.mean(recalls):.4f}; p50 "
            f"{percentile(index_ms, 0.5):.1f} / p95 {percentile(index_ms, 0.95):.1f} ms (vector search alone)"
        )

    def _timed_over_http(self, client: LeanClient, pairs, k: int, server) -> list[tuple[str, float]]:
        """Each mode's latency over one keep-alive connection (bench.measure.LeanClient): the server's time and the
        socket's, not a client library's. Returns each mode's p50 (none when a search failed)."""
        client.post("/search", {"query": "warm up", "project": pairs[0][1]})
        self.stdout.write(f"  {'HTTP API':<12}{'p50 ms':>9}{'p95 ms':>9}{'mean':>9}")
        # The fixed cost of a request on this machine, now: GET health (no token, one count query), asked before
        # every search, so each mode is read against what any request costs.
        health: list[float] = []
        lines = []
        for mode in ("keyword", "semantic", "hybrid"):
            times = []
            for text, project in pairs:
                started = time.perf_counter()
                client.get("/health")
                health.append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                status, body = client.post("/search", {"query": text, "project": project, "k": k, "mode": mode})
                times.append((time.perf_counter() - started) * 1000)
                if status != 200:
                    self.stdout.write(f"  HTTP: {status} {body[:200].decode(errors='replace')}")
                    return []
            self.stdout.write(f"  {mode:<12}{percentile(times, .5):>9.1f}{percentile(times, .95):>9.1f}"
                              f"{statistics.mean(times):>9.1f}{self._beyond(mode, times)}")  # fmt: skip
            lines.append((mode, percentile(times, 0.5)))
        self._against_health(health, lines)
        peak = peak_rss_mb(server.pid)
        self.stdout.write(f"  server peak memory: {peak:.0f} MB {memory_note(server.pid)}")
        return lines

    def _through_httpx(self, agent: httpx.Client, base: str, pairs, k: int, lean: dict[str, float]) -> None:
        """The same searches through httpx, as an agent's Python client makes them (GET health before each, as
        above): what its own Python adds to each call, beside the figures above."""
        seen = []
        for mode in ("keyword", "hybrid"):
            times = []
            for text, project in pairs:
                agent.get(f"{base}/health")
                started = time.perf_counter()
                agent.post(f"{base}/search", json={"query": text, "project": project, "k": k, "mode": mode})
                times.append((time.perf_counter() - started) * 1000)
            p50 = percentile(times, 0.5)
            seen.append(f"{mode} p50 {p50:.1f} ms ({p50 - lean[mode]:+.1f} ms)")
        self.stdout.write("  through httpx (its request and response models on the client's side): " + ", ".join(seen))

    def _against_health(self, health: list[float], lines: list[tuple[str, float]]) -> None:
        """Each mode's HTTP p50 against GET health's, measured in the same loop: the ratio carries over from one
        machine to another, and the difference is what a search costs beyond any request."""
        fixed = percentile(health, 0.5)
        self.stdout.write(
            f"  GET health, asked before each search: p50 {fixed:.1f} / p95 {percentile(health, 0.95):.1f} ms; "
            "search p50 / health p50: "
            + ", ".join(f"{mode} {p50 / fixed:.2f}x" for mode, p50 in lines)
            + "; search p50 - health p50: "
            + ", ".join(f"{mode} {p50 - fixed:.1f} ms" for mode, p50 in lines)
        )

    def _http(self, pairs, k: int, db_path: str) -> None:

        try:
            resolve("/api/v1/search")
        except Resolver404:
            self.stdout.write("  HTTP: skipped, POST /api/v1/search is not routed in this checkout")
            return

        store = "MEMORYHUB_DATABASE_URL" if db_path.startswith("postgresql://") else "MEMORYHUB_DB"
        env = {**os.environ, store: db_path}
        if isinstance(get_embedder(), RandomProjectionEmbedder):
            self.stdout.write("  HTTP: skipped with --fake-vectors (the server would embed queries with the model)")
            return
        manage = str(Path(settings.BASE_DIR) / "manage.py")
        made = subprocess.run([sys.executable, manage, "create_token", "bench-search"], env=env, capture_output=True,
                              text=True, check=False)  # fmt: skip
        if made.returncode != 0 or not made.stdout.strip():
            self.stdout.write(f"  HTTP: skipped, create_token failed: {made.stderr.strip()[-200:]}")
            return
        token = made.stdout.strip().splitlines()[-1].strip()
        try:
            with served(env, threads=4) as (server, base):
                with LeanClient(base, {"Authorization": f"Bearer {token}"}) as client:
                    answered = self._timed_over_http(client, pairs, k, server)
                if answered:
                    with httpx.Client(headers={"Authorization": f"Bearer {token}"}, timeout=30) as agent:
                        self._through_httpx(agent, base, pairs, k, dict(answered))
        except ServerDidNotStart:
            self.stdout.write("  HTTP: skipped, the server did not come up")
