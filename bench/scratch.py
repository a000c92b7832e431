"""A throw-away store for the lab's benchmark and evaluation commands, so the user's store is never touched: a temporary
SQLite file, or on PostgreSQL a database of its own on the same server."""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import tempfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connections

from memoryhub.storage.side_databases import create_database, database_exists, drop_database


def _same_file(a: str, b: str) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False


@contextlib.contextmanager
def scratch_database(path: str | None = None, *, keep: bool = False) -> Iterator[str]:
    """Point the default connection at `path` (a new temporary file when None), migrated; restore afterwards.

    A given path is kept (it may be reused with its data: a 100k corpus takes minutes to build); a temporary
    one is deleted unless `keep`.
    """
    connection = connections["default"]
    if connection.vendor == "postgresql":
        with _scratch_postgres(path, keep=keep) as url:
            yield url
        return
    original = connection.settings_dict["NAME"]
    temporary = path is None
    if temporary:
        handle, path = tempfile.mkstemp(prefix="memoryhub-scratch-", suffix=".sqlite3")
        os.close(handle)
        os.unlink(path)
    if _same_file(path, original):
        raise CommandError(f"{path} is the configured store (MEMORYHUB_DB); give another file")
    connection.close()
    connection.settings_dict["NAME"] = path
    settings.DATABASES["default"]["NAME"] = path
    try:
        call_command("migrate", verbosity=0, interactive=False)
        yield path
    finally:
        connection.close()
        connection.settings_dict["NAME"] = original
        settings.DATABASES["default"]["NAME"] = original
        if temporary and not keep:
            for suffix in ("", "-wal", "-shm"):
                Path(path + suffix).unlink(missing_ok=True)


def _switch(connection, name: str) -> None:
    connection.close()
    if hasattr(connection, "close_pool"):
        connection.close_pool()  # the pool holds connections to the database being left
    connection.settings_dict["NAME"] = name
    settings.DATABASES["default"]["NAME"] = name


@contextlib.contextmanager
def _scratch_postgres(path: str | None, *, keep: bool) -> Iterator[str]:
    """A database beside the configured one, named from `path` (kept, to be reused) or at random (dropped)."""

    connection = connections["default"]
    original = connection.settings_dict["NAME"]
    suffix = hashlib.sha1(path.encode()).hexdigest()[:16] if path else secrets.token_hex(8)
    name = f"memoryhub_scratch_{suffix}"
    if path is None or not database_exists(name):
        create_database(name)
    _switch(connection, name)
    try:
        call_command("migrate", verbosity=0, interactive=False)
        base = os.environ.get("MEMORYHUB_DATABASE_URL", "")
        yield urlunsplit(urlsplit(base)._replace(path="/" + name))
    finally:
        _switch(connection, original)
        if path is None and not keep:
            drop_database(name)
