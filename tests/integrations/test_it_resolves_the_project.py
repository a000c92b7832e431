"""Which project the hooks and the CLI work in: MEMORYHUB_PROJECT, else the token's only project, else the git
repository's top folder name, else the working directory's name; and GET /api/v1/whoami, which tells them."""

from __future__ import annotations

import io
import json

import httpx
import pytest

from memoryhub.agents.client import main as cli
from memoryhub.agents.tokens import create_token
from memoryhub.models import Memory
from memoryhub.retrieval.recall import HEADER
from memoryhub_client.projects import choose_project, git_top_folder
from tests.integrations.test_it_runs_hooks import RECALL_HOOK, REMEMBER_HOOK, run_hook
from tests.live_server import LiveServer, migrated_store
from tests.live_server import create_token as create_live_token

DEMO_FACT = "The demo project renders its invoices with WeasyPrint, never with wkhtmltopdf."


def test_an_explicit_project_wins_over_everything(tmp_path):
    asked = []
    chosen = choose_project(explicit=" alpha ", token_projects=lambda: asked.append(1) or ["demo"], cwd=str(tmp_path))
    assert chosen == "alpha"
    assert asked == []  # the server is not even asked


def test_a_token_limited_to_one_project_decides_before_the_folder(tmp_path):
    folder = tmp_path / "webshop"
    folder.mkdir()
    assert choose_project(explicit=None, token_projects=lambda: ["demo"], cwd=str(folder)) == "demo"
    assert choose_project(explicit="", token_projects=lambda: ["demo", "beta"], cwd=str(folder)) == "webshop"
    assert choose_project(explicit=None, token_projects=lambda: None, cwd=str(folder)) == "webshop"


def test_the_git_top_folder_names_the_project_from_any_subfolder(tmp_path):
    repo = tmp_path / "shop-backend"
    deep = repo / "src" / "orders"
    deep.mkdir(parents=True)
    (repo / ".git").mkdir()
    assert git_top_folder(str(deep)) == str(repo)
    assert choose_project(explicit=None, token_projects=None, cwd=str(deep)) == "shop-backend"
    # A worktree's .git is a file; it marks the top all the same.
    worktree = tmp_path / "shop-feature"
    (worktree / "docs").mkdir(parents=True)
    (worktree / ".git").write_text("gitdir: /elsewhere/.git/worktrees/shop-feature\n")
    assert choose_project(explicit=None, token_projects=None, cwd=str(worktree / "docs")) == "shop-feature"


def test_a_server_that_cannot_say_leaves_the_choice_to_the_folder(tmp_path):
    def unreachable():
        raise OSError("connection refused")

    assert choose_project(explicit=None, token_projects=unreachable, cwd=str(tmp_path / "cli")) == "cli"


@pytest.mark.django_db
def test_whoami_answers_the_tokens_name_projects_and_read_only_flag(client):
    _, scoped = create_token(name="claude", projects=["demo"])
    _, reader = create_token(name="auditor", read_only=True)

    one = client.get("/api/v1/whoami", headers={"Authorization": f"Bearer {scoped}"})
    two = client.get("/api/v1/whoami/", headers={"Authorization": f"Bearer {reader}"})
    anonymous = client.get("/api/v1/whoami")

    assert (one.status_code, one.json()) == (
        200, {"name": "claude", "projects": ["demo"], "read_only": False, "default_project": "demo"}
    )  # fmt: skip
    assert (two.status_code, two.json()) == (
        200, {"name": "auditor", "projects": None, "read_only": True, "default_project": None}
    )  # fmt: skip
    assert anonymous.status_code == 401


@pytest.fixture
def cli_run(db, monkeypatch, tmp_path, wsgi_send):
    folder = tmp_path / "webshop"
    folder.mkdir()
    monkeypatch.chdir(folder)
    monkeypatch.delenv("MEMORYHUB_PROJECT", raising=False)
    monkeypatch.setenv("MEMORYHUB_URL", "http://testserver")

    def run(token: str, *argv: str) -> tuple[int, str]:
        out = io.StringIO()
        return cli(["--token", token, *argv], send=wsgi_send, out=out), out.getvalue()

    return run


def test_the_cli_stores_into_the_tokens_only_project_from_a_folder_named_otherwise(cli_run, monkeypatch):
    _, scoped = create_token(name="claude", projects=["demo"])

    code, out = cli_run(scoped, "store", DEMO_FACT)
    assert code == 0, out
    assert Memory.objects.get().project == "demo"

    code, out = cli_run(scoped, "whoami")
    assert code == 0
    assert json.loads(out) == {
        "name": "claude", "projects": ["demo"], "read_only": False, "default_project": "demo", "project": "demo"
    }  # fmt: skip


def test_the_cli_uses_the_folder_for_a_wide_token_and_the_environment_above_all(cli_run, monkeypatch):
    _, wide = create_token(name="curator")

    assert cli_run(wide, "store", "The webshop sends order mails through Postmark templates.")[0] == 0
    monkeypatch.setenv("MEMORYHUB_PROJECT", "billing")
    assert cli_run(wide, "store", "Billing rounds every amount half-even to the cent.")[0] == 0
    assert cli_run(wide, "store", "The user writes commit messages in the imperative.", "--global")[0] == 0

    assert sorted(str(p) for p in Memory.objects.values_list("project", flat=True)) == ["None", "billing", "webshop"]


@pytest.mark.slow
def test_the_hooks_use_the_tokens_only_project_from_a_folder_named_otherwise(store_template, tmp_path):
    store = migrated_store(store_template, tmp_path / "store")
    folder = tmp_path / "webshop"
    (folder / ".memoryhub").mkdir(parents=True)
    (folder / ".memoryhub" / "remember.md").write_text(f"- {DEMO_FACT}\n")
    with LiveServer(store, threads=2) as live:
        token = create_live_token(store, "claude-code", "--project", "demo")
        end = run_hook(REMEMBER_HOOK, {"cwd": str(folder), "session_id": "s-1"}, url=live.url, token=token)
        recall = run_hook(
            RECALL_HOOK, {"prompt": "How are invoices rendered?", "cwd": str(folder)}, url=live.url, token=token
        )
        stored = httpx.get(
            f"{live.url}/api/v1/memories", params={"project": "demo"},
            headers={"Authorization": f"Bearer {token}"}, timeout=30,
        ).json()["results"]  # fmt: skip

    assert end.returncode == 0 and "1 created" in end.stderr, end.stderr
    assert [m["content"] for m in stored] == [DEMO_FACT]
    assert recall.returncode == 0 and recall.stderr == "", recall.stderr
    assert recall.stdout.startswith(HEADER) and DEMO_FACT in recall.stdout
