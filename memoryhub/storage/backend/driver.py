"""Pick a DB-API sqlite module that can load extensions, once, at start-up.

The stdlib module is preferred; some CPython builds (this machine's among them) are compiled without
`enable_load_extension`, and then `pysqlite3` (pysqlite3-binary) or `sqlean` (sqlean.py) stand in.
"""

from __future__ import annotations

import importlib
import os
import sqlite3 as stdlib_sqlite3
from pathlib import Path
from types import ModuleType

import sqlite_vec

# FTS5 'contentless_delete' and a few JSON niceties want 3.43+; the stdlib is used only when it is that recent.
MIN_SQLITE = (3, 43, 0)


class NoExtensionLoading(RuntimeError):
    pass


def _can_load_extensions(module: ModuleType) -> bool:
    connection = module.connect(":memory:")
    try:
        return hasattr(connection, "enable_load_extension")
    finally:
        connection.close()


def choose_driver() -> ModuleType:
    version = tuple(int(p) for p in stdlib_sqlite3.sqlite_version.split("."))
    if version >= MIN_SQLITE and _can_load_extensions(stdlib_sqlite3):
        return stdlib_sqlite3
    for name in ("pysqlite3", "sqlean"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if _can_load_extensions(module):
            return module
    raise NoExtensionLoading(
        "This Python's sqlite3 cannot load extensions (sqlite-vec is required). "
        "Install a drop-in module: pip install pysqlite3-binary (or sqlean.py)."
    )


def load_vec(connection) -> None:

    connection.enable_load_extension(True)
    try:
        sqlite_vec.load(connection)
    finally:
        connection.enable_load_extension(False)


def owner_only(name) -> None:
    """Create the database file readable by its owner alone (0600) before SQLite opens it: SQLite gives the WAL
    and shared-memory files the mode of the database file, so they follow. An existing file is narrowed too."""
    if not name or str(name) == ":memory:" or str(name).startswith("file:"):
        return
    path = Path(name)
    try:
        if not path.exists():
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        for candidate in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            if candidate.exists() and candidate.stat().st_mode & 0o077:
                candidate.chmod(0o600)
    except OSError:  # a directory we may not write to: SQLite's own error is clearer
        pass


def connect(path: str, **kwargs):
    """A plain connection with sqlite-vec loaded, for tools that work outside the ORM (backup, checks); a file it
    creates is readable by the owner alone."""
    if not kwargs.get("uri"):
        owner_only(path)
    connection = DRIVER.connect(path, **kwargs)
    load_vec(connection)
    return connection


DRIVER = choose_driver()
