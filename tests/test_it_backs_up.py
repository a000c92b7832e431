"""Backups: consistent while agents write, checked before they replace anything, and kept in bounded number."""

from __future__ import annotations

import hashlib
import io
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest
from django.core.management import call_command

from memoryhub.memories.backup import (
    RestoreRefused,
    backup_database,
    database_name,
    list_backups,
    restore_database,
)
from memoryhub.memories.health import run_checks
from memoryhub.memories.store import create_memory
from memoryhub.storage import sql
from memoryhub.storage.backend.driver import connect as driver_connect
from tests.live_server import REPO, LiveServer, create_token, migrated_store, store_env

# SQLite's backup file and restore; on PostgreSQL a backup is a store dump (tests/test_it_runs_on_postgresql.py).
pytestmark = pytest.mark.sqlite_only

# Writes memories through the domain, one transaction each, until a stop file appears; prints each committed id.
WRITER = """
import sys
from pathlib import Path
import django
django.setup()
from memoryhub.memories.store import create_memory
stop = Path(sys.argv[1])
i = 0
while not stop.exists() and i < 3000:
    memory = create_memory(content=f"Build note {i}: cache directory /var/cache/build-{i} is shared", project="alpha")
    print(memory.pk, flush=True)
    i += 1
"""


class Writer:
    def __init__(self, db: Path, stop: Path):
        self.stop_file = stop
        self.acked: list[int] = []
        self.process = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(stop)],
            cwd=REPO,
            env=store_env(db),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.more = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            with self.more:
                self.acked.append(int(line))
                self.more.notify_all()
        with self.more:
            self.more.notify_all()

    def wait_for(self, count: int) -> None:
        with self.more:
            ok = self.more.wait_for(lambda: len(self.acked) >= count or self.process.poll() is not None, timeout=120)
        assert ok and len(self.acked) >= count, self.process.stderr.read() if self.process.poll() else "too slow"

    def finish(self) -> set[int]:
        self.stop_file.touch()
        assert self.process.wait(timeout=60) == 0, self.process.stderr.read()
        self.reader.join(timeout=10)
        return set(self.acked)


def ids_in(path: Path) -> set[int]:
    conn = driver_connect(str(path))
    try:
        return sql.index_ids(conn)["rows"]
    finally:
        conn.close()


def check_file(path: Path):
    conn = driver_connect(str(path))
    try:
        return run_checks(conn)
    finally:
        conn.close()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_backup_taken_while_an_agent_writes_restores_to_a_consistent_store(store_template, tmp_path, settings):
    settings.MEMORYHUB_BACKUP_DIR = str(tmp_path / "backups")
    db = migrated_store(store_template, tmp_path / "live")
    writer = Writer(db, tmp_path / "stop")
    writer.wait_for(20)
    acked_before = set(writer.acked)
    backup = backup_database(reason="while writing", dest_dir=tmp_path / "backups", source=str(db))
    # The writer carries on through and after the backup: the copy was taken under live writes.
    writer.wait_for(len(writer.acked) + 10)
    all_acked = writer.finish()

    assert backup.name.startswith("memoryhub-") and backup.name.endswith("-while-writing.sqlite3")
    assert not Path(f"{backup}-wal").exists()  # one self-contained file
    in_backup = ids_in(backup)
    assert acked_before <= in_backup <= all_acked
    assert len(in_backup) < len(all_acked)

    restored = tmp_path / "restored" / "store.sqlite3"
    restore_database(path=backup, target=str(restored))
    report = check_file(restored)
    assert report.ok, report.lines()
    assert report.rows == report.fts == report.trigram == report.vectors == len(in_backup)
    assert ids_in(restored) == in_backup

    # Over an existing store: replaced in place, and what it held first is kept in a "before-restore" backup.
    restore_database(path=backup, target=str(db))
    assert ids_in(db) == in_backup
    assert check_file(db).ok
    before_restore = [p for p in list_backups(tmp_path / "backups") if p.name.endswith("-before-restore.sqlite3")]
    assert len(before_restore) == 1
    assert ids_in(before_restore[0]) == all_acked


def test_a_restore_under_a_running_server_is_what_the_server_serves_next(store_template, tmp_path, settings):
    settings.MEMORYHUB_BACKUP_DIR = str(tmp_path / "backups")
    db = migrated_store(store_template, tmp_path / "live")
    token = create_token(db, "agent-1")
    with (
        LiveServer(db, threads=4) as server,
        httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=120) as http,
    ):
        kept = http.post("/api/v1/memories", json={"content": "Releases are cut from the main branch on Tuesdays"})
        backup = backup_database(reason="before mistake", dest_dir=tmp_path / "made", source=str(db))
        lost = http.post("/api/v1/memories", json={"content": "The mobile app reads feature flags from LaunchDarkly"})
        assert kept.status_code == lost.status_code == 201
        restore_database(path=backup, target=str(db))
        # The server's open connections see the restored store on their next request; no restart needed.
        assert http.get(f"/api/v1/memories/{kept.json()['memory']['id']}").status_code == 200
        assert http.get(f"/api/v1/memories/{lost.json()['memory']['id']}").status_code == 404
        assert http.get("/api/v1/health").json()["memories"] == 1
        found = http.post("/api/v1/search", json={"query": "which branch are releases cut from"})
        assert [r["id"] for r in found.json()["results"]][:1] == [kept.json()["memory"]["id"]]
        again = http.post("/api/v1/memories", json={"content": "Staging data is anonymised every night"})
        assert again.status_code == 201
    assert check_file(db).ok


