"""What the benchmark commands share: percentiles, the CPU and the model alone on it (the yardstick: every
ingest and search figure is printed beside it, as a ratio), the memory a process holds, and a real server to
measure through HTTP (`manage.py serve` on a free loopback port, stopped when the block ends)."""

from __future__ import annotations

import http.client
import json
import os
import resource
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings
from django.core.management.base import CommandError

from bench.processes import free_port, serve_command, stop, wait_for_health
from memoryhub.embeddings import embed_queries, get_embedder
from memoryhub.memories.store import IMPORT_EMBED_CHUNK
from memoryhub.storage.side_databases import create_database, drop_database


def percentile(values: list[float], q: float) -> float:
    """The value at quantile `q` (nearest rank); 0 for no values."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] if ordered else 0.0


class LeanClient:
    """One keep-alive HTTP/1.1 connection through the standard library, for timing a server: what it measures is the
    server's and the socket's, with as little of the client's own Python as can be. httpx builds request and
    response models around every call, which `bench search` measured at 0.6-0.8 ms a call on a 2-core machine, and
    prints beside the figures."""

    def __init__(self, base: str, headers: dict[str, str], timeout: float = 30.0):
        url = urlsplit(base)
        self.prefix = url.path.rstrip("/")
        self.headers = {"Content-Type": "application/json", **headers}
        self.connection = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port or 80, timeout=timeout)

    def get(self, path: str) -> tuple[int, bytes]:
        return self._call("GET", path, None)

    def post(self, path: str, body: dict) -> tuple[int, bytes]:
        return self._call("POST", path, json.dumps(body).encode())

    def _call(self, method: str, path: str, body: bytes | None) -> tuple[int, bytes]:
        self.connection.request(method, self.prefix + path, body=body, headers=self.headers)
        response = self.connection.getresponse()
        return response.status, response.read()

    def close(self) -> None:
        self.connection.close()

    def __enter__(self) -> LeanClient:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


# The instruction sets the bundled int8 model's speed depends on (VNNI above all), in the order worth naming.
_CPU_FEATURES = ("avx2", "avx512f", "avx512_vnni", "avx_vnni", "amx_int8")


def cpu_note() -> str:
    """The CPU's name and which of the features the figures depend on it has, for a benchmark's first line."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return "cpu: unknown (no /proc/cpuinfo)"
    fields: dict[str, str] = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    name = fields.get("model name", "unknown")
    flags = set(fields.get("flags", "").split())
    have = [f for f in _CPU_FEATURES if f in flags] or ["none of avx2, avx512f, vnni"]
    return f"cpu: {name}; {' '.join(have)}"


@dataclass(frozen=True)
class ModelSpeed:
    """The active model alone on this machine, the yardstick every ingest and search figure is read against."""

    texts_per_s: float  # embedding throughput, `MODEL_BATCH` texts at a time, as `python -m bench embed` measures it
    sorted_per_s: float  # handed `IMPORT_EMBED_CHUNK` at a time, as an import hands them (sorted by length inside)
    query_p50_ms: float  # one query embedded alone
    query_p95_ms: float

    def line(self) -> str:
        return (f"model alone: {self.texts_per_s:.0f} texts/s (batch {MODEL_BATCH}, as `python -m bench embed`), "
                f"{self.sorted_per_s:.0f} texts/s handed {IMPORT_EMBED_CHUNK} at a time as an import hands them; "
                f"a query embedded in p50 {self.query_p50_ms:.1f} / p95 {self.query_p95_ms:.1f} ms")  # fmt: skip


MODEL_BATCH = 32


def model_rate(texts: list[str], embedder=None, *, batch: int = MODEL_BATCH) -> float:
    """Texts per second of the model alone on these texts, `batch` per call (after one warm-up call). The local
    model sorts each call's texts by length and pads each batch of 64 to its longest, so on texts of mixed
    lengths larger calls embed faster; on texts of one length it makes no difference."""
    embedder = embedder or get_embedder()
    embedder.embed(texts[:MODEL_BATCH])
    started = time.perf_counter()
    for at in range(0, len(texts), batch):
        embedder.embed(texts[at : at + batch])
    return len(texts) / (time.perf_counter() - started)


