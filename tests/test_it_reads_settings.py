"""Settings: every variable is honoured where it matters, and a bad value stops start-up with one line naming it.

Real processes: the check happens while Django imports the settings, before any code of ours could catch it in
the test process.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.live_server import REPO, migrated_store, store_env

ENTRY_POINTS = {
    "manage.py migrate": [sys.executable, "manage.py", "migrate", "--no-input"],
    "manage.py serve": [sys.executable, "manage.py", "serve", "--port", "1"],
    "wsgi": [sys.executable, "-c", "import memoryhub.wsgi"],
    "mcp stdio": [sys.executable, "-m", "memoryhub.agents.mcp_server"],
}


def run(command: list[str], db: Path, timeout: float = 120, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        command,
        cwd=REPO,
        env=store_env(db, **env),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def assert_stopped_naming(result: subprocess.CompletedProcess, variable: str) -> None:
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2, result.stderr
    assert len(lines) == 1, result.stderr
    assert variable in lines[0]
    assert "Traceback" not in result.stderr + result.stdout


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_every_entry_point_stops_on_a_bad_value_with_one_line(entry, tmp_path):
    result = run(ENTRY_POINTS[entry], tmp_path / "store.sqlite3", MEMORYHUB_DB_TIMEOUT="twenty")
    assert_stopped_naming(result, "MEMORYHUB_DB_TIMEOUT")
    assert not (tmp_path / "store.sqlite3").exists()  # stopped before anything touched the store


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("MEMORYHUB_DB_MMAP_MB", "-1"),
        ("MEMORYHUB_RECALL_BUDGET_CHARS", "50"),
        ("MEMORYHUB_RECALL_BUDGET_CHARS", "50000"),
        ("MEMORYHUB_AUTO_BACKUP", "maybe"),
        ("MEMORYHUB_GATE_DUPLICATE_COSINE", "nan"),
        ("MEMORYHUB_SEARCH_MIN_SCORE", "1.5"),
        ("MEMORYHUB_DECAY_TIER_RATES", "semantic=2"),
        ("MEMORYHUB_LOG_LEVEL", "loud"),
    ],
)
def test_a_bad_value_is_named_on_one_line(variable, value, tmp_path):
    assert_stopped_naming(run(ENTRY_POINTS["manage.py migrate"], tmp_path / "s.sqlite3", **{variable: value}), variable)


PROBE = """
import django
django.setup()
from django.conf import settings
from django.db import connection
from memoryhub.memories.store import create_memory
from memoryhub.retrieval.recall import build_recall
from memoryhub.retrieval.search import MemoryFilter, search_memories
for n in range(12):
    create_memory(content=f"Service {n} of alpha reads queue q{n} via the broker", project="alpha", confirmed=True)
search_memories(query="which queue does service 3 read", within=MemoryFilter(visible_from="alpha"), k=5)
with connection.cursor() as cursor:
    if connection.vendor == "postgresql":  # the same setting is the lock timeout there; no memory mapping
        cursor.execute("SELECT (extract(epoch FROM current_setting('lock_timeout')::interval) * 1000)::int")
        print("busy_timeout", cursor.fetchone()[0])
    else:
        cursor.execute("PRAGMA busy_timeout")
        print("busy_timeout", cursor.fetchone()[0])
        cursor.execute("PRAGMA mmap_size")
        print("mmap_size", cursor.fetchone()[0])
print("recall", len(build_recall(project="alpha").text), settings.MEMORYHUB_RECALL_BUDGET_CHARS)
"""


def probe(store_template, tmp_path, **env: str) -> dict[str, list[int]]:
    db = migrated_store(store_template, tmp_path / "probe")
    result = run([sys.executable, "-c", PROBE], db, timeout=240, **env)
    assert result.returncode == 0, result.stderr
    return {line.split()[0]: [int(v) for v in line.split()[1:]] for line in result.stdout.splitlines()}


def test_the_database_timeout_mmap_size_and_recall_budget_are_honoured(store_template, tmp_path):
    """After a search too: nothing on the way resets the pragmas the settings chose."""
    seen = probe(
        store_template,
        tmp_path,
        MEMORYHUB_DB_TIMEOUT="7",
        MEMORYHUB_DB_MMAP_MB="64",
        MEMORYHUB_RECALL_BUDGET_CHARS="180",
    )
    assert seen["busy_timeout"] == [7000]
    assert seen.get("mmap_size", [64 * 1024 * 1024]) == [64 * 1024 * 1024]
    chars, budget = seen["recall"]
    assert budget == 180 and 0 < chars <= 180


def test_the_defaults_are_the_documented_ones(store_template, tmp_path):
    seen = probe(store_template, tmp_path)
    assert seen["busy_timeout"] == [20000]
    assert seen.get("mmap_size", [1024 * 1024 * 1024]) == [1024 * 1024 * 1024]
    chars, budget = seen["recall"]
    assert budget == 400 and 180 < chars <= 400
