"""The client package installs into a fresh virtual environment (offline: standard library only) and `memoryhub
whoami`, run from a git project outside the checkout, answers with that folder's project."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.live_server import REPO, LiveServer, create_token, migrated_store


@pytest.mark.slow
def test_memoryhub_whoami_from_a_project_folder_outside_the_checkout(store_template, tmp_path):
    venv = tmp_path / "venv"
    # --system-site-packages lends the venv the system's setuptools, so the build needs no network where that
    # setuptools builds wheels; where it cannot, pip fetches a build backend from PyPI (nothing else is needed).
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=120)
    pip = [str(venv / "bin" / "pip"), "install", "--quiet", "--no-deps", str(REPO / "clients" / "python")]
    install = subprocess.run([*pip, "--no-build-isolation", "--no-index"], capture_output=True, text=True, timeout=300)
    if install.returncode != 0:
        install = subprocess.run(pip, capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stderr
    project = tmp_path / "invoice-tool"
    (project / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True, timeout=60)

    store = migrated_store(store_template, tmp_path / "store")
    with LiveServer(store, threads=2) as live:
        token = create_token(store, "claude")
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MEMORYHUB_PROJECT")}
        env |= {"MEMORYHUB_URL": live.url, "MEMORYHUB_TOKEN": token}
        whoami = subprocess.run(
            [str(venv / "bin" / "memoryhub"), "whoami"], cwd=project / "src", env=env, capture_output=True,
            text=True, timeout=60,
        )  # fmt: skip
        stored = subprocess.run(
            [str(venv / "bin" / "memoryhub"), "store", "Invoices are rendered with WeasyPrint."],
            cwd=project, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip

    assert whoami.returncode == 0, whoami.stderr
    answer = json.loads(whoami.stdout)
    assert (answer["name"], answer["project"]) == ("claude", "invoice-tool")
    assert stored.returncode == 0 and stored.stdout.startswith("created #"), stored.stderr
