"""A refused secret leaves nothing: 33 kinds of secret (bench/trace_secrets.py, a set written before the redaction was
changed, with the companion values that travel beside a secret: the AWS secret next to its key id, the Twilio token
next to the SID, a Slack webhook with a zero-width space inside) are sent through every route and face of a real
server (REST create, metadata, update, import, import_from, capture, tools, MCP, the dashboard's New memory and edit
forms, the login form's username field); every one is refused, no answer echoes it, and afterwards no table holds
any part of any of them, nor (on SQLite) the database files or the server's log. `manage.py scrub` cleans what an older
install kept: gate log entries redacted span by span, plain usernames in the login records."""

from __future__ import annotations

import io
import re
from pathlib import Path

import httpx
import pytest
from axes.models import AccessAttempt, AccessLog
from django.apps import apps
from django.core.management import call_command
from django.db import models

from bench.trace_secrets import ZWSP, TraceCase, trace_cases
from memoryhub.memories.scrub import NOT_FREE_TEXT, SCRUBBED
from memoryhub.memories.secrets import redact
from memoryhub.models import GateLogEntry
from tests.live_server import LiveServer, create_token, manage, migrated_store, on_postgresql, query_store

CASES = trace_cases()
PASSWORD = "a-long-test-password"


def forms(part: str) -> list[str]:
    """The ways a part could have been kept: as sent, without its invisible characters, lowercased (FTS tokens)."""
    bare = part.replace(ZWSP, "")
    return list(dict.fromkeys([part, bare, bare.lower()]))


def leaks(text: str, cases: list[TraceCase]) -> list[tuple[str, str]]:
    lowered = text.lower()
    return [(c.kind, p) for c in cases for p in c.parts if any(f in text or f.lower() in lowered for f in forms(p))]


def every_table_text(db: Path) -> str:
    """Every value of every table of the store, as text (bytes decoded leniently)."""
    if on_postgresql():
        tables = [r[0] for r in query_store(db, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")]
    else:
        # Virtual tables (FTS5, vec0) are read through their shadow tables, which hold their bytes.
        statement = "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'"
        tables = [r[0] for r in query_store(db, statement)]
    out = []
    for table in tables:
        for row in query_store(db, f'SELECT * FROM "{table}"'):
            for value in row:
                out.append(value.decode("utf-8", "replace") if isinstance(value, bytes | memoryview) else str(value))
    return "\n".join(out)


class Dashboard:
    """A person logged in through the real login form, posting forms with the CSRF token as a browser does."""

    def __init__(self, url: str):
        self.http = httpx.Client(base_url=url, timeout=60)

    def csrf(self, path: str) -> tuple[str, str]:
        page = self.http.get(path).text
        return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1), page

    def post(self, path: str, data: dict, *, form_path: str | None = None) -> httpx.Response:
        token, _ = self.csrf(form_path or path)
        return self.http.post(
            path, data={**data, "csrfmiddlewaretoken": token}, headers={"Referer": str(self.http.base_url)}
        )

    def login(self, username: str, password: str) -> httpx.Response:
        return self.post("/login/", {"username": username, "password": password})


def send_everywhere(server: LiveServer, token: str, case: TraceCase, memory_id: int, person: Dashboard) -> dict:
    """Every route and face a write takes, each with the case's text; {route: the answer}."""
    api = httpx.Client(base_url=server.url + "/api/v1/", headers={"Authorization": f"Bearer {token}"}, timeout=60)
    text = case.text
    answers = {
        "create": api.post("memories", json={"content": text, "project": "alpha"}),
        "metadata": api.post(
            "memories",
            json={"content": "The nightly job uploads the reports", "project": "alpha", "metadata": {"note": text}},
        ),  # fmt: skip
        "update": api.patch(f"memories/{memory_id}", json={"content": text}),
        "import": api.post("memories/import", json={"memories": [{"content": text, "project": "alpha"}]}),
        "import_from": api.post(
            "import_from", json={"format": "markdown", "content": f"# Notes\n\n- {text}\n", "project": "alpha"}
        ),  # fmt: skip
        "capture": api.post(
            "capture",
            json={
                "project": "alpha",
                "turns": [{"role": "user", "text": f"remember that {text}"}, {"role": "assistant", "text": "Noted."}],
            },
        ),  # fmt: skip
        "tool store": api.post(
            "tools/call", json={"name": "memory_store", "arguments": {"content": text, "project": "alpha"}}
        ),  # fmt: skip
        "tool update": api.post(
            "tools/call", json={"name": "memory_update", "arguments": {"id": memory_id, "content": text}}
        ),  # fmt: skip
        "dashboard new": person.post("/memories/new/", {"content": text, "project": "alpha", "tags": ""}),
        "mcp": httpx.post(
            server.url + "/mcp",
            timeout=60,
            json={
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "memory_store", "arguments": {"content": text, "project": "alpha"}},
            },
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"},
        ),
    }
    _, page = person.csrf(f"/memories/{memory_id}/edit/")
    version = re.search(rf'name="m{memory_id}-version" value="([^"]+)"', page).group(1)
    answers["dashboard edit"] = person.post(
        f"/memories/{memory_id}/edit/", {f"m{memory_id}-content": text, f"m{memory_id}-version": version}
    )
    answers["login username"] = Dashboard(server.url).login(case.parts[-1], "whatever-was-typed")
    return answers


