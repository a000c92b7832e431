"""Online backups of the store, and restores that check a file before it replaces anything.

Backups go through SQLite's online backup API on a connection with sqlite-vec loaded, so the FTS5 and vec0
shadow tables are copied page for page with the rows, in one consistent snapshot, while the service keeps
serving (in WAL mode a reader does not block writers). Each backup is a single self-contained file.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import time
import urllib.parse
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.db import connections

from memoryhub.memories.transfer import dump_to
from memoryhub.models import Memory
from memoryhub.storage import sql
from memoryhub.storage.backend.driver import DRIVER
from memoryhub.storage.backend.driver import connect as driver_connect
from memoryhub.storage.resets import forget_store_caches

logger = logging.getLogger(__name__)

BACKUP_PREFIX = "memoryhub-"
# On PostgreSQL a backup is the store's portable dump (memories/transfer.py), which `load_store` reads back into a
# new database; the operators' pg_dump stays the backup of the database as a whole.
BACKUP_SUFFIX = ".jsonl" if sql.VENDOR == "postgresql" else ".sqlite3"
REQUIRED_TABLES = (
    sql.MEMORY_TABLE,
    sql.FTS_TABLE,
    sql.TRIGRAM_TABLE,
    "memory_fts_ai",
    "memory_fts_ad",
    "memory_fts_au",
    "django_migrations",
)


class BackupError(RuntimeError):
    """A backup could not be written; nothing partial is left behind. From `auto_backup`, the change it was to
    protect was not made either: the API answers 503 (api/errors.py), the dashboard says so (ui/views/common.py).
    """


class RestoreRefused(ValueError):
    """The file is not a sound MemoryHub store; the current store was not touched."""


def database_name() -> str:
    return str(connections["default"].settings_dict["NAME"])


def is_in_memory(name: str) -> bool:
    return name == ":memory:" or "mode=memory" in name


def _busy_seconds() -> float:
    return float(settings.DATABASES["default"].get("OPTIONS", {}).get("timeout", 20))


def _open(name: str):
    # uri=True so Django's in-memory test database ("file:...?mode=memory&cache=shared") opens too;
    # a plain path without the "file:" scheme is still read as a path.
    return driver_connect(name, uri=True, timeout=_busy_seconds())


def _open_read_only(path: Path):
    uri = "file:" + urllib.parse.quote(str(path.resolve())) + "?mode=ro"
    return driver_connect(uri, uri=True, timeout=_busy_seconds())


def _slug(reason: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", reason.lower()).strip("-")[:40] or "manual"


def _fsync(path: Path) -> None:
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())


def list_backups(dest_dir: Path | str | None = None) -> list[Path]:
    """This directory's MemoryHub backups, oldest first (the UTC timestamp in the name sorts them)."""
    directory = Path(dest_dir or settings.MEMORYHUB_BACKUP_DIR)
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.glob(f"{BACKUP_PREFIX}*{BACKUP_SUFFIX}") if p.is_file())


def prune_backups(dest_dir: Path | str | None = None, *, keep: int | None = None) -> list[Path]:
    """Delete all but the newest `keep` (MEMORYHUB_BACKUP_KEEP) backups. Touches only files named like ours."""
    keep = settings.MEMORYHUB_BACKUP_KEEP if keep is None else keep
    if keep < 1:
        raise ValueError("keep must be at least 1")
    removed = []
    for old in list_backups(dest_dir)[:-keep]:
        try:
            old.unlink()
            removed.append(old)
        except FileNotFoundError:  # another process pruned it first
            pass
    return removed