def query_times_ms(queries: list[str], embedder=None) -> list[float]:
    """How long each query takes to embed alone, in ms."""
    embedder = embedder or get_embedder()
    out = []
    for query in queries:
        started = time.perf_counter()
        embed_queries(embedder, [query])
        out.append((time.perf_counter() - started) * 1000)
    return out


def model_speed(texts: list[str], queries: list[str]) -> ModelSpeed:
    """The model alone, in this process: throughput on `texts` both ways, and the embedding time of `queries`."""
    rate, best = model_rate(texts), model_rate(texts, batch=IMPORT_EMBED_CHUNK)
    times = query_times_ms(queries)
    return ModelSpeed(rate, best, percentile(times, 0.5), percentile(times, 0.95))


def _status_mb(pid: int | str, field: str) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def peak_rss_mb(pid: int | None = None) -> float:
    if pid is None:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return _status_mb(pid, "VmHWM")


def memory_note(pid: int | str = "self") -> str:
    """Peak resident memory counts the store's pages SQLite reads through mmap (the OS page cache, shared and
    given back under pressure); the process's own memory is RssAnon."""
    own = _status_mb(pid, "RssAnon")
    return f"(the process's own memory, RssAnon, now {own:.0f} MB; the rest is the store file, mapped)"


@contextmanager
def served(env: dict[str, str], *, port: int = 0, threads: int = 8, wait_seconds: float = 120.0) -> Iterator[tuple]:
    """`manage.py serve` with this environment on 127.0.0.1; yields (process, API base URL) once /health answers.
    Raises ServerDidNotStart when it does not within `wait_seconds`."""

    port = port or free_port()
    manage = str(Path(settings.BASE_DIR) / "manage.py")
    server = subprocess.Popen([sys.executable, manage, *serve_command(port, threads=threads)],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    base = f"http://127.0.0.1:{port}/api/v1"
    try:
        wait_for_health(f"{base}/health", server, timeout=wait_seconds, pause=0.5)
        yield server, base
    finally:
        stop(server)


@dataclass(frozen=True)
class ScratchStore:
    """A migrated store in a scratch folder, with a token: the environment a server and manage.py run with there,
    and the header that carries the token."""

    env: dict[str, str]
    headers: dict[str, str]

    def manage(self, *args: str) -> subprocess.CompletedProcess[str]:
        manage = str(Path(settings.BASE_DIR) / "manage.py")
        return subprocess.run([sys.executable, manage, *args], env=self.env, capture_output=True, text=True)


@contextmanager
def scratch_store(scratch: str | Path, token_name: str, **extra_env: str) -> Iterator[ScratchStore]:
    """A new store in `scratch` (no automatic backups), migrated, with a token named `token_name`. On PostgreSQL
    (MEMORYHUB_DATABASE_URL set) a database of its own on the same server, dropped afterwards: the configured
    database is never written, and every run starts as empty as a SQLite run does."""
    folder = Path(scratch)
    env = {**os.environ, "MEMORYHUB_DB": str(folder / "store.sqlite3"), "MEMORYHUB_BACKUP_DIR": str(folder / "backups"),
           "MEMORYHUB_AUTO_BACKUP": "0", **extra_env}  # fmt: skip
    database = None
    if env.get("MEMORYHUB_DATABASE_URL"):
        database = f"memoryhub_scratch_{secrets.token_hex(8)}"
        create_database(database)
        server = urlsplit(env["MEMORYHUB_DATABASE_URL"])
        env["MEMORYHUB_DATABASE_URL"] = urlunsplit(server._replace(path="/" + database))
    try:
        bare = ScratchStore(env, {})
        made = bare.manage("migrate", "--no-input", "-v", "0")
        token = bare.manage("create_token", token_name).stdout.strip().splitlines()[-1:]
        if made.returncode != 0 or not token:
            raise CommandError(f"could not prepare the store: {made.stderr[-300:]}")
        yield ScratchStore(env, {"Authorization": f"Bearer {token[0]}"})
    finally:
        if database is not None:
            drop_database(database)
