"""`serve --workers N`: N serving processes sharing one listening socket.

One process runs Python one thread at a time: the request threads of a single server share one interpreter lock,
so on a machine with several cores the Python part of concurrent requests (the API, fusion, the gate) queues
behind itself. Several processes each have their own lock, their own copy of the embedding model and their own
in-process vector copy; the copies stay current through the store's change log (storage/vector_index.py), and
SQLite serialises their writes (IMMEDIATE transactions, the busy timeout).

The parent binds the socket, forks the workers and then only watches them:
- SIGTERM or SIGINT to the parent is passed to every worker as SIGTERM; each finishes its requests, writes its
  queued bookkeeping and exits; the parent exits when all have.
- A worker that dies on its own is reported with its exit code or signal. One that had served for a while is
  replaced; one that dies within its first seconds (a broken start) stops the whole server with exit code 1,
  rather than being restarted in a loop.

Forking happens before any worker loads the model or opens the database: onnxruntime's thread pools and open
SQLite connections must not be shared across a fork.
"""

from __future__ import annotations

import fcntl
import os
import signal
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable

from memoryhub.runtime.metrics import worker_died

# A worker that dies sooner than this after it started is taken for a broken start, not a crash to recover from.
_SHORTEST_LIFE_S = 10.0


def listening_socket(host: str, port: int, backlog: int = 1024) -> socket.socket:
    """A bound, listening TCP socket for `host:port` (IPv4 or IPv6, as the name resolves)."""
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if family == socket.AF_INET6:
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    sock.bind(address)
    sock.listen(backlog)
    return sock


def raise_system_exit(signum: int, frame: object) -> None:
    """SIGTERM as a clean stop: waitress ends its loop on SystemExit as on Ctrl-C, and `finally` blocks run."""
    raise SystemExit(0)


def describe(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            return f"was killed by {signal.Signals(number).name}"
        except ValueError:
            return f"was killed by signal {number}"
    return f"exited with code {os.waitstatus_to_exitcode(status)}"


class SharedLock:
    """A lock for the threads of every worker: a thread lock inside the process, `flock` on a file between
    processes. The kernel drops the `flock` of a process that dies, so a worker killed while holding the lock
    never leaves the others waiting forever (a lock in shared memory would). Make one per process, after the
    fork: a descriptor inherited across fork would share one lock with the parent's."""

    def __init__(self, path: str):
        self._local = threading.Lock()
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)

    def __enter__(self) -> SharedLock:
        self._local.acquire()
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX)
        except BaseException:
            self._local.release()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        fcntl.flock(self._fd, fcntl.LOCK_UN)
        self._local.release()


class Prefork:
    """Forks `workers` children that each call `run_worker(index)`; see the module docstring."""

    def __init__(
        self,
        workers: int,
        run_worker: Callable[[int], None],
        report: Callable[[str], None],
        on_death: Callable[[int], None] = lambda index: None,
    ):
        self.workers = workers
        self.run_worker = run_worker
        self.report = report
        self.on_death = on_death  # the parent's cleanup for what a dead worker may have left behind
        self.children: dict[int, tuple[int, float]] = {}  # pid -> (worker index, when it started)
        self.stopping = False

    def _fork(self, index: int) -> None:
        sys.stdout.flush()
        sys.stderr.flush()
        # A stop signal arriving around the fork waits until the child has its own handlers: run with the
        # parent's, it would signal the parent's children from the child.
        stops = {signal.SIGTERM, signal.SIGINT}
        signal.pthread_sigmask(signal.SIG_BLOCK, stops)
        pid = os.fork()
        if pid == 0:  # the worker: never return into the parent's code
            code = 0
            try:
                self.children.clear()
                signal.signal(signal.SIGTERM, raise_system_exit)
                signal.signal(signal.SIGINT, signal.default_int_handler)
                signal.pthread_sigmask(signal.SIG_UNBLOCK, stops)
                self.run_worker(index)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 0
            except BaseException:  # noqa: BLE001 - reported here, the parent sees the exit code
                traceback.print_exc()
                code = 1
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        self.children[pid] = (index, time.monotonic())
        signal.pthread_sigmask(signal.SIG_UNBLOCK, stops)

    def _stop(self, signum: int = signal.SIGTERM, frame: object = None) -> None:
        self.stopping = True
        for pid in list(self.children):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

    def run(self) -> int:
        """Serve until told to stop or a worker fails at start; the exit code for the command."""
        previous = {sig: signal.signal(sig, self._stop) for sig in (signal.SIGTERM, signal.SIGINT)}
        code = 0
        try:
            for index in range(self.workers):
                self._fork(index)
            while self.children:
                pid, status = os.wait()  # PEP 475: a signal runs _stop, then the wait goes on
                index, started = self.children.pop(pid, (None, 0.0))
                if index is None or self.stopping:
                    continue
                self.on_death(index)
                worker_died(pid)  # its share of the live gauges goes (runtime/metrics.py)
                lived = time.monotonic() - started
                self.report(f"worker {index} (pid {pid}) {describe(status)} after {lived:.0f} s")
                if lived < _SHORTEST_LIFE_S:
                    self.report("it died during its start: stopping the server")
                    code = 1
                    self._stop()
                else:
                    self._fork(index)
                    self.report(f"worker {index} replaced")
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        return code
