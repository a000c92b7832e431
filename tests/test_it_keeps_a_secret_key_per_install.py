"""Deployment settings: no SECRET_KEY is fixed in the source (each install makes its own, kept beside the store,
owner-only, the same after a restart, unless MEMORYHUB_SECRET_KEY gives one), and MEMORYHUB_SECURE_COOKIES marks
the session and CSRF cookies Secure.

Real processes: the settings are read once, when Django starts."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from memoryhub.settings.secret_key import KEY_FILE_NAME, install_secret_key
from tests.live_server import REPO, store_env

SHOW = (
    "import django, json; django.setup(); from django.conf import settings as s; "
    "print(json.dumps([s.SECRET_KEY, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, "
    "getattr(s, 'SECURE_PROXY_SSL_HEADER', None)]))"
)


def settings_of(db: Path, **env: str) -> list:
    result = subprocess.run(
        [sys.executable, "-c", SHOW], cwd=REPO, env=store_env(db, **env), capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.sqlite_only  # the key file sits beside the SQLite file; on PostgreSQL, in the project folder
def test_each_install_makes_its_own_key_keeps_it_owner_only_and_reads_it_back(tmp_path):
    first, second = tmp_path / "one" / "store.sqlite3", tmp_path / "two" / "store.sqlite3"
    for db in (first, second):
        db.parent.mkdir()
    key = settings_of(first)[0]
    assert len(key) >= 50
    key_file = first.parent / KEY_FILE_NAME
    assert key_file.read_text().strip() == key
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert settings_of(first)[0] == key  # a restart keeps the sessions valid
    assert settings_of(second)[0] not in (key, "")  # another install, another key
    source = (REPO / "memoryhub" / "settings" / "__init__.py").read_text()
    assert key not in source and "change-me" not in source


def test_a_key_given_by_the_operator_is_used_and_nothing_is_written(tmp_path):
    db = tmp_path / "store.sqlite3"
    assert settings_of(db, MEMORYHUB_SECRET_KEY="an-operator-key-" + "k" * 40)[0] == "an-operator-key-" + "k" * 40
    assert not (tmp_path / KEY_FILE_NAME).exists()


def test_processes_starting_together_agree_on_one_key(tmp_path):
    keys = {install_secret_key("", store_dir=tmp_path) for _ in range(5)}
    assert len(keys) == 1 and (tmp_path / KEY_FILE_NAME).exists()
    assert [p.name for p in tmp_path.iterdir()] == [KEY_FILE_NAME]  # no candidate files left behind
    assert install_secret_key("", store_dir=None) != install_secret_key("", store_dir=None)  # in memory: per process


def test_cookies_are_secure_when_the_operator_says_so(tmp_path):
    db = tmp_path / "store.sqlite3"
    assert settings_of(db)[1:] == [False, False, None]
    assert settings_of(db, MEMORYHUB_SECURE_COOKIES="true", MEMORYHUB_BEHIND_HTTPS_PROXY="yes")[1:] == [
        True,
        True,
        ["HTTP_X_FORWARDED_PROTO", "https"],
    ]
    bad = subprocess.run(
        [sys.executable, "-c", SHOW], cwd=REPO, env=store_env(db, MEMORYHUB_SECURE_COOKIES="sometimes"),
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert bad.returncode != 0 and "MEMORYHUB_SECURE_COOKIES" in bad.stderr


LOGIN_COOKIE = (
    "import django, json; django.setup(); from django.test import Client; "
    "r = Client().get('/login/', secure=True, HTTP_HOST='localhost'); "
    "print(json.dumps([r.status_code, bool(r.cookies['csrftoken']['secure'])]))"
)


@pytest.mark.parametrize(("value", "secure"), [("true", True), ("", False)])
def test_the_login_pages_cookie_carries_secure_when_asked(tmp_path, value, secure):
    env = store_env(tmp_path / "s.sqlite3", MEMORYHUB_SECURE_COOKIES=value)
    result = subprocess.run(
        [sys.executable, "-c", LOGIN_COOKIE], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout.strip().splitlines()[-1]) == [200, secure]