def test_refused_secrets_leave_no_part_in_any_table_file_or_answer(store_template, tmp_path):
    db = migrated_store(store_template, tmp_path)
    make_person = f"get_user_model().objects.create_superuser('curator', password={PASSWORD!r})"
    manage(db, "shell", "-c", f"from django.contrib.auth import get_user_model; {make_person}")
    token = create_token(db, "claude")
    env = {"MEMORYHUB_LOGIN_ADDRESS_FAILURE_LIMIT": "1000"}  # 33 wrong logins from 127.0.0.1 are the point here
    with LiveServer(db, env=env) as server:
        api = httpx.Client(base_url=server.url + "/api/v1/", headers={"Authorization": f"Bearer {token}"}, timeout=60)
        stored = api.post("memories", json={"content": "The reports bucket keeps thirty days of exports",
                                            "project": "alpha"})  # fmt: skip
        assert stored.status_code == 201, stored.text
        memory_id = stored.json()["memory"]["id"]
        person = Dashboard(server.url)
        assert person.login("curator", PASSWORD).status_code == 302
        captured = 0
        for case in CASES:
            for route, answer in send_everywhere(server, token, case, memory_id, person).items():
                body = answer.text
                if route == "import_from":
                    assert answer.status_code == 200 and answer.json()["rejected"] == 1, (case.kind, body)
                elif route == "capture":  # the capture rules may pass over a line; none is stored either way
                    counts = answer.json()["counts"]
                    assert counts["created"] == counts["merged"] == 0, (case.kind, body)
                    captured += counts["rejected"]
                elif route == "mcp":  # JSON-RPC: the refusal is the tool's error inside a 200
                    assert answer.status_code == 200 and "secret" in body, (case.kind, body[:300])
                elif route == "login username":
                    assert answer.status_code == 200 and "_auth_user_id" not in person.http.cookies
                else:
                    assert answer.status_code == 422, (case.kind, route, answer.status_code, body[:300])
                if route != "login username":  # the login form shows its own typist what they typed; it keeps none
                    assert not leaks(body, [case]), (case.kind, route, body[:500])
        log = server.log()
    assert captured >= len(CASES) // 3  # capture sent many to the gate (its rules pass over some lines)
    found = leaks(every_table_text(db), CASES)
    assert found == [], found
    kept = query_store(db, "SELECT count(*) FROM memoryhub_gatelogentry WHERE kind = 'secret'")[0][0]
    assert kept >= 4 * len(CASES)  # the refusals were logged (redacted), not dropped
    assert not leaks(log, CASES)
    if not on_postgresql():
        files = [p for p in (db, Path(f"{db}-wal")) if p.exists()]
        blob = b"".join(p.read_bytes() for p in files).decode("utf-8", "replace")
        assert leaks(blob, CASES) == []


