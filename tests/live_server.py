"""A real MemoryHub process for the tests that need one: a migrated store, `manage.py serve` on a free
127.0.0.1 port, tokens made by `create_token`. Used by the crash, concurrency, bad-input and fuzz tests.

A store is named by a path. On SQLite (the default) it is that file. When the suite runs on PostgreSQL
(MEMORYHUB_DATABASE_URL set), each path stands for a database of its own on that server, named from the path,
made from a migrated template database as the SQLite file is copied from a migrated template file.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from bench.processes import ServerDidNotStart, free_port, serve_command, stop, wait_for_health

REPO = Path(__file__).resolve().parents[1]


POSTGRES_URL = os.environ.get("MEMORYHUB_DATABASE_URL", "")


def on_postgresql() -> bool:
    return bool(POSTGRES_URL)


def postgres_name(db: Path) -> str:
    return "mh_" + hashlib.sha1(str(db.resolve()).encode()).hexdigest()[:20]


def postgres_url(db: Path) -> str:
    parts = urlsplit(POSTGRES_URL)
    return urlunsplit(parts._replace(path="/" + postgres_name(db)))


def _postgres_admin(*statements: str) -> None:
    import psycopg

    with psycopg.connect(POSTGRES_URL.replace("postgresql://", "postgresql://", 1), autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement)


def query_store(db: Path, statement: str) -> list[tuple]:
    """Rows of a read-only statement on the store named by `db` (the SQLite file, or its PostgreSQL database)."""
    if on_postgresql():
        import psycopg

        with psycopg.connect(postgres_url(db)) as conn:
            return [tuple(row) for row in conn.execute(statement).fetchall()]
    import sqlite3

    with sqlite3.connect(db) as conn:
        return conn.execute(statement).fetchall()


def check_store(db: Path) -> str:
    """What `manage.py check --store-only` says of the store; raises RuntimeError when the check fails."""
    return manage(db, "check", "--store-only")


def store_env(db: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYHUB_") or k == "MEMORYHUB_MODEL_CACHE"}
    if on_postgresql():
        env["MEMORYHUB_DATABASE_URL"] = postgres_url(db)
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
    if on_postgresql():
        name = postgres_name(template)
        _postgres_admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)", f"CREATE DATABASE {name}")
    manage(template, "migrate", "--no-input", "-v", "0")
    return template


def migrated_store(template: Path, directory: Path, name: str = "store.sqlite3") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / name
    if on_postgresql():
        name = postgres_name(target)
        _postgres_admin(
            f"DROP DATABASE IF EXISTS {name} WITH (FORCE)", f"CREATE DATABASE {name} TEMPLATE {postgres_name(template)}"
        )
        target.touch()
        return target
    shutil.copyfile(template, target)
    return target


def create_token(db: Path, name: str, *options: str) -> str:
    """The token is the last line `create_token` prints."""
    return manage(db, "create_token", name, *options).strip().splitlines()[-1].strip()


# `manage.py` run after `boot` (Python code) has run in the configured process: how a test changes a constant of
# the server's code (the vector copy's limit, a value of the tuning table), as monkeypatch does in its own.
_BOOTED = """
import os, runpy, sys
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")
import django
django.setup()
exec(sys.argv.pop(1))
sys.argv[0] = "manage.py"
runpy.run_path("manage.py", run_name="__main__")
"""


class LiveServer:
    """`manage.py serve` as a subprocess. Output goes to a log file the tests can read afterwards."""

    def __init__(self, db: Path, *, threads: int = 8, workers: int = 1, env: dict[str, str] | None = None,
                 boot: str = ""):  # fmt: skip
        self.db = db
        self.threads = threads
        self.workers = workers
        self.extra_env = env or {}
        self.boot = boot
        self.port = 0
        self.process: subprocess.Popen | None = None
        self.log_path = db.parent / f"server-{db.stem}.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 90) -> LiveServer:
        self.port = free_port()
        log = open(self.log_path, "a")  # noqa: SIM115 - the child process writes to it until it stops
        command = [sys.executable, "-c", _BOOTED, self.boot] if self.boot else [sys.executable, "manage.py"]
        self.process = subprocess.Popen(
            [*command, *serve_command(self.port, threads=self.threads, workers=self.workers)],
            cwd=REPO,
            env=store_env(self.db, **self.extra_env),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        try:
            wait_for_health(self.url + "/api/v1/health", self.process, timeout=timeout)
        except ServerDidNotStart as exc:
            self.stop()
            raise RuntimeError(f"{exc}:\n{self.log()}") from exc
        return self

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as in a power cut or an OOM kill."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process:
            stop(self.process)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def __enter__(self) -> LiveServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
