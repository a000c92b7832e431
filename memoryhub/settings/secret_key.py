"""Django's SECRET_KEY: the one the operator gives, else one made for this install and kept beside the store.

A key fixed in the source would be the same on every install, so anyone could forge a session or a CSRF token for
a server that did not set its own. The key made here is random (256 bits), written once, readable by its owner
only (0600, like the database file), and read back on every start, so sessions survive a restart. Several server
processes starting at once agree on one key: each writes its candidate under a private name and links it into
place, which only the first can do; the others read the winner's.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from memoryhub.settings.env import SettingError

KEY_FILE_NAME = "memoryhub.secret_key"


def install_secret_key(configured: str, *, store_dir: Path | None) -> str:
    """`configured` when set; else the install's key from `store_dir`/memoryhub.secret_key, made on first use.
    `store_dir` None (an in-memory store) gets a key for this process alone: there is nothing to keep it for."""
    if configured:
        return configured
    if store_dir is None:
        return secrets.token_urlsafe(48)
    path = store_dir / KEY_FILE_NAME
    try:
        return _read(path) or _create(path)
    except OSError as exc:
        raise SettingError(
            f"MEMORYHUB_SECRET_KEY is not set and the install's key file {path} could not be made ({exc.strerror}); "
            "set MEMORYHUB_SECRET_KEY or let the server write beside its store"
        ) from exc


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return ""


def _create(path: Path) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    candidate = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(secrets.token_urlsafe(48) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(candidate, path)  # atomic, and fails when another process put its key there first
        except FileExistsError:
            pass
    finally:
        candidate.unlink(missing_ok=True)
    return _read(path)
