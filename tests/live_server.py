"""A real MemoryHub process for the tests that need one: a migrated SQLite file, `manage.py serve` on a free
127.0.0.1 port, tokens made by `create_token`. Used by the crash, concurrency, bad-input and fuzz tests.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]


def store_env(db: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYHUB_") or k == "MEMORYHUB_MODEL_CACHE"}
    env |= {
        "MEMORYHUB_DB": str(db),
        "MEMORYHUB_BACKUP_DIR": str(db.parent / "backups"),
        "PYTHONUNBUFFERED": "1",
        "DJANGO_SETTINGS_MODULE": "memoryhub.settings",
    }
    return env | extra


def manage(db: Path, *args: str, timeout: float = 180) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env=store_env(db),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if result.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return result.stdout


def make_template(directory: Path) -> Path:
    """Run `migrate` once into a file; tests copy it (migrating takes seconds, copying milliseconds)."""
    template = directory / "template.sqlite3"
    manage(template, "migrate", "--no-input", "-v", "0")
    return template


def migrated_store(template: Path, directory: Path, name: str = "store.sqlite3") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / name
    shutil.copyfile(template, target)
    return target


def create_token(db: Path, name: str, *options: str) -> str:
    """The token is the last line `create_token` prints."""
    return manage(db, "create_token", name, *options).strip().splitlines()[-1].strip()


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LiveServer:
    """`manage.py serve` as a subprocess. Output goes to a log file the tests can read afterwards."""

    def __init__(self, db: Path, *, threads: int = 8, workers: int = 1, env: dict[str, str] | None = None):
        self.db = db
        self.threads = threads
        self.workers = workers
        self.extra_env = env or {}
        self.port = 0
        self.process: subprocess.Popen | None = None
        self.log_path = db.parent / f"server-{db.stem}.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 90) -> LiveServer:
        self.port = free_port()
        log = open(self.log_path, "a")  # noqa: SIM115 - the child process writes to it until it stops
        self.process = subprocess.Popen(
            [
                sys.executable,
                "manage.py",
                "serve",
                "--port",
                str(self.port),
                "--threads",
                str(self.threads),
                "--workers",
                str(self.workers),
            ],  # fmt: skip
            cwd=REPO,
            env=store_env(self.db, **self.extra_env),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}:\n{self.log()}")
            try:
                if httpx.get(self.url + "/api/v1/health", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"the server did not answer within {timeout} s:\n{self.log()}")

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as in a power cut or an OOM kill."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def __enter__(self) -> LiveServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
