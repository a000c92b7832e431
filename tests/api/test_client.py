"""`python -m memoryhub.agents.client`: store, search and recall over HTTP (in-process through WSGI)."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from memoryhub.agents.client import main
from memoryhub.models import Memory

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(claude, monkeypatch, wsgi_send):
    monkeypatch.setenv("MEMORYHUB_URL", "http://testserver")
    monkeypatch.setenv("MEMORYHUB_TOKEN", claude.raw)

    def run(*argv: str) -> tuple[int, str]:
        out = io.StringIO()
        code = main(list(argv), send=wsgi_send, out=out)
        return code, out.getvalue()

    return run


def test_store_search_and_recall_through_the_cli(run):
    code, out = run("store", "Alpha deploys with make deploy from main", "--project", "alpha", "--tag", "deploy")
    assert code == 0
    memory = Memory.objects.get()
    assert out == f"created #{memory.pk}: stored as a new memory\n"
    assert (memory.source, memory.tags) == ("claude", ["deploy"])
    code, out = run("search", "how do we deploy", "--project", "alpha")
    assert code == 0
    assert out.startswith(f"#{memory.pk}\t") and "Alpha deploys with make deploy from main" in out
    code, out = run("recall", "--project", "alpha", "--query", "deploy")
    assert code == 0
    assert f"[#{memory.pk}]" in out


def test_recall_takes_the_query_as_its_last_argument_as_the_readme_shows(run, capsys):
    code, _ = run("store", "The alpha API uses cursor pagination for every list", "--project", "alpha")
    assert code == 0
    memory = Memory.objects.get()
    code, out = run("recall", "--project", "alpha", "how do we paginate?")
    assert code == 0
    assert f"[#{memory.pk}]" in out
    code, out = run("recall", "--project", "alpha", "--query", "pagination", "how do we paginate?")
    assert code == 1
    assert "give the query once" in capsys.readouterr().err


def test_a_refused_write_exits_1_with_the_reason(run):
    code, out = run("store", "today I worked on the deploy script", "--project", "alpha")
    assert code == 1
    assert out.startswith("rejected: refused: it reads like a session log")


def test_a_forbidden_call_exits_1_with_the_servers_message(run, capsys):
    code, _ = run("search", "deploy", "--project", "beta")
    assert code == 1
    assert "HTTP 403" in capsys.readouterr().err


def test_without_a_token_it_says_how_to_get_one(monkeypatch):
    monkeypatch.delenv("MEMORYHUB_TOKEN", raising=False)
    result = subprocess.run(
        [sys.executable, "-m", "memoryhub.agents.client", "search", "x"], capture_output=True, text=True
    )
    assert result.returncode == 2
    assert "MEMORYHUB_TOKEN" in result.stderr