def test_the_final_half_was_held_out_and_each_case_is_refused_on_its_own():
    """The final half holds kinds the dev half does not (no redaction rule was tuned on them)."""
    dev, final = {c.kind for c in trace_cases("dev")}, {c.kind for c in trace_cases("final")}
    assert len(dev) >= 10 and len(final) >= 10 and not dev & final
    assert len(CASES) >= 20


@pytest.mark.django_db
def test_scrub_cleans_old_gate_log_entries_and_plain_login_names():
    aws = CASES[0]  # the AWS secret beside its key id
    # An entry as an older gate kept it: only the span the detector matched was masked.
    old = redact(aws.text)
    GateLogEntry.objects.create(decision="rejected", reason="old", kind="secret", content=old,
                                payload={"metadata": {"note": old}}, project="alpha", source="old")  # fmt: skip
    assert leaks(GateLogEntry.objects.get().content, [aws])
    typed = CASES[5].parts[0]  # a password typed into the username field, kept by an older install
    AccessAttempt.objects.create(username=typed, ip_address="10.0.0.9", user_agent="x", http_accept="x",
                                 path_info="/login/", get_data="", post_data=f"username={typed}\npassword=****",
                                 failures_since_start=1)  # fmt: skip
    AccessLog.objects.create(username=typed, ip_address="10.0.0.9", user_agent="x", http_accept="x", path_info="/")
    out = io.StringIO()
    call_command("scrub", "--no-vacuum", stdout=out)
    assert "Gate log entries scrubbed: 1" in out.getvalue() and "Login records scrubbed: 3" in out.getvalue()
    entry = GateLogEntry.objects.get()
    assert not leaks(entry.content + str(entry.payload), [aws]) and "REDACTED" in entry.content
    attempt = AccessAttempt.objects.get()
    assert typed not in attempt.username + attempt.post_data and attempt.username.startswith("h:")
    assert typed not in AccessLog.objects.get().username
    call_command("scrub", "--no-vacuum", stdout=(again := io.StringIO()))
    assert "Login records scrubbed: 0" in again.getvalue() and "Gate log entries scrubbed: 0" in again.getvalue()


@pytest.mark.django_db
def test_a_login_typed_now_keeps_only_a_hash_and_still_locks_that_name_out(settings, client):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    typed = CASES[7].parts[0]
    for _ in range(settings.AXES_FAILURE_LIMIT):
        client.post("/login/", {"username": typed, "password": "nope"}, REMOTE_ADDR="10.0.0.3")
    attempt = AccessAttempt.objects.get()
    assert attempt.failures_since_start == settings.AXES_FAILURE_LIMIT  # one name, counted as one
    assert typed not in attempt.username + attempt.post_data + attempt.get_data
    assert client.post("/login/", {"username": typed, "password": "x"}, REMOTE_ADDR="10.0.0.3").status_code == 429


def test_every_text_column_of_the_store_is_scrubbed_or_holds_no_free_text():
    for model in apps.get_app_config("memoryhub").get_models():
        label = model._meta.label
        text = {f.name for f in model._meta.concrete_fields if isinstance(f, models.CharField | models.TextField
                                                                               | models.JSONField)}  # fmt: skip
        if label == "memoryhub.Memory":
            text -= {"content", "tags", "metadata", "source", "project", "held_reason"}  # scrubbed on their own
        if label == "memoryhub.MemoryEvent":
            text -= {"before", "after"}  # store.scrub_history
        covered = set(SCRUBBED.get(label, ())) | set(NOT_FREE_TEXT.get(label, ()))
        assert text <= covered, (label, text - covered)
