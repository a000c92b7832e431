"""Time travels with facts, through the REST API of a real server: when a fact stopped being true (`valid_to`),
what was true at a moment (`as_of`), what expires (`expires_at`, gone from search, recall and the tools at once),
and what nobody checked lately (`verified_at`, `verified_before`); exports keep all four; and a store made before
these columns existed gets them from the migration."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from django.core.management import call_command

from tests.live_server import LiveServer, create_token, migrated_store

A = "The billing service runs on the host atlas.internal."
B = "The billing service moved from atlas.internal to borealis.internal."
JANUARY, JUNE = "2026-01-15T00:00:00Z", "2026-06-01T00:00:00Z"
QUERY = "which host does the billing service run on"


@pytest.fixture(scope="module")
def hub(store_template, tmp_path_factory):
    db = migrated_store(store_template, tmp_path_factory.mktemp("time"))
    token = create_token(db, "timekeeper")
    with LiveServer(db, threads=4) as server:
        with httpx.Client(base_url=server.url + "/api/v1/", headers={"Authorization": f"Bearer {token}"},
                          timeout=120) as http:  # fmt: skip
            yield http


def write(http: httpx.Client, content: str, **fields) -> dict:
    answer = http.post("memories", json={"content": content, "project": fields.pop("project", "shop"), **fields})
    assert answer.status_code in (200, 201), answer.text
    return answer.json()


def search(http: httpx.Client, query: str, project: str = "shop", **fields) -> list[dict]:
    answer = http.post("search", json={"query": query, "project": project, "min_score": 0.3, **fields})
    assert answer.status_code == 200, answer.text
    return answer.json()["results"]


def ids(results: list[dict]) -> list[int]:
    return [r["id"] for r in results]


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def test_a_fact_that_moved_answers_by_the_moment_asked(hub):
    older = write(hub, A, valid_from=JANUARY)["memory"]
    newer = write(hub, B, valid_from=JUNE)
    assert newer["supersedes"] == [older["id"]]
    newer = newer["memory"]
    older = hub.get(f"memories/{older['id']}").json()
    assert (older["status"], older["valid_to"], older["superseded_by"]) == ("superseded", JUNE, newer["id"])
    assert newer["valid_to"] is None

    march = search(hub, QUERY, as_of="2026-03-15T00:00:00Z")
    assert ids(march)[0] == older["id"] and newer["id"] not in ids(march)
    assert march[0]["true_now"] is False  # true in March, no longer
    september = search(hub, QUERY, as_of="2026-09-15T00:00:00Z")
    assert newer["id"] in ids(september) and older["id"] not in ids(september)
    assert next(r for r in september if r["id"] == newer["id"])["true_now"] is True
    assert not {older["id"], newer["id"]} & set(ids(search(hub, QUERY, as_of="2025-12-01T00:00:00Z")))
    today = search(hub, QUERY)
    assert newer["id"] in ids(today) and older["id"] not in ids(today)
    assert all("true_now" not in r for r in today)

    # Recall and the tools answer for the moment asked too.
    recalled = hub.post("recall", json={"project": "shop", "query": QUERY, "as_of": "2026-03-15"}).json()  # a date
    assert older["id"] in recalled["memory_ids"] and newer["id"] not in recalled["memory_ids"]
    schema = next(t for t in hub.get("tools").json()["tools"] if t["function"]["name"] == "memory_search")
    assert "as_of" in schema["function"]["parameters"]["properties"]
    called = hub.post("tools/call", json={"name": "memory_search", "project": "shop",
                                          "arguments": {"query": QUERY, "as_of": "2026-03-15"}}).json()  # fmt: skip
    assert [r["id"] for r in called["result"]["results"]][:1] == [older["id"]]
    assert called["result"]["results"][0]["true_now"] is False

    # Restored, the older fact is current again: no end.
    restored = hub.post(f"memories/{older['id']}/restore").json()
    assert (restored["status"], restored["valid_to"]) == ("active", None)


def test_a_write_may_say_when_its_fact_ends_and_a_bad_time_is_a_field_error(hub):
    said = write(hub, "The release freeze on the mobile app holds until the audit ends.", project="mobile",
                 valid_from="2026-02-01T00:00:00Z", valid_to="2026-04-01T00:00:00Z")["memory"]  # fmt: skip
    assert said["valid_to"] == "2026-04-01T00:00:00Z"
    assert ids(search(hub, "mobile release freeze", "mobile", as_of="2026-03-01T00:00:00Z")) == [said["id"]]
    assert search(hub, "mobile release freeze", "mobile", as_of="2026-05-01T00:00:00Z") == []
    for body, field in (
        ({"valid_from": "2026-04-01T00:00:00Z", "valid_to": "2026-03-01T00:00:00Z"}, "valid_to"),
        ({"expires_at": "next week"}, "expires_at"),
    ):
        job = {"content": "The nightly job rotates the audit logs.", "project": "m"}
        answer = hub.post("memories", json=job | body)
        assert answer.status_code == 400 and field in answer.json()["error"]["fields"], answer.text
    stored = hub.post(
        "tools/call",
        json={
            "name": "memory_store",
            "project": "mobile",
            "arguments": {
                "content": "The mobile app store listing is frozen during the audit.",
                "expires_at": "2099-01-01",
            },
        },
    ).json()
    memory_id = stored["result"]["memory"]["id"]
    assert hub.get(f"memories/{memory_id}").json()["expires_at"] == "2099-01-01T00:00:00Z"
    answer = hub.post("search", json={"query": "freeze", "as_of": "yesterday"})
    assert answer.status_code == 400 and "as_of" in answer.json()["error"]["fields"]
    listed = hub.get("memories", params={"verified_before": "soon"})
    assert listed.status_code == 400 and "verified_before" in listed.json()["error"]["fields"]


def test_a_memory_leaves_search_recall_and_the_tools_once_it_expires(hub):
    text = "The staging cluster is down for maintenance; deploy previews go to the sandbox cluster."
    query = "where do deploy previews go while staging is down"
    write(hub, "The ops team keeps the sandbox cluster for experiments.", project="ops")  # the model is warm
    expires = datetime.now(UTC) + timedelta(seconds=8)  # room for the checks below on a busy machine
    memory = write(hub, text, project="ops", expires_at=iso(expires))["memory"]
    assert memory["expires_at"] == iso(expires)
    assert memory["id"] in ids(search(hub, query, "ops"))
    assert memory["id"] in hub.post("recall", json={"project": "ops", "query": query}).json()["memory_ids"]
    tool = hub.post("tools/call", json={"name": "memory_list", "project": "ops", "arguments": {}}).json()
    assert memory["id"] in [m["id"] for m in tool["result"]["memories"]]
    assert datetime.now(UTC) < expires, "the checks before expiry ran past it: give the memory longer"

    time.sleep(max((expires - datetime.now(UTC)).total_seconds(), 0) + 0.3)  # no sweep runs meanwhile
    assert memory["id"] not in ids(search(hub, query, "ops", min_score=0))
    assert memory["id"] not in hub.post("recall", json={"project": "ops", "query": query}).json()["memory_ids"]
    for name, arguments in (("memory_search", {"query": query}), ("memory_list", {})):
        result = hub.post("tools/call", json={"name": name, "project": "ops", "arguments": arguments}).json()["result"]
        assert memory["id"] not in [m["id"] for m in result.get("results", result.get("memories", []))]
    # Kept, and found when asking what was true before it expired.
    assert hub.get(f"memories/{memory['id']}").json()["status"] == "active"
    before = iso(expires - timedelta(seconds=1))
    assert memory["id"] in ids(search(hub, query, "ops", as_of=before))
    # Extended, it is back at once.
    extended = hub.patch(f"memories/{memory['id']}", json={"expires_at": "2099-01-01"})
    assert extended.status_code == 200 and extended.json()["expires_at"] == "2099-01-01T00:00:00Z"
    assert memory["id"] in ids(search(hub, query, "ops"))
    assert hub.patch(f"memories/{memory['id']}", json={"expires_at": "soon"}).status_code == 400


def test_a_repeated_write_moves_verified_at_and_verified_before_lists_the_rest(hub):
    again = write(hub, "The invoices service stores PDFs in the bucket inv-archive.", project="inv")["memory"]
    other = write(hub, "The invoices service sends reminders after fourteen days.", project="inv")["memory"]
    assert again["verified_at"] == again["created_at"]
    time.sleep(0.05)
    since = datetime.now(UTC)
    repeated = write(hub, "The invoices service stores PDFs in the bucket inv-archive.", project="inv")
    assert (repeated["outcome"], repeated["memory"]["id"]) == ("duplicate", again["id"])
    assert datetime.fromisoformat(repeated["memory"]["verified_at"]) >= since
    unchecked = hub.get("memories", params={"project": "inv", "verified_before": iso(since)}).json()["results"]
    assert [m["id"] for m in unchecked] == [other["id"]]


def test_a_fact_nobody_checked_for_long_says_so_in_recall_within_the_budget(hub):
    old = "The mail relay accepts mail from the office subnet only."
    item = {"content": old, "project": "mail", "confirmed": True, "created_at": "2025-01-10T00:00:00Z",
            "verified_at": "2025-02-03T00:00:00Z"}  # fmt: skip
    fresh = {"content": "The mail relay logs rejected senders to syslog.", "project": "mail", "confirmed": True}
    stale_id, fresh_id = hub.post("memories/import", json={"memories": [item, fresh]}).json()["ids"]
    block = hub.post("recall", json={"project": "mail", "budget_chars": 300}).json()
    lines = block["text"].splitlines()
    assert f"[#{stale_id}, checked 2025-02-03]" in next(line for line in lines if f"#{stale_id}" in line)
    assert next(line for line in lines if f"#{fresh_id}" in line).endswith(f"[#{fresh_id}]")
    assert len(block["text"]) <= 300


def test_export_and_import_keep_all_four_times(hub):
    kept = write(hub, "The nightly report job of the warehouse runs at two in the morning.", project="wh",
                 valid_from="2026-03-01T00:00:00Z", valid_to="2027-01-01T00:00:00Z",
                 expires_at="2027-02-01T00:00:00Z")["memory"]  # fmt: skip
    lines = [json.loads(line) for line in hub.get("export", params={"format": "jsonl"}).text.splitlines()]
    exported = next(line for line in lines if line["id"] == kept["id"])
    times = ("valid_from", "valid_to", "expires_at", "verified_at")
    assert [exported[t] for t in times] == [kept[t] for t in times]
    moved = dict(exported, project="wh-copy")
    new_id = hub.post("memories/import", json={"memories": [moved]}).json()["ids"][0]
    copy = hub.get(f"memories/{new_id}").json()
    assert [copy[t] for t in times] == [kept[t] for t in times]


@pytest.mark.django_db(transaction=True)
def test_a_store_from_the_previous_release_gets_valid_to_and_verified_at():
    from memoryhub.models import Memory
    from memoryhub.writes.gate import gate_write

    older = gate_write(content=A, project="shop", valid_from=JANUARY).memory
    newer = gate_write(content=B, project="shop", valid_from=JUNE).memory
    call_command("migrate", "memoryhub", "0008", verbosity=0)  # the release before: no such columns
    call_command("migrate", verbosity=0)
    older, newer = Memory.objects.get(pk=older.pk), Memory.objects.get(pk=newer.pk)
    assert (older.superseded_by_id, older.valid_to) == (newer.pk, newer.valid_from)
    assert (newer.valid_to, newer.expires_at) == (None, None)
    assert older.verified_at == older.updated_at and newer.verified_at == newer.updated_at


@pytest.mark.django_db
def test_mcp_recall_answers_for_the_moment_its_uri_or_prompt_names():
    from mcp.shared.exceptions import MCPError

    from memoryhub.agents.mcp_server import Caller, _recall_target, recall_text
    from memoryhub.agents.tokens import Agent
    from memoryhub.writes.gate import gate_write

    older = gate_write(content=A, project="shop", valid_from=JANUARY).memory
    newer = gate_write(content=B, project="shop", valid_from=JUNE).memory
    caller = Caller(agent=Agent(name="mcp-agent", projects=["shop"]), project="shop")
    project, query, as_of = _recall_target(caller, "memoryhub://recall/shop?query=billing+host&as_of=2026-03-15")
    assert (project, query, as_of) == ("shop", "billing host", "2026-03-15")
    then = recall_text(caller, project, query, as_of)
    assert f"#{older.pk}" in then and f"#{newer.pk}" not in then
    now = recall_text(caller, project, query)
    assert f"#{newer.pk}" in now and f"#{older.pk}" not in now
    with pytest.raises(MCPError, match="as_of"):
        recall_text(caller, project, query, "last spring")


@pytest.mark.django_db(transaction=True)
def test_the_same_fact_written_again_with_another_end_moves_the_stored_expiry():
    from memoryhub.models import Memory, MemoryEvent
    from memoryhub.writes.gate import gate_write

    text = "The release freeze on the shop's main branch lasts until the audit ends."
    first = gate_write(content=text, project="shop", expires_at="2026-12-20").memory
    again = gate_write(content=text, project="shop", expires_at="2027-01-10")
    assert (again.outcome, again.memory.pk) == ("merged", first.pk)
    assert "expires_at" in again.reason
    assert Memory.objects.get(pk=first.pk).expires_at == datetime(2027, 1, 10, tzinfo=UTC)
    assert MemoryEvent.objects.filter(memory_id=first.pk, action="expiry_set").count() == 1
    plain = gate_write(content=text, project="shop")  # no end said: the stored one stays
    assert plain.outcome == "duplicate"
    assert Memory.objects.get(pk=first.pk).expires_at == datetime(2027, 1, 10, tzinfo=UTC)
