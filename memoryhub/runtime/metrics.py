"""The process's Prometheus metrics, one view over every worker of `serve --workers N`.

prometheus-client keeps each metric in the memory of the process that counts it; a scrape reaches one worker of
several sharing the port, so a counter read from there would show that worker's share only. Its multiprocess mode
writes every value to a small memory-mapped file per process in one directory instead, and a scrape sums the files
of every worker. `serve` names a fresh directory before the fork (`share_across_workers`); without one (tests,
`runserver`) the metrics live in the process, as usual.

The metrics are made on first use, not at import: prometheus-client picks between the two kinds of value when a
metric is made, from the environment, so a metric made before `serve` named the directory would stay private to
its process.

What the store holds (memories by status, the database's size) is not counted by anyone: the view reads it from the
store at each scrape (memoryhub/operations/figures.py) and hands it to `exposition`, as the runtime knows nothing of
the domain.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client import values as prometheus_values
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead

from memoryhub.runtime.threads import lock

_ENV = "PROMETHEUS_MULTIPROC_DIR"
# Search and embedding times from a millisecond (a keyword search on a small store) to seconds (a crowded store).
_SECONDS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


@dataclass
class _Metrics:
    registry: CollectorRegistry
    requests: Counter
    search_seconds: Histogram
    writes: Counter
    embedding_seconds: Histogram
    write_queue: Gauge


_made: _Metrics | None = None


def share_across_workers() -> str:
    """Before `serve` forks: every process from now on writes its metrics to one fresh directory, which a scrape of
    any of them sums. Returns the directory (removed by `forget_workers`)."""
    directory = tempfile.mkdtemp(prefix="memoryhub-metrics-")
    os.environ[_ENV] = directory
    prometheus_values.ValueClass = prometheus_values.MultiProcessValue()
    return directory


def worker_died(pid: int) -> None:
    """A worker is gone: its share of the live gauges (the write queue) no longer counts; its counters still do."""
    if os.environ.get(_ENV):
        mark_process_dead(pid)


def forget_workers(directory: str) -> None:
    shutil.rmtree(directory, ignore_errors=True)


def _metrics() -> _Metrics:
    global _made
    if _made is None:
        with lock("metrics"):
            if _made is None:
                registry = CollectorRegistry(auto_describe=True)
                _made = _Metrics(
                    registry=registry,
                    requests=Counter(
                        "memoryhub_requests", "HTTP requests answered, by route and status", ["route", "status"],
                        registry=registry,
                    ),
                    search_seconds=Histogram(
                        "memoryhub_search_seconds", "Time to answer a search, by mode", ["mode"], buckets=_SECONDS,
                        registry=registry,
                    ),
                    writes=Counter(
                        "memoryhub_writes", "Writes through the gate, by what the gate did; superseded and conflict "
                        "count the older memories replaced and the conflicts put to a person", ["outcome"],
                        registry=registry,
                    ),
                    embedding_seconds=Histogram(
                        "memoryhub_embedding_seconds", "Time to embed one batch of texts, by provider", ["provider"],
                        buckets=_SECONDS, registry=registry,
                    ),
                    write_queue=Gauge(
                        "memoryhub_write_queue", "Writes waiting for their turn at the gate", registry=registry,
                        multiprocess_mode="livesum",
                    ),
                )  # fmt: skip
    return _made


def count_request(route: str, status: int) -> None:
    _metrics().requests.labels(route=route, status=str(status)).inc()


@contextmanager
def timed_search(mode: str) -> Iterator[None]:
    started = time.perf_counter()
    try:
        yield
    finally:
        _metrics().search_seconds.labels(mode=mode).observe(time.perf_counter() - started)


@contextmanager
def timed_embedding(provider: str) -> Iterator[None]:
    started = time.perf_counter()
    try:
        yield
    finally:
        _metrics().embedding_seconds.labels(provider=provider).observe(time.perf_counter() - started)


def count_write_outcome(outcome: str, *, superseded: int = 0, conflicts: int = 0) -> None:
    """One write through the gate: what it did (created, merged, duplicate, rejected), with the older memories it
    replaced and the conflicts it put to a person counted under their own outcomes."""
    writes = _metrics().writes
    writes.labels(outcome=outcome).inc()
    if superseded:
        writes.labels(outcome="superseded").inc(superseded)
    if conflicts:
        writes.labels(outcome="conflict").inc(conflicts)


@contextmanager
def waiting_write() -> Iterator[None]:
    """Around a write's wait for its turn: the write queue's depth."""
    gauge = _metrics().write_queue
    gauge.inc()
    try:
        yield
    finally:
        gauge.dec()


class _StoreCollector:
    """The store's figures as read for this scrape: `{"memories": {status: count}, "database_bytes": int}`."""

    def __init__(self, figures: dict[str, Any]):
        self.figures = figures

    def collect(self):
        figures = self.figures
        memories = GaugeMetricFamily("memoryhub_memories", "Memories in the store, by status", labels=["status"])
        for status, count in sorted(figures.get("memories", {}).items()):
            memories.add_metric([status], count)
        yield memories
        yield GaugeMetricFamily(
            "memoryhub_database_bytes", "Size of the database on disk", value=figures.get("database_bytes", 0)
        )


def exposition(store_figures: dict[str, Any]) -> tuple[bytes, str]:
    """The text a scrape answers with, and its content type: every worker's counts, then the store's figures."""
    made = _metrics()
    registry = CollectorRegistry()
    if os.environ.get(_ENV):
        MultiProcessCollector(registry)
    else:
        registry.register(_Forward(made.registry))
    registry.register(_StoreCollector(store_figures))
    return generate_latest(registry), CONTENT_TYPE_LATEST


class _Forward:
    """This process's own metrics, when they are not shared through files."""

    def __init__(self, registry: CollectorRegistry):
        self.registry = registry

    def collect(self):
        return self.registry.collect()
