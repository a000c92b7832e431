"""Signed webhooks: a receiver on 127.0.0.1 gets a signed memory.created within seconds of a write through the
real server; one that was down gets every event it missed, in order, once it is back; the change log's events
become the webhook events (archived, superseded, restored, conflict opened, proposal decided); URLs other than
http(s), and private or loopback receivers without MEMORYHUB_WEBHOOK_ALLOW_PRIVATE, are refused."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
from django.core.exceptions import ValidationError

from memoryhub.consolidation.proposals import accept_proposal, reject_proposal
from memoryhub.memories.lifecycle import archive_memory, restore_memory
from memoryhub.memories.supersession import queue_conflict, restore_superseded, supersede
from memoryhub.models import Proposal, ProposalKind, WebhookDelivery
from memoryhub.operations import deliveries
from memoryhub.operations.webhooks import add_webhook, refusal
from tests.factories import remember
from tests.live_server import LiveServer, create_token, free_port, manage, migrated_store, query_store


class Receiver:
    """An HTTP receiver on 127.0.0.1 that keeps what it was sent; `stop` closes its port (a receiver that is down)."""

    def __init__(self, port: int | None = None):
        self.port = port or free_port()
        self.received: list[tuple[dict[str, str], bytes]] = []
        self.server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def start(self) -> Receiver:
        received = self.received

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                received.append(({k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        ThreadingHTTPServer.allow_reuse_address = True
        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None

    def bodies(self) -> list[dict]:
        return [json.loads(body) for _, body in self.received]

    def wait_for(self, count: int, seconds: float = 20) -> list[dict]:
        deadline = time.monotonic() + seconds
        while len(self.received) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.bodies()


def signed(headers: dict[str, str], body: bytes, secret: str) -> bool:
    expected = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(headers["x-memoryhub-signature"], expected)


def test_a_receiver_gets_signed_events_and_those_it_missed_while_down(store_template, tmp_path):
    db = migrated_store(store_template, tmp_path)
    receiver = Receiver().start()
    env = {"MEMORYHUB_WEBHOOK_ALLOW_PRIVATE": "true", "MEMORYHUB_WEBHOOK_MAX_BACKOFF_S": "1"}
    added = manage_with(db, env, "add_webhook", receiver.url, "--project", "shop", "--events", "memory.created")
    secret = added.strip().splitlines()[-1]
    assert len(secret) == 64
    server = LiveServer(db, workers=2, threads=4, env=env).start()
    try:
        token = create_token(db, "agent-1")
        with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=60) as http:

            def write(content: str, project: str = "shop") -> int:
                answer = http.post("/api/v1/memories", json={"content": content, "project": project})
                assert answer.status_code == 201, answer.text
                return answer.json()["memory"]["id"]

            first = write("The shop's checkout service runs on port 8443")
            write("The blog is deployed from the main branch every Friday", project="blog")  # another project
            got = receiver.wait_for(1, seconds=10)
            assert [(b["event"], b["memory"]["id"], b["project"]) for b in got] == [("memory.created", first, "shop")]
            headers, body = receiver.received[0]
            assert signed(headers, body, secret)
            assert headers["content-type"] == "application/json"
            assert not signed(headers, body + b" ", secret)
            assert got[0]["memory"]["content"] == "The shop's checkout service runs on port 8443"
            assert got[0]["time"]

            receiver.stop()  # the receiver goes down; writes go on and answer as before
            missed = [
                write("The shop's invoices are archived in the bucket shop-invoices"),
                write("The shop's search index is rebuilt every night at 03:00"),
                write("The shop's payment provider is Adyen since March"),
            ]
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and not failed_tries(db):
                time.sleep(0.2)
            assert failed_tries(db), "the delivery log records the failed tries"
            time.sleep(2)  # a few more failed tries, with backoff
            assert len(receiver.received) == 1

            receiver.start()  # back on the same port
            got = receiver.wait_for(4, seconds=20)
            created = [b["memory"]["id"] for b in got[1:]]
            assert created[: len(missed)] == missed  # every missed event, in the order they happened
            assert all(signed(h, b, secret) for h, b in receiver.received)
            assert len({h["x-memoryhub-delivery"] for h, _ in receiver.received}) == 4
    finally:
        server.stop()
        receiver.stop()
    assert query_store(db, "SELECT COUNT(*) FROM memoryhub_webhookdelivery WHERE ok")[0][0] >= 4


def failed_tries(db) -> int:
    return query_store(db, "SELECT COUNT(*) FROM memoryhub_webhookdelivery WHERE NOT ok")[0][0]


def manage_with(db, env: dict[str, str], *args: str) -> str:
    import subprocess
    import sys

    from tests.live_server import REPO, store_env

    done = subprocess.run([sys.executable, "manage.py", *args], cwd=REPO, env=store_env(db, **env),
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_commands_add_list_and_remove_and_refuse_what_they_must(store_template, tmp_path):
    db = migrated_store(store_template, tmp_path)
    with pytest.raises(RuntimeError, match="MEMORYHUB_WEBHOOK_ALLOW_PRIVATE"):
        manage(db, "add_webhook", "http://127.0.0.1:9/hook")
    with pytest.raises(RuntimeError, match="only http and https"):
        manage(db, "add_webhook", "ftp://example.com/hook")
    env = {"MEMORYHUB_WEBHOOK_ALLOW_PRIVATE": "true"}
    with pytest.raises(AssertionError, match="unknown event"):
        manage_with(db, env, "add_webhook", "http://127.0.0.1:9/hook", "--events", "memory.eaten")
    manage_with(db, env, "add_webhook", "http://127.0.0.1:9/hook", "--project", "shop")
    listed = manage(db, "list_webhooks")
    assert "http://127.0.0.1:9/hook" in listed and "shop" in listed and "conflict.opened" in listed
    assert "Webhook #1 removed." in manage(db, "remove_webhook", "1")
    assert "No webhooks." in manage(db, "list_webhooks")
    with pytest.raises(RuntimeError, match="no webhook #1"):
        manage(db, "remove_webhook", "1")


def test_only_public_http_receivers_without_the_setting(settings):
    settings.MEMORYHUB_WEBHOOK_ALLOW_PRIVATE = False
    for url in ("http://127.0.0.1:8000/x", "http://localhost/x", "http://10.0.0.8/x", "http://192.168.1.2/x",
                "http://169.254.169.254/latest/meta-data", "http://[::1]/x", "http://[::ffff:127.0.0.1]/x",
                "http://0.0.0.0/x"):  # fmt: skip
        assert "MEMORYHUB_WEBHOOK_ALLOW_PRIVATE" in (refusal(url) or ""), url
    assert refusal("http://8.8.8.8/hook") is None
    for url in ("file:///etc/passwd", "gopher://example.com/", "javascript:alert(1)", "http:///nohost"):
        assert refusal(url), url
    settings.MEMORYHUB_WEBHOOK_ALLOW_PRIVATE = True
    assert refusal("http://127.0.0.1:8000/x") is None
    assert refusal("ftp://127.0.0.1/x")


@pytest.mark.django_db(transaction=True)
def test_changes_become_the_webhook_events(settings):
    settings.MEMORYHUB_WEBHOOK_ALLOW_PRIVATE = True
    receiver = Receiver().start()
    try:
        older = remember("The staging database is db-staging-1", project="ops")
        hook = add_webhook(url=receiver.url, project="ops", events=None, actor="test")
        elsewhere = add_webhook(url=receiver.url, project="other", events=None, actor="test")
        with pytest.raises(ValidationError):
            add_webhook(url=receiver.url, project=None, events=["memory.deleted"], actor="test")
        newer = remember("The staging database is db-staging-2", project="ops")
        supersede(older=older, newer=newer, actor="alice", reason="moved")
        restore_superseded(memory=older, actor="alice")
        archive_memory(memory=older, actor="alice")
        restore_memory(memory=older, actor="alice")
        third = remember("The staging database is db-staging-3 since the move", project="ops")
        conflict = queue_conflict(older=newer, newer=third, reason="which one?", actor="gate")
        accept_proposal(proposal=conflict, actor="alice", choice="newer")
        a = remember("Deploys to ops go through the release train on Tuesdays", project="ops")
        b = remember("Ops deploys go out with the Tuesday release train", project="ops")
        merge = Proposal.objects.create(
            kind=ProposalKind.MERGE, sources=[a.pk, b.pk], cluster_key=f"{a.pk},{b.pk}", project="ops",
            content="Ops deploys go out with the Tuesday release train",
        )  # fmt: skip
        reject_proposal(proposal=merge, actor="bob")
        while deliveries.deliver_due():
            pass
        got = [(body["event"], (body["memory"] or {}).get("id"), (body.get("proposal") or {}).get("id"))
               for body in receiver.bodies()]  # fmt: skip
        assert got == [
            ("memory.created", newer.pk, None),
            ("memory.superseded", older.pk, None),
            ("memory.restored", older.pk, None),
            ("memory.archived", older.pk, None),
            ("memory.restored", older.pk, None),
            ("memory.created", third.pk, None),
            ("conflict.opened", newer.pk, conflict.pk),  # once, though both memories record it
            ("memory.superseded", newer.pk, None),
            ("proposal.decided", newer.pk, conflict.pk),
            ("memory.created", a.pk, None),
            ("memory.created", b.pk, None),
            ("proposal.decided", a.pk, merge.pk),
        ]
        decided = receiver.bodies()[8]
        assert decided["proposal"]["status"] == "accepted" and decided["proposal"]["choice"] == "newer"
        assert all(body["project"] == "ops" for body in receiver.bodies())
        hook.refresh_from_db()
        elsewhere.refresh_from_db()
        assert hook.cursor == elsewhere.cursor  # the other project's hook read past them all, sending nothing
        assert WebhookDelivery.objects.filter(webhook=hook, ok=True).count() == len(got)
        assert not WebhookDelivery.objects.filter(webhook=elsewhere).exists()
    finally:
        receiver.stop()


@pytest.mark.django_db(transaction=True)
def test_a_failing_receiver_holds_its_events_in_order_and_backs_off(settings):
    settings.MEMORYHUB_WEBHOOK_ALLOW_PRIVATE = True
    receiver = Receiver()  # not started: nothing listens on its port
    hook = add_webhook(url=receiver.url, project=None, events=["memory.created"], actor="test")
    first = remember("The build cache lives on the NFS share /srv/cache")
    second = remember("The build agents run Debian 13 on 8 cores")
    assert deliveries.deliver_due() is False
    assert deliveries.deliver_due() is False  # waiting out its backoff: not tried again yet
    tries = list(WebhookDelivery.objects.filter(webhook=hook))
    assert [(t.ok, t.memory_id, t.attempt) for t in tries] == [(False, first.pk, 1)]
    assert tries[0].error
    hook.refresh_from_db()
    assert hook.failures == 1 and hook.next_attempt_at is not None
    assert [deliveries.backoff(n) for n in (1, 2, 3, 4)] == [1, 2, 4, 8]
    settings.MEMORYHUB_WEBHOOK_MAX_BACKOFF_S = 3
    assert deliveries.backoff(10) == 3

    receiver.start()
    try:
        hook.next_attempt_at = None
        hook.save()
        deliveries.deliver_due()
        assert [body["memory"]["id"] for body in receiver.bodies()] == [first.pk, second.pk]
        retried = WebhookDelivery.objects.filter(webhook=hook, memory_id=first.pk, ok=True).get()
        assert retried.attempt == 2 and retried.status_code == 204
    finally:
        receiver.stop()


def test_a_hole_in_the_ids_is_waited_for_on_postgresql(monkeypatch):
    """PostgreSQL gives out ids at insert, not at commit: a missing id may be a transaction still committing (its
    event must not be skipped) or one rolled back (waited for a while, then passed)."""
    from types import SimpleNamespace

    monkeypatch.setattr(deliveries, "connection", SimpleNamespace(vendor="postgresql"))
    monkeypatch.setattr(deliveries, "HOLE_PATIENCE_S", 0.3)
    assert deliveries._before_a_hole(10, 11) is False  # no hole
    assert deliveries._before_a_hole(10, 13) is True  # 11 and 12 may still come
    assert deliveries._before_a_hole(10, 13) is True
    time.sleep(0.35)
    assert deliveries._before_a_hole(10, 13) is False  # given up: rolled back
    monkeypatch.setattr(deliveries, "connection", SimpleNamespace(vendor="sqlite"))
    assert deliveries._before_a_hole(20, 25) is False  # SQLite commits in id order: a hole is a rollback
