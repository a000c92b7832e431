"""The server processes a benchmark or a test starts: a free port to serve on, `manage.py serve`'s arguments, the wait
until the health check answers, and a stop that escalates to SIGKILL. Standard library and httpx only, so any harness
can import it (the tests' live server, the benchmarks, the round-3 evaluation, scripts/loadtest.py)."""

from __future__ import annotations

import socket
import subprocess
import time

import httpx


class ServerDidNotStart(RuntimeError):
    """The server exited, or its health check did not answer in time."""


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def serve_command(port: int, *, threads: int, workers: int | None = None) -> list[str]:
    """`manage.py serve`'s arguments for a server on 127.0.0.1:`port` (`workers`: the server's default if None)."""
    return ["serve", "--port", str(port), "--threads", str(threads), *(["--workers", str(workers)] if workers else [])]


def wait_for_health(url: str, process: subprocess.Popen, *, timeout: float, pause: float = 0.2) -> None:
    """Return once GET `url` answers 200; ServerDidNotStart when `process` exits first or `timeout` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ServerDidNotStart(f"the server exited with {process.returncode}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(pause)
    raise ServerDidNotStart(f"the server did not answer within {timeout:g} s")


def stop(process: subprocess.Popen, *, timeout: float = 15) -> None:
    """SIGTERM, then SIGKILL when it has not stopped within `timeout` seconds; nothing for a process that exited."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=timeout)
