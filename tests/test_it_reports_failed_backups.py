"""A failed automatic backup refuses the change it was to protect: a 503 in the error shape from the API, a
message on the dashboard, never a 500, and nothing changed in the store.

A real server on a real store file (a store in memory is never backed up), with MEMORYHUB_BACKUP_DIR inside a
regular file so that the backup directory cannot be made.
"""

from __future__ import annotations

import re
import subprocess
import sys

import httpx
import pytest

from tests.live_server import REPO, LiveServer, create_token, migrated_store, store_env

PASSWORD = "a-long-test-password"


@pytest.fixture(scope="module")
def server(store_template, tmp_path_factory):
    directory = tmp_path_factory.mktemp("failing-backups")
    db = migrated_store(store_template, directory)
    blocker = directory / "not-a-directory"
    blocker.write_text("a file where the backup directory should be\n")
    env = {"MEMORYHUB_BACKUP_DIR": str(blocker / "backups")}
    token = create_token(db, "claude")
    subprocess.run(
        [sys.executable, "manage.py", "createsuperuser", "--no-input", "--username", "curator", "--email", "c@x.io"],
        cwd=REPO,
        env=store_env(db, DJANGO_SUPERUSER_PASSWORD=PASSWORD),
        check=True,
        capture_output=True,
    )
    with LiveServer(db, threads=2, env=env) as live:
        live.token = token
        yield live


def agent(server) -> httpx.Client:
    return httpx.Client(
        base_url=server.url + "/api/v1/", headers={"Authorization": f"Bearer {server.token}"}, timeout=60
    )


def store_two(api: httpx.Client, project: str) -> list[int]:
    ids = []
    for content in (
        f"{project} deploys with `make deploy` from the main branch every Tuesday",
        f"{project} stores invoices in PostgreSQL 16 on the shared cluster",
    ):
        response = api.post("memories", json={"content": content, "project": project, "category": "fact"})
        assert response.status_code == 201, response.text
        ids.append(response.json()["memory"]["id"])
    return ids


def test_an_import_over_a_store_answers_503_and_stores_nothing(server):
    with agent(server) as api:
        store_two(api, "alpha")
        before = len(api.get("memories", params={"project": "alpha"}).json()["results"])
        item = {"content": "Alpha's cache lives in /var/cache/alpha on every host", "project": "alpha"}
        response = api.post("memories/import", json={"memories": [item]})
        assert response.status_code == 503, response.text
        error = response.json()["error"]
        assert error["code"] == "unavailable"
        assert "automatic backup before this import failed" in error["message"]
        assert "MEMORYHUB_BACKUP_DIR" in error["message"]
        assert error["fields"] == {}
        assert len(api.get("memories", params={"project": "alpha"}).json()["results"]) == before
    assert "server_error" not in server.log() and "Traceback" not in server.log()


def logged_in(server) -> tuple[httpx.Client, str]:
    browser = httpx.Client(base_url=server.url, timeout=60, follow_redirects=True)
    page = browser.get("/login/").text
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    response = browser.post("/login/", data={"username": "curator", "password": PASSWORD, "csrfmiddlewaretoken": token})
    assert response.status_code == 200 and "/login/" not in str(response.url)
    return browser, browser.cookies["csrftoken"]


@pytest.mark.parametrize("htmx", [True, False])
def test_a_merge_on_the_dashboard_says_the_backup_failed(server, htmx):
    with agent(server) as api:
        ids = store_two(api, f"merge{int(htmx)}")
    browser, csrf = logged_in(server)
    try:
        form = {
            "selected": [str(i) for i in ids],
            "content": "Deploys with `make deploy` on Tuesdays; invoices live in PostgreSQL 16",
            "category": "fact",
            "tier": "semantic",
            "tags": "",
            "csrfmiddlewaretoken": csrf,
        }
        headers = {"HX-Request": "true", "X-CSRFToken": csrf} if htmx else {}
        response = browser.post("/memories/merge/", data=form, headers=headers)
    finally:
        browser.close()
    assert response.status_code == 503, response.text[:500]
    assert "Nothing was changed: the automatic backup before this merge failed" in response.text
    if htmx:
        assert response.headers["HX-Retarget"] == "#messages"
    with agent(server) as api:
        for pk in ids:
            assert api.get(f"memories/{pk}").json()["status"] == "active"  # not merged away
