"""A throw-away SQLite store for the benchmark and evaluation commands, so the user's store is never touched."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connections


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