def _names(directory: Path, reason: str) -> tuple[Path, Path]:
    """Where a backup goes, and the temporary name it is written under until it is whole."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    final = directory / f"{BACKUP_PREFIX}{stamp}-{uuid.uuid4().hex[:6]}-{_slug(reason)}{BACKUP_SUFFIX}"
    return final, directory / f".{final.name}.partial"


def _discard(partial: Path) -> None:
    # On the way out of a failed backup: when the directory itself could not be made (a file in its place, no
    # permission), there is nothing to remove, and removing must not hide why the backup failed.
    try:
        partial.unlink(missing_ok=True)
    except OSError:
        pass


def backup_database(*, reason: str, dest_dir: Path | str | None = None, source: str | None = None) -> Path:
    """Write a consistent copy of the store to dest_dir (MEMORYHUB_BACKUP_DIR) and apply retention.

    `source` defaults to the configured database. The copy is written under a temporary name, checked
    (PRAGMA integrity_check) and only then renamed into place, so a backup file that exists is a whole one.
    """
    if sql.VENDOR == "postgresql" and source is None:
        return _dump_backup(reason=reason, directory=Path(dest_dir or settings.MEMORYHUB_BACKUP_DIR))
    source_name = source or database_name()
    if not is_in_memory(source_name) and not Path(source_name).is_file():
        raise BackupError(f"there is no database at {source_name} (run `.venv/bin/python manage.py migrate` first)")
    directory = Path(dest_dir or settings.MEMORYHUB_BACKUP_DIR)
    with _whole_file(directory, reason, f"backup of {source_name} to {directory}", (DRIVER.Error, OSError)) as (
        final,
        partial,
    ):
        src = _open(source_name)
        try:
            # Backups hold every memory: driver_connect creates the file readable by the owner alone.
            dst = driver_connect(str(partial))
            try:
                # pages=-1: the whole database in one step, inside one read snapshot. A stepwise copy would
                # restart every time another connection writes, and never finish under a busy agent.
                src.backup(dst, pages=-1)
                sql.set_journal_mode(dst, "DELETE")
                problems = sql.integrity_messages(dst)
            finally:
                dst.close()
        finally:
            src.close()
        if problems != ["ok"]:
            raise BackupError("the copy failed its integrity check: " + "; ".join(problems[:5]))
    return final


def _dump_backup(*, reason: str, directory: Path) -> Path:

    with _whole_file(directory, reason, f"backup to {directory}", (OSError,)) as (final, partial):
        partial.touch(mode=0o600)  # every memory is in it: readable by the owner alone
        dump_to(partial)
    return final


@contextlib.contextmanager
def _whole_file(directory: Path, reason: str, what: str, failures: tuple) -> Iterator[tuple[Path, Path]]:
    """(final, partial) paths for a backup written under the partial name, which becomes the final one only when
    the block ends without error, synced: a backup file that exists is a whole one. Then retention applies.
    `failures` (a locked or damaged source, a full disk, an unwritable directory) become a BackupError."""
    final, partial = _names(directory, reason)
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        yield final, partial
        _fsync(partial)
        os.replace(partial, final)
    except failures as exc:
        _discard(partial)
        raise BackupError(f"{what} failed: {exc}") from exc
    except BaseException:
        _discard(partial)
        raise
    prune_backups(directory)
    logger.info("backup written: %s (%s)", final, reason)


def auto_backup(reason: str, *, min_interval: float | None = None) -> Path | None:
    """Call before a destructive operation (bulk delete, merge acceptance, import over a non-empty store,
    re-embedding). Returns the backup, or None when switched off (MEMORYHUB_AUTO_BACKUP=false), when the
    database lives in memory (tests) or when there is nothing to lose yet. Raises BackupError when a backup
    was due and failed: the caller should not go on destroying what could not be saved.

    `min_interval` (seconds) skips the backup when one for the same reason is younger than that: for calls that
    come in bursts (an agent importing in batches), where the first backup of the burst already holds the store
    as it was before it.
    """
    if not settings.MEMORYHUB_AUTO_BACKUP:
        return None
    name = database_name()
    if is_in_memory(name):
        return None

    if not Memory.objects.exists():
        return None
    full_reason = f"auto-{reason}"
    if min_interval:
        suffix = f"-{_slug(full_reason)}{BACKUP_SUFFIX}"
        recent = [p for p in list_backups() if p.name.endswith(suffix)]
        if recent and time.time() - recent[-1].stat().st_mtime < min_interval:
            return None
    try:
        return backup_database(reason=full_reason)
    except BackupError as exc:
        raise BackupError(
            f"nothing was changed: the automatic backup before this {reason} failed ({exc}); make room or fix "
            "MEMORYHUB_BACKUP_DIR, or set MEMORYHUB_AUTO_BACKUP=false to go on without backups"
        ) from exc


def inspect_store(conn) -> dict[str, int]:
    """Refuse a file that is not a sound MemoryHub store; otherwise count what it holds."""
    problems = sql.integrity_messages(conn)
    if problems != ["ok"]:
        raise RestoreRefused("it fails PRAGMA integrity_check: " + "; ".join(problems[:5]))
    names = sql.schema_names(conn)
    missing = [t for t in REQUIRED_TABLES if t not in names]
    if not sql.vec_dimensions(names):
        missing.append("memory_vec_<dimensions>")
    if missing:
        raise RestoreRefused("it is not a MemoryHub store (missing: " + ", ".join(missing) + ")")
    for table in (sql.FTS_TABLE, sql.TRIGRAM_TABLE):
        try:
            sql.fts_check_table(table, conn)
        except DRIVER.Error as exc:
            raise RestoreRefused(f"its keyword index {table} disagrees with its rows ({exc})") from exc
    ids = sql.index_ids(conn)
    return {"memories": len(ids["rows"]), "vectors": len(ids["vectors"])}


def restore_database(*, path: Path | str, target: str | None = None) -> None:
    """Replace the store (or `target`) with the backup at `path`, after checking it.

    The file is first copied beside the target and checked there: PRAGMA integrity_check, the memory, FTS and
    vector tables and triggers present, FTS5 integrity against the rows. Anything wrong raises RestoreRefused
    and leaves the store as it was. A sound file then replaces the store atomically: through the backup API
    into the live database (one write transaction, so a running server's connections see either the old
    store or the new one), or by a rename when there is no store yet. The store being replaced is backed up
    first (reason "before-restore").
    """
    candidate = Path(path)
    if sql.VENDOR == "postgresql" and target is None:
        raise RestoreRefused(
            "on PostgreSQL, restore the database with pg_restore, or load a backup dump into a new, empty database "
            "with `manage.py load_store PATH` (see docs/team-hub.md)"
        )
    if not candidate.is_file():
        raise RestoreRefused(f"{candidate} does not exist or is not a file")
    target_name = target or database_name()
    if is_in_memory(target_name):
        raise RestoreRefused("the configured database lives in memory; restore needs a database file")
    target_path = Path(target_name)
    if candidate.resolve() == target_path.resolve():
        raise RestoreRefused("the backup is the database itself")
    target_path.parent.mkdir(parents=True, exist_ok=True)
    staged = target_path.with_name(f".{target_path.name}.restore-{uuid.uuid4().hex[:8]}")
    try:
        _stage(candidate, staged)
        _replace(staged, target_path)
    finally:
        staged.unlink(missing_ok=True)
    if target is None or Path(target).resolve() == Path(database_name()).resolve():
        # This process's own connection must not go on with pages it cached from the old store, nor search with
        # the old store's vectors and word frequencies.
        connections["default"].close()
        forget_store_caches()
    logger.info("store %s restored from %s", target_path, candidate)


def _stage(candidate: Path, staged: Path) -> None:
    """Copy the candidate beside the store and check the copy (the candidate itself is only read)."""
    try:
        src = _open_read_only(candidate)
        try:
            stage = driver_connect(str(staged))
            try:
                src.backup(stage, pages=-1)
            finally:
                stage.close()
        finally:
            src.close()
    except DRIVER.Error as exc:
        raise RestoreRefused(f"{candidate} is not a readable SQLite database ({exc})") from exc
    stage = driver_connect(str(staged))
    try:
        inspect_store(stage)
        sql.renew_generation(stage)  # every process's vector copy of the store it replaces rebuilds
    except DRIVER.Error as exc:
        raise RestoreRefused(f"{candidate} is damaged ({exc})") from exc
    finally:
        stage.close()


def _replace(staged: Path, target_path: Path) -> None:
    if not target_path.exists():
        for leftover in (Path(f"{target_path}-wal"), Path(f"{target_path}-shm")):
            leftover.unlink(missing_ok=True)
        conn = driver_connect(str(staged))
        try:
            sql.set_journal_mode(conn, "WAL")
        finally:
            conn.close()
        _fsync(staged)
        os.replace(staged, target_path)
        return
    backup_database(reason="before-restore", source=str(target_path))
    src = driver_connect(str(staged))
    try:
        dst = _open(str(target_path))
        try:
            if sql.page_size(src) != sql.page_size(dst):
                raise RestoreRefused(
                    "the backup's page size differs from the store's; stop the server and "
                    "move the file into place by hand"
                )
            src.backup(dst, pages=-1)
            sql.set_journal_mode(dst, "WAL")
        finally:
            dst.close()
    except DRIVER.Error as exc:
        raise RestoreRefused(f"the store could not be replaced ({exc}); it was left as it was") from exc
    finally:
        src.close()
