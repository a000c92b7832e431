"""Load test against the real server: several agents writing and searching at once.

    python scripts/loadtest.py                       # starts its own server on 127.0.0.1 with a fresh store
    python scripts/loadtest.py --clients 8 --seconds 60 --write-ratio 0.3
    python scripts/loadtest.py --url http://127.0.0.1:8000 --token mh_...   # an already running server

Each client is one thread with its own keep-alive HTTP connection, like one agent. Writes go through
POST /api/v1/memories (the write gate and all); searches through POST /api/v1/search. Clients are closed-loop
with no think time: each sends its next request the moment the last one answers.

Before and after the mixed load, one client alone sends `--idle-searches` searches (the same kind of queries) at
rest: the idle p95 that the searches' p95 under load is compared with (the ratio is printed). Then every
acknowledged write is read back. Prints p50/p95 per operation, throughput and the error count; exits 1 when
there was any error or any acknowledged write is missing.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # run as a script: the lab's process helpers live in the checkout's bench/

from bench.processes import ServerDidNotStart, free_port, serve_command, wait_for_health  # noqa: E402

# Random bags of these words make facts that the gate neither folds into each other nor mistakes for noise.
WORDS = """
cache queue worker deploy staging production migration schema index query latency timeout retry webhook
invoice payment refund ledger account session cookie token header proxy gateway router balancer cluster
replica shard partition backup snapshot archive bucket object storage volume container image registry
pipeline runner artifact release version changelog branch commit rebase merge review linter formatter
compiler bundler transpiler runtime interpreter scheduler cron daemon service endpoint handler middleware
template partial component widget layout stylesheet font icon chart graph metric alert dashboard logger
tracer profiler benchmark fixture mock factory seed sandbox tenant project workspace organisation team
customer supplier warehouse shipment parcel courier address postcode currency exchange tax discount coupon
search ranking embedding vector keyword stemming tokenizer trigram synonym spelling typo locale timezone
calendar holiday weekend invoice batch stream event topic consumer producer offset lag heartbeat lease lock
mutex semaphore thread process memory heap stack garbage allocator buffer socket packet frame codec
""".split()
VERBS = "uses needs avoids prefers requires skips caches retries validates rotates compresses signs".split()


def fact(rng: random.Random, serial: str) -> str:
    picked = rng.sample(WORDS, 7)
    return (
        f"The {picked[0]} {rng.choice(VERBS)} the {picked[1]} {picked[2]} before the {picked[3]} "
        f"{picked[4]}, so check the {picked[5]} {picked[6]} first (case {serial})."
    )


def query(rng: random.Random) -> str:
    return " ".join(rng.sample(WORDS, rng.randint(1, 4)))


@dataclass
class Results:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    outcomes: Counter = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    acknowledged: dict[int, str | None] = field(default_factory=dict)  # memory id -> content when created
    lock: threading.Lock = field(default_factory=threading.Lock)

    def error(self, text: str) -> None:
        with self.lock:
            self.errors.append(text)


def client_loop(base: str, token: str, project: str, deadline: float, write_ratio: float, seed: int, out: Results):
    rng = random.Random(seed)
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=base, headers=headers, timeout=60) as http:
        n = 0
        while time.monotonic() < deadline:
            n += 1
            write = rng.random() < write_ratio
            op = "write" if write else "search"
            started = time.perf_counter()
            try:
                if write:
                    content = fact(rng, f"{seed}-{n}")
                    response = http.post("/api/v1/memories", json={"content": content, "project": project})
                else:
                    response = http.post("/api/v1/search", json={"query": query(rng), "project": project, "k": 10})
            except httpx.HTTPError as exc:
                out.error(f"{op}: {type(exc).__name__}: {exc}")
                continue
            elapsed = (time.perf_counter() - started) * 1000
            with out.lock:
                out.latencies[op].append(elapsed)
            if "database is locked" in response.text:
                out.error(f"{op}: database is locked ({response.status_code})")
                continue
            if write:
                record_write(response, content, out)
            elif response.status_code != 200 or "results" not in response.json():
                out.error(f"search: {response.status_code} {response.text[:200]}")


def record_write(response: httpx.Response, content: str, out: Results) -> None:
    if response.status_code not in (200, 201):
        out.error(f"write: {response.status_code} {response.text[:200]}")
        return
    body = response.json()
    outcome = body.get("outcome")
    memory = body.get("memory") or {}
    with out.lock:
        out.outcomes[outcome] += 1
        if outcome == "created" and response.status_code == 201 and memory.get("id"):
            out.acknowledged[memory["id"]] = content
        elif outcome in ("merged", "duplicate") and memory.get("id"):
            out.acknowledged.setdefault(memory["id"], None)  # folded into an existing memory: that one must exist
        else:
            out.errors.append(f"write: unexpected answer {response.status_code} {str(body)[:200]}")


def idle_searches(base: str, token: str, project: str, count: int, seed: int) -> list[float]:
    """Search latencies of one client alone, one request after another: the baseline for the mixed load."""
    rng = random.Random(seed)
    times = []
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=60) as http:
        for _ in range(count):
            started = time.perf_counter()
            response = http.post("/api/v1/search", json={"query": query(rng), "project": project, "k": 10})
            times.append((time.perf_counter() - started) * 1000)
            if response.status_code != 200:
                raise SystemExit(f"idle search failed: {response.status_code} {response.text[:200]}")
    return times


def verify(base: str, token: str, acknowledged: dict[int, str | None]) -> list[str]:
    problems = []
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=60) as http:
        for memory_id, content in sorted(acknowledged.items()):
            response = http.get(f"/api/v1/memories/{memory_id}")
            if response.status_code != 200:
                problems.append(f"memory {memory_id}: {response.status_code}")
            elif content is not None and response.json().get("content") != content:
                problems.append(f"memory {memory_id}: content differs")
    return problems


def percentile(values: list[float], q: float) -> float:
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


class OwnServer:
    """A fresh store in a temporary directory, served by `manage.py serve` on a free loopback port."""

    def __init__(self, threads: int, workers: int = 1):
        self.directory = Path(tempfile.mkdtemp(prefix="memoryhub-load-"))
        self.env = os.environ | {"MEMORYHUB_DB": str(self.directory / "load.sqlite3"), "PYTHONUNBUFFERED": "1"}
        self.env["MEMORYHUB_BACKUP_DIR"] = str(self.directory / "backups")
        self.threads = threads
        self.workers = workers
        self.process: subprocess.Popen | None = None

    def manage(self, *args: str) -> str:
        result = subprocess.run(
            [sys.executable, "manage.py", *args], cwd=REPO, env=self.env, capture_output=True, text=True
        )
        if result.returncode:
            raise SystemExit(f"manage.py {args[0]} failed:\n{result.stdout}{result.stderr}")
        return result.stdout

    def start(self) -> tuple[str, str]:
        self.manage("migrate", "--no-input", "-v", "0")
        token = self.manage("create_token", "loadtest").strip().splitlines()[-1]
        port = free_port()
        self.log = open(self.directory / "server.log", "w")  # noqa: SIM115 - open while the server runs
        self.process = subprocess.Popen(
            [sys.executable, "manage.py", *serve_command(port, threads=self.threads, workers=self.workers)],
            cwd=REPO,
            env=self.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            wait_for_health(base + "/api/v1/health", self.process, timeout=120)
        except ServerDidNotStart as exc:
            raise SystemExit(f"{exc}:\n{(self.directory / 'server.log').read_text()}") from exc
        return base, token

    def stop(self, keep: bool, show_errors: bool = False) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=30)
        self.log.close()
        if show_errors:
            # The server's own account of the first failure: the client only sees a 500.
            lines = (self.directory / "server.log").read_text(errors="replace").splitlines()
            start = next((i for i, line in enumerate(lines) if line.startswith("Traceback")), None)
            if start is not None:
                print("first server traceback:\n" + "\n".join(lines[start : start + 40]))
        if keep:
            print(f"store and server log kept in {self.directory}")
        else:
            shutil.rmtree(self.directory, ignore_errors=True)


def seed_store(base: str, token: str, project: str, count: int, rng: random.Random) -> None:
    items = [{"content": fact(rng, f"seed-{i}"), "project": project} for i in range(count)]
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=300) as http:
        for start in range(0, count, 100):
            response = http.post("/api/v1/memories/import", json={"memories": items[start : start + 100]})
            if response.status_code not in (200, 201):
                raise SystemExit(f"seeding failed: {response.status_code} {response.text[:300]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", help="a running server (default: start one with a fresh store)")
    parser.add_argument("--token", default=os.environ.get("MEMORYHUB_TOKEN", ""), help="bearer token for --url")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--write-ratio", type=float, default=0.3)
    parser.add_argument("--seed-memories", type=int, default=300, help="memories imported before the run")
    parser.add_argument("--threads", type=int, default=8, help="server threads when the script starts the server")
    parser.add_argument("--workers", type=int, default=1, help="server processes when the script starts the server")
    parser.add_argument(
        "--idle-searches", type=int, default=200, help="searches by one client alone before the load (0: skip)"
    )
    parser.add_argument("--project", default=f"loadtest-{int(time.time())}")
    parser.add_argument("--keep", action="store_true", help="keep the temporary store and server log")
    args = parser.parse_args()
    if args.url and not args.token:
        parser.error("--url needs --token (or MEMORYHUB_TOKEN)")

    server = None if args.url else OwnServer(args.threads, args.workers)
    base, token = (args.url.rstrip("/"), args.token) if args.url else server.start()
    try:
        rng = random.Random(7)
        if args.seed_memories:
            seed_store(base, token, args.project, args.seed_memories, rng)
        idle: list[float] = []
        if args.idle_searches:
            idle_searches(base, token, args.project, 20, seed=1)  # warm up: model, page cache, vector copy
            idle = idle_searches(base, token, args.project, args.idle_searches, seed=2)
            print(
                f"idle: {len(idle)} searches by one client: p50 {percentile(idle, 50):.1f} / p95 "
                f"{percentile(idle, 95):.1f} ms; load average {os.getloadavg()[0]:.2f}"
            )
        out = Results()
        print(
            f"{args.clients} clients, {args.seconds:.0f} s, {args.write_ratio:.0%} writes against {base} "
            f"({args.seed_memories} memories seeded); cpus {os.cpu_count()}, load average {os.getloadavg()[0]:.2f}"
        )
        started = time.monotonic()
        deadline = started + args.seconds
        threads = [
            threading.Thread(
                target=client_loop, args=(base, token, args.project, deadline, args.write_ratio, 1000 + i, out)
            )
            for i in range(args.clients)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall = time.monotonic() - started
        # At rest again: on a shared machine the load from elsewhere moves, so the baseline is taken on both sides.
        idle_after = idle_searches(base, token, args.project, args.idle_searches, seed=3) if args.idle_searches else []
        missing = verify(base, token, out.acknowledged)
    except BaseException:
        if server:
            server.stop(keep=True, show_errors=True)
        raise
    if server:
        server.stop(keep=args.keep or bool(out.errors or missing), show_errors=bool(out.errors))

    total = sum(len(v) for v in out.latencies.values())
    print(f"{'operation':<10}{'count':>8}{'p50 ms':>10}{'p95 ms':>10}{'p99 ms':>10}{'max ms':>10}{'per s':>9}")
    for op in ("write", "search"):
        values = out.latencies.get(op) or []
        if values:
            print(
                f"{op:<10}{len(values):>8}{percentile(values, 50):>10.1f}{percentile(values, 95):>10.1f}"
                f"{percentile(values, 99):>10.1f}{max(values):>10.1f}{len(values) / wall:>9.1f}"
            )
    print(f"throughput: {total / wall:.1f} requests/s over {wall:.1f} s; load average {os.getloadavg()[0]:.2f}")
    searches = out.latencies.get("search") or []
    if idle and searches:
        loaded = percentile(searches, 95)
        print(
            f"idle again after the load: p50 {percentile(idle_after, 50):.1f} / p95 {percentile(idle_after, 95):.1f} ms"
        )
        print(
            f"search p95 under load / idle p95: {loaded:.1f} / {percentile(idle, 95):.1f} ms = "
            f"{loaded / percentile(idle, 95):.2f}x (against the idle p95 after it: "
            f"{loaded / percentile(idle_after, 95):.2f}x)"
        )
    print(f"write outcomes: {dict(out.outcomes)}")
    print(f"acknowledged writes: {len(out.acknowledged)}, missing afterwards: {len(missing)}")
    print(f"errors: {len(out.errors)}")
    for line, count in Counter(out.errors + missing).most_common(10):
        print(f"  {count} x {line}")
    return 1 if out.errors or missing else 0


if __name__ == "__main__":
    sys.exit(main())