@pytest.fixture
def sound_backup(tmp_path, settings) -> Path:
    settings.MEMORYHUB_BACKUP_DIR = str(tmp_path / "backups")
    for n in range(3):
        create_memory(content=f"Release {n} is tagged from the main branch", project="alpha")
    return backup_database(reason="sound", dest_dir=tmp_path / "made", source=database_name())


@pytest.fixture
def live_store(store_template, tmp_path) -> Path:
    return migrated_store(store_template, tmp_path / "live")


def assert_refused(candidate: Path, live_store: Path, message: str) -> None:
    before = digest(live_store)
    with pytest.raises(RestoreRefused, match=message):
        restore_database(path=candidate, target=str(live_store))
    assert digest(live_store) == before
    assert [p.name for p in live_store.parent.iterdir()] == [live_store.name]  # no staged copy left behind


@pytest.mark.django_db(transaction=True)
def test_it_refuses_a_corrupt_backup_and_leaves_the_store_untouched(sound_backup, live_store):
    conn = driver_connect(str(sound_backup))
    root_page, page_size = (
        conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", [sql.MEMORY_TABLE]).fetchone()[0],
        sql.page_size(conn),
    )
    conn.close()
    with open(sound_backup, "r+b") as handle:
        handle.seek((root_page - 1) * page_size)
        handle.write(b"\xff" * page_size)
    assert_refused(sound_backup, live_store, "integrity_check|damaged")


@pytest.mark.django_db(transaction=True)
def test_it_refuses_a_backup_whose_keyword_index_disagrees_with_its_rows(sound_backup, live_store):
    conn = driver_connect(str(sound_backup))
    memory_id, content, tags = conn.execute(f"SELECT id, content, tags FROM {sql.MEMORY_TABLE} LIMIT 1").fetchone()
    conn.execute(
        f"INSERT INTO {sql.FTS_TABLE}({sql.FTS_TABLE}, rowid, content, tags) VALUES ('delete', ?, ?, ?)",
        [memory_id, content, tags],
    )
    conn.commit()
    conn.close()
    assert_refused(sound_backup, live_store, "keyword index memory_fts disagrees")


def test_it_refuses_files_that_are_not_memoryhub_stores(tmp_path, live_store):
    garbage = tmp_path / "garbage.sqlite3"
    garbage.write_bytes(b"this is not a database" * 100)
    assert_refused(garbage, live_store, "not a readable SQLite database")

    foreign = tmp_path / "foreign.sqlite3"
    conn = driver_connect(str(foreign))
    conn.execute("CREATE TABLE notes (body TEXT)")
    conn.commit()
    conn.close()
    assert_refused(foreign, live_store, "not a MemoryHub store .missing: memoryhub_memory")

    assert_refused(tmp_path / "missing.sqlite3", live_store, "does not exist")


def test_it_keeps_only_the_newest_backups(store_template, tmp_path, settings):
    settings.MEMORYHUB_BACKUP_KEEP = 3
    db = migrated_store(store_template, tmp_path / "live")
    directory = tmp_path / "backups"
    directory.mkdir()
    (directory / "notes.txt").write_text("not ours")
    made = [backup_database(reason=f"round {n}", dest_dir=directory, source=str(db)) for n in range(5)]
    assert list_backups(directory) == made[-3:]
    assert (directory / "notes.txt").read_text() == "not ours"
    assert not list(directory.glob(".*partial"))


@pytest.mark.django_db(transaction=True)
def test_the_backup_command_prints_the_file_it_wrote_last(tmp_path):
    for n in range(4):
        create_memory(content=f"Service {n} listens on port 80{n}0", project="beta")
    out = io.StringIO()
    call_command("backup", dest=str(tmp_path), reason="before upgrade", stdout=out)
    path = Path(out.getvalue().strip().splitlines()[-1])
    assert path.parent == tmp_path and path.name.endswith("-before-upgrade.sqlite3")
    report = check_file(path)
    assert report.ok and report.rows == 4


AUTO = """
import django
django.setup()
from memoryhub.memories.backup import auto_backup
from memoryhub.memories.store import create_memory
print(auto_backup("bulk-delete"))
create_memory(content="The staging database is refreshed every Monday", project="alpha")
print(auto_backup("bulk-delete"))
# A burst of imports: the first backup of the burst is enough.
print(auto_backup("import", min_interval=300))
print(auto_backup("import", min_interval=300))
"""


@pytest.mark.parametrize("enabled", ["true", "false"])
def test_auto_backup_saves_a_non_empty_store_unless_switched_off(store_template, tmp_path, enabled):
    db = migrated_store(store_template, tmp_path / "live")
    result = subprocess.run(
        [sys.executable, "-c", AUTO],
        cwd=REPO,
        env=store_env(db, MEMORYHUB_AUTO_BACKUP=enabled),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    empty_store, with_a_memory, first_import, second_import = result.stdout.strip().splitlines()
    assert empty_store == "None"  # nothing to lose yet
    if enabled == "true":
        assert Path(with_a_memory).parent == db.parent / "backups"
        assert Path(with_a_memory).name.endswith("-auto-bulk-delete.sqlite3")
        assert check_file(Path(with_a_memory)).rows == 1
        assert Path(first_import).name.endswith("-auto-import.sqlite3")
        assert second_import == "None"
    else:
        assert [with_a_memory, first_import, second_import] == ["None"] * 3
        assert not (db.parent / "backups").exists()
