"""Secrets stored before a rule caught them are removed: by the edit that replaces one (history included) and by
`manage.py scrub` (memories, tags, metadata, history, gate log), down to the bytes of the database file."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.management import call_command

from bench.gate_set import secret_writes
from memoryhub.memories.scrub import scrub_store
from memoryhub.memories.secrets import find_secrets
from memoryhub.memories.store import create_memory, record_event, snapshot
from memoryhub.models import GateLogEntry, Memory, MemoryEvent
from memoryhub.retrieval.search import MemoryFilter, search_memories
from tests.api.conftest import make_agent
from tests.live_server import manage, migrated_store

SECRETS = dict(secret_writes())
TOKEN = SECRETS["GitHub token"]
KEY = SECRETS["Stripe key"]
FACT = "The alpha deploy bot pushes release tags"


def tail(text: str) -> str:
    found = max(find_secrets(text), key=lambda f: f.end - f.start)
    return text[found.start : found.end][-10:]


def legacy_memory(content: str, **fields) -> Memory:
    """A memory as a store written before this check existed could hold it: the row changed under the checks."""
    memory = create_memory(content=FACT, project="alpha")
    before = snapshot(memory)
    Memory.objects.filter(pk=memory.pk).update(content=content, **fields)
    memory.refresh_from_db()
    record_event(memory.pk, "updated", actor="old-agent", before=before, after=snapshot(memory))
    return memory


@pytest.mark.django_db
def test_an_edit_that_removes_a_secret_scrubs_it_from_history_too():
    memory = legacy_memory(f"Deploy with {TOKEN}")
    reader = make_agent("reader", read_only=True)
    assert tail(TOKEN) in reader.get(f"memories/{memory.pk}/history").content.decode()  # the old state
    claude = make_agent("claude", projects=["alpha"])
    response = claude.patch(f"memories/{memory.pk}", {"content": "Deploy with the token in the DEPLOY_TOKEN variable"})
    assert response.status_code == 200
    history = reader.get(f"memories/{memory.pk}/history")
    assert history.status_code == 200
    text = history.content.decode()
    assert tail(TOKEN) not in text
    assert "[REDACTED GitHub token" in text
    assert len(history.json()["events"]) == 3  # created, the old update, this edit: redacted, not dropped


@pytest.mark.django_db
def test_scrub_removes_secrets_from_every_place_and_reports_what_it_did():
    memory = legacy_memory(f"Pay with {KEY}", tags=["billing", TOKEN], metadata={"api_key": KEY, "owner": "ana"})
    clean = create_memory(content="The billing service retries webhooks three times", project="alpha")
    GateLogEntry.objects.create(decision="rejected", reason="old", kind="secret", content=f"use {TOKEN}",
                                payload={"tags": [TOKEN]}, project="alpha", source="old")  # fmt: skip
    assert search_memories(query=tail(KEY), within=MemoryFilter(visible_from="alpha"), mode="keyword")
    out = io.StringIO()
    call_command("scrub", "--no-vacuum", stdout=out)
    report = out.getvalue()
    assert f"Memories scrubbed: 1 (#{memory.pk})" in report
    assert "History events scrubbed: 1" in report and "Gate log entries scrubbed: 1" in report
    memory.refresh_from_db()
    assert tail(KEY) not in memory.content and "[REDACTED Stripe key" in memory.content
    assert memory.tags[0] == "billing" and tail(TOKEN) not in str(memory.tags)
    assert memory.metadata["owner"] == "ana" and tail(KEY) not in str(memory.metadata)
    assert memory.embed_model  # re-embedded
    every_text = [str(e.before) + str(e.after) + e.note for e in MemoryEvent.objects.all()]
    every_text += [e.content + str(e.payload) for e in GateLogEntry.objects.all()]
    assert not any(tail(KEY) in t or tail(TOKEN) in t for t in every_text)
    assert (
        search_memories(query=tail(KEY), within=MemoryFilter(visible_from="alpha"), mode="keyword") == []
    )  # the FTS copy is gone
    assert Memory.objects.get(pk=clean.pk).content == "The billing service retries webhooks three times"
    assert scrub_store(vacuum=False).total == 0  # a second run finds nothing


@pytest.mark.sqlite_only  # reads the SQLite file's bytes
def test_scrub_leaves_no_secret_bytes_in_the_database_file(store_template, tmp_path):
    db = migrated_store(store_template, tmp_path)
    code = (
        "from memoryhub.models import Memory, GateLogEntry\n"
        "from memoryhub.memories.store import create_memory\n"
        f"m = create_memory(content={FACT!r}, project='alpha')\n"
        f"Memory.objects.filter(pk=m.pk).update(content='Pay with ' + {KEY!r}, metadata={{'t': {TOKEN!r}}})\n"
        f"GateLogEntry.objects.create(decision='rejected', reason='x', kind='secret', content={TOKEN!r})\n"
    )
    manage(db, "shell", "-c", code)
    files = lambda: [p for p in (db, Path(f"{db}-wal")) if p.exists()]  # noqa: E731
    assert tail(KEY).encode() in b"".join(p.read_bytes() for p in files())
    report = manage(db, "scrub")
    assert "Memories scrubbed: 1" in report and "Database vacuumed" in report
    blob = b"".join(p.read_bytes() for p in files())
    assert tail(KEY).encode() not in blob and tail(TOKEN).encode() not in blob
    assert db.stat().st_mode & 0o077 == 0
