"""Rules that several routes share are written once, in the domain, and every route gives the same answer:

- the edit rule (memories.gate.edit_memory): the API's PATCH, the agents' memory_update and the dashboard's edit
  keep, refuse and record the same edits the same way; superseded is never set or left by an edit;
- storable JSON (memories.storable.unstorable): the API's body parser, the tools' arguments and every write refuse
  the same values, for the same reason;
- another project's memory (memories.selectors.visible_memory): a 404 exactly like a missing one, on every route;
- usage records (memories.bookkeeping.record_usage): the API, the tool calls and the chat proxy each leave one,
  written after the answer, with a secret sent as a project redacted;
- a memory in an answer (memories.shape.memory_as_dict): the API, the serializer, the export and the proposals give
  the same dict, and the tools' compact form is its COMPACT_FIELDS, taken from it.

Each part also checks that the routes call the one home, so a second copy written beside it fails here.
"""

from __future__ import annotations

import html
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from django.core.exceptions import ValidationError
from django.test import Client

import api.auth
import api.serializers
import api.views.common
import api.views.memories
import api.views.proposals
import api.views.retrieval
import memoryhub.agents.proxy
import memoryhub.agents.tools
import memoryhub.memories.fields
import memoryhub.writes.exports
import ui.services
import ui.views.memories
from memoryhub.agents.tokens import Agent
from memoryhub.agents.tools import ToolError, call_tool
from memoryhub.embeddings import get_embedder
from memoryhub.memories import bookkeeping, selectors, storable
from memoryhub.memories.selectors import MAX_ID, visible_memory
from memoryhub.memories.storable import MAX_JSON_DEPTH, Unstorable, unstorable
from memoryhub.memories.store import clean_fields, create_memory
from memoryhub.memories.supersession import supersede
from memoryhub.models import Memory, MemoryEvent, Status, UsageRecord
from memoryhub.storage import sql
from memoryhub.writes import gate, shape
from memoryhub.writes.gate import edit_memory
from tests.api.conftest import error_of, make_agent
from ui.forms import version_of

pytestmark = pytest.mark.django_db

FACT = "The alpha API listens on port 8080"
SECRET = "ghp_" + "a1B2c3D4e5" * 4
AWS_KEY = "AKIAZ7QWERTY12345678"


# --- the edit rule -----------------------------------------------------------------------------------------------


def _edit_through_the_api(memory: Memory, text: str) -> tuple[str, str]:
    """(outcome, the domain's words about the content) of the edit, as the route answers it."""
    response = make_agent("claude", projects=["alpha"]).patch(f"memories/{memory.pk}", {"content": text})
    if response.status_code == 200:
        return "kept", ""
    assert response.status_code == 422, response.content
    return error_of(response)["code"], error_of(response)["fields"]["content"][0]


def _edit_through_the_tools(memory: Memory, text: str) -> tuple[str, str]:
    agent = Agent(name="claude", projects=["alpha"])
    try:
        call_tool(name="memory_update", arguments={"id": memory.pk, "content": text}, agent=agent)
    except ToolError as exc:
        assert exc.status == 422 and exc.field == "content", exc.message
        return exc.code, exc.message.removeprefix("content: ")
    return "kept", ""


def _edit_in_the_dashboard(memory: Memory, text: str, person: Client) -> tuple[str, str]:
    response = person.post(
        f"/memories/{memory.pk}/edit/",
        {f"m{memory.pk}-content": text, f"m{memory.pk}-version": version_of(memory)},
    )
    if response.status_code == 302:
        return "kept", ""
    assert response.status_code == 422, response.content[:500]
    return "refused", html.unescape(response.content.decode())


@pytest.mark.parametrize(
    ("text", "outcome"),
    [
        ("The alpha API listens on port 9090 since the move", "kept"),
        ("thanks, that works!", "rejected_noise"),
        ("Step 1 done. Step 2 done.", "rejected_noise"),
        (f"The deploy token is {SECRET}", "rejected_secret"),
    ],
)
def test_an_edit_is_kept_or_refused_alike_by_the_api_the_tools_and_the_dashboard(text, outcome, django_user_model):
    person = Client()
    person.force_login(django_user_model.objects.create_superuser("admin", "a@example.com", "pw-for-tests-only"))
    answers = {}
    for route, edit in {
        "api": _edit_through_the_api,
        "tools": _edit_through_the_tools,
        "dashboard": lambda m, t: _edit_in_the_dashboard(m, t, person),
    }.items():
        memory = create_memory(content=f"{FACT} ({route})", project="alpha")
        vector = sql.read_vectors([memory.pk])[memory.pk]
        answers[route] = edit(memory, text)
        memory.refresh_from_db()
        last = MemoryEvent.objects.filter(memory_id=memory.pk).last()
        if outcome != "kept":
            assert memory.content == f"{FACT} ({route})" and last.action == "created", route
            continue
        # Kept: the new text, a new vector of the current model, one event holding what was there before.
        assert memory.content == text and memory.embed_model == get_embedder().model_id, route
        assert not np.allclose(sql.read_vectors([memory.pk])[memory.pk], vector), route
        assert last.before == {"content": f"{FACT} ({route})"} and last.after == {"content": text}, route
        assert last.action == ("edited" if route == "dashboard" else "updated"), route
    # The same answer, in the same words: the dashboard shows the domain's sentence (capitalised) on its form.
    said = answers["api"][1]
    assert answers["api"] == answers["tools"] == (outcome, said)
    assert answers["dashboard"][0] == ("kept" if outcome == "kept" else "refused")
    assert said[1:].rstrip(".") in answers["dashboard"][1] and SECRET not in answers["dashboard"][1]


def test_superseded_is_entered_by_supersession_and_left_by_restore_never_by_an_edit():
    older = create_memory(content="The alpha API listens on port 8080", project="alpha")
    newer = create_memory(content="The alpha API listens on port 9090 now", project="alpha")
    claude = make_agent("claude", projects=["alpha"])
    response = claude.patch(f"memories/{newer.pk}", {"status": "superseded"})
    assert response.status_code == 400 and list(error_of(response)["fields"]) == ["status"]
    supersede(older=older, newer=newer, actor="test", reason="a newer port")
    response = claude.patch(f"memories/{older.pk}", {"status": "active"})
    assert response.status_code == 400 and "restore" in error_of(response)["fields"]["status"][0]
    older.refresh_from_db()
    assert (older.status, older.superseded_by_id) == (Status.SUPERSEDED, newer.pk)
    # Other fields of a superseded memory, and the statuses that are not supersession, are edits as before.
    assert claude.patch(f"memories/{older.pk}", {"tags": ["ports"]}).status_code == 200
    assert claude.patch(f"memories/{newer.pk}", {"status": "archived"}).status_code == 200


def test_an_edit_changes_only_the_editable_fields():
    memory = create_memory(content=FACT, project="alpha")
    with pytest.raises(ValidationError) as caught:
        edit_memory(memory=memory, changes={"source": "someone-else", "tags": ["x"]}, actor="test")
    assert set(caught.value.message_dict) == {"source"}
    with pytest.raises(ValidationError):
        edit_memory(memory=memory, changes={}, actor="test")
    memory.refresh_from_db()
    assert (memory.source, memory.tags) == ("", [])


def test_every_route_that_edits_calls_the_one_edit_rule():
    for module in (api.views.memories, memoryhub.agents.tools, ui.views.memories, ui.services):
        assert module.edit_memory is gate.edit_memory, module.__name__
        assert not hasattr(module, "update_memory"), f"{module.__name__} edits around the rule"


# --- storable JSON -----------------------------------------------------------------------------------------------


def post_json(agent, path: str, body: dict):
    """As a client sends it: lone surrogates escaped (\\udc00), NaN and Infinity written as JavaScript does."""
    return agent.client.post(f"/api/v1/{path}", data=json.dumps(body), content_type="application/json")


def _nested(depth: int) -> dict:
    value: dict = {"leaf": 1}
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize(
    ("value", "path", "why"),
    [
        ({"note": "fine", "n": [1, 2.5, True, None]}, None, None),
        ({"note": "\udc00"}, "note", "holds text that is not valid Unicode (a lone surrogate such as \\ud800)"),
        ({"\udc00": 1}, "", "has a key that is not valid Unicode (a lone surrogate such as \\ud800)"),
        ({"a": [0, "x\x00y"]}, "a.1", "holds a NUL byte"),
        ({"x\x00": 1}, "", "has a key that holds a NUL byte"),
        ({"ratio": math.nan}, "ratio", "must be a finite number"),
        ({"ratio": -math.inf}, "ratio", "must be a finite number"),
        ({"when": {1, 2}}, "when", "is not a JSON value (a set)"),
        ({1: "one"}, "", "has a key that is not text"),
        (_nested(MAX_JSON_DEPTH - 1), None, None),
        (_nested(MAX_JSON_DEPTH), "a." * MAX_JSON_DEPTH + "leaf", f"is nested deeper than {MAX_JSON_DEPTH} levels"),
    ],
)
def test_unstorable_names_where_and_why(value, path, why):
    expected = None if why is None else Unstorable(path, why)
    assert unstorable(value) == expected
    if why and "NUL" in why:
        assert unstorable(value, nul_allowed=True) is None  # a whole request: the write refuses it later


BAD_METADATA = [
    {"note": "\udc00"},
    {"\udc00": 1},
    {"ratio": math.nan},
    {"ratio": math.inf},
    {"a": [0, "x\x00y"]},
    _nested(MAX_JSON_DEPTH + 3),
]


@pytest.mark.parametrize("metadata", BAD_METADATA)
def test_the_api_the_tools_and_every_write_refuse_the_same_metadata_for_the_same_reason(metadata):
    why = unstorable(metadata).why
    # The API: a 400 naming the field (its path inside the body), nothing stored.
    response = post_json(make_agent("curator"), "memories", {"content": FACT, "metadata": metadata})
    assert response.status_code == 400, response.content
    error = error_of(response)
    [field] = error["fields"]
    assert field.split(".")[0] == "metadata" and why in error["fields"][field][0], error
    # The tools: a 400 naming the argument.
    with pytest.raises(ToolError) as caught:
        arguments = {"content": FACT, "metadata": metadata, "project": "alpha"}
        call_tool(name="memory_store", arguments=arguments, agent=Agent(name="curator"))
    assert (caught.value.status, caught.value.field) == (400, "metadata") and why in caught.value.message
    # Every write: the field check the gate, edits, imports and the dashboard share.
    with pytest.raises(ValidationError) as refused:
        clean_fields({"content": FACT, "metadata": metadata})
    assert list(refused.value.message_dict) == ["metadata"] and why in refused.value.message_dict["metadata"][0]
    assert Memory.objects.count() == 0


def test_a_lone_surrogate_in_a_tag_is_refused_alike_everywhere():
    why = unstorable("\udfff").why
    response = post_json(make_agent("curator"), "memories", {"content": FACT, "tags": ["ok", "\udfff"]})
    assert response.status_code == 400 and error_of(response)["fields"] == {"tags.1": [why]}
    with pytest.raises(ToolError) as caught:
        call_tool(name="memory_store", arguments={"content": FACT, "tags": ["ok", "\udfff"]}, agent=Agent(name="c"))
    assert caught.value.field == "tags" and why in caught.value.message
    with pytest.raises(ValidationError) as refused:
        clean_fields({"content": FACT, "tags": ["ok", "\udfff"]})
    assert why in refused.value.message_dict["tags"][0]


def test_every_route_checks_storable_json_with_the_one_function():
    for module in (api.auth, memoryhub.agents.tools, memoryhub.memories.fields):
        assert module.unstorable is storable.unstorable, module.__name__
    assert not hasattr(api.auth, "bad_json_value") and not hasattr(memoryhub.agents.tools, "_storable")
    assert api.auth.MAX_JSON_DEPTH is storable.MAX_JSON_DEPTH
    assert memoryhub.memories.fields.MAX_METADATA_BYTES is storable.MAX_METADATA_BYTES


# --- another project's memory ------------------------------------------------------------------------------------


def test_visible_memory_finds_only_what_the_caller_may_see():
    alpha = create_memory(content="Alpha deploys on Tuesdays", project="alpha")
    beta = create_memory(content="Beta deploys on Fridays", project="beta")
    shared = create_memory(content="Every service logs to Loki", project=None)
    for allowed, seen in ((["alpha"], {alpha, shared}), ([], {shared}), (None, {alpha, beta, shared})):
        for memory in (alpha, beta, shared):
            expected = memory if memory in seen else None
            assert visible_memory(memory.pk, allowed_projects=allowed) == expected, (allowed, memory.project)
            assert visible_memory(str(memory.pk), allowed_projects=allowed) == expected
    for bad in (0, -1, MAX_ID + 1, 10**30, "abc", "1.0", "", None, True, 1.0, [alpha.pk]):
        assert visible_memory(bad, allowed_projects=None) is None, bad


def test_another_projects_memory_answers_every_route_as_a_missing_one():
    hidden = create_memory(content="Beta caches sessions in Memcached", project="beta")
    missing = hidden.pk + 1000
    claude = make_agent("claude", projects=["alpha"])

    def same(answer_for) -> None:
        one, other = answer_for(hidden.pk), answer_for(missing)
        assert one == other.replace(str(missing), str(hidden.pk)), (one, other)

    def api_answer(method: str, path: str):
        def answer(pk: int) -> str:
            response = getattr(claude, method)(
                path.format(pk=pk), *([{"content": "x y z"}] if method == "patch" else [])
            )
            assert response.status_code == 404
            return json.dumps(response.json())

        return answer

    for method, path in [
        ("get", "memories/{pk}"),
        ("patch", "memories/{pk}"),
        ("delete", "memories/{pk}"),
        ("post", "memories/{pk}/refresh"),
        ("post", "memories/{pk}/restore"),
        ("get", "memories/{pk}/history"),
    ]:
        same(api_answer(method, path))

    def tool_answer(name: str):
        def answer(pk: int) -> str:
            with pytest.raises(ToolError) as caught:
                call_tool(name=name, arguments={"id": pk, **({"content": "x y z"} if name == "memory_update" else {})},
                          agent=Agent(name="claude", projects=["alpha"]))  # fmt: skip
            assert caught.value.status == 404
            return json.dumps([caught.value.message, caught.value.field, caught.value.code])

        return answer

    for name in ("memory_update", "memory_delete", "memory_refresh"):
        same(tool_answer(name))
    assert Memory.objects.filter(pk=hidden.pk, content="Beta caches sessions in Memcached").exists()


def test_every_route_finds_a_memory_by_id_through_the_one_selector():
    for module in (api.views.memories, memoryhub.agents.tools, memoryhub.writes.exports):
        assert module.visible_memory is selectors.visible_memory, module.__name__


# --- usage records -----------------------------------------------------------------------------------------------


def test_the_api_the_tools_and_the_proxy_each_leave_one_usage_record_written_after_the_answer(
    monkeypatch, upstream, client
):
    queued: list = []
    # The bookkeeping thread's queue, held still.
    monkeypatch.setattr(bookkeeping.runtime, "after_response", lambda item, write: queued.append((item, write)))
    curator = make_agent("curator")

    assert curator.store(FACT, project=f"alpha {AWS_KEY}").status_code == 422  # the API: a refused write
    assert curator.post("tools/call", {"name": "memory_list", "arguments": {"project": f"tools {AWS_KEY}"}})
    response = client.post(
        "/v1/chat/completions",
        data=json.dumps({"model": "fake-model", "messages": [{"role": "user", "content": "How do we deploy?"}]}),
        content_type="application/json",
        headers={"Authorization": f"Bearer {curator.raw}", "X-MemoryHub-Project": f"proxy {AWS_KEY}"},
    )
    assert response.status_code == 200, response.content
    assert UsageRecord.objects.count() == 0 and len(queued) == 3  # nothing written before the answers went
    assert {write for _, write in queued} == {bookkeeping.write}
    bookkeeping.write([item for item, _ in queued])  # as the thread writes a batch
    records = {r.kind: r for r in UsageRecord.objects.all()}
    assert set(records) == {"write", "tool", "proxy"}
    assert {r.agent for r in records.values()} == {"curator"}
    assert records["tool"].tool_calls == 1 and records["proxy"].completion_tokens == 7
    for record in records.values():
        assert AWS_KEY[-8:] not in record.project and record.latency_ms > 0, record.kind


def test_every_usage_record_is_written_by_the_one_function():
    for module in (api.views.common, memoryhub.agents.tools, memoryhub.agents.proxy):
        assert not hasattr(module, "UsageRecord"), f"{module.__name__} writes usage records itself"
    assert memoryhub.agents.tools.record_usage is bookkeeping.record_usage
    assert memoryhub.agents.proxy.record_usage is bookkeeping.record_usage
    assert api.views.common.bookkeeping is bookkeeping


# --- a memory in an answer ---------------------------------------------------------------------------------------


def _a_memory_with_a_chain() -> Memory:
    older = create_memory(content="Alpha deploys with Fabric", project="alpha", tags=["deploy"])
    newer = create_memory(content="Alpha deploys with Ansible", project="alpha", tags=["deploy"],
                          metadata={"file": "deploy.yml"})  # fmt: skip
    supersede(older=older, newer=newer, actor="test", reason="moved")
    return Memory.objects.get(pk=newer.pk)


def _same(answer: dict, full: dict) -> None:
    """Equal, but for the decayed importance, which moves with the clock between two readings."""
    assert answer.keys() == full.keys()
    assert answer["effective_importance"] == pytest.approx(full["effective_importance"], abs=1e-6)
    assert {**answer, "effective_importance": 0} == {**full, "effective_importance": 0}


def test_the_api_the_export_the_serializer_and_the_tools_answer_with_the_one_shape():
    memory = _a_memory_with_a_chain()
    full = json.loads(json.dumps(shape.memory_as_dict(memory)))
    assert full["supersedes"] and full["metadata"] == {"file": "deploy.yml"}
    curator = make_agent("curator")
    _same(curator.get(f"memories/{memory.pk}").json(), full)
    exported = curator.get("export")
    lines = [json.loads(line) for line in b"".join(exported.streaming_content).decode().splitlines()]
    _same(next(line for line in lines if line["id"] == memory.pk), full)
    _same(json.loads(json.dumps(api.serializers.MemorySerializer(memory).data)), full)
    listed = call_tool(name="memory_list", arguments={"project": "alpha"}, agent=Agent(name="claude", projects=None))
    small = next(m for m in listed["result"]["memories"] if m["id"] == memory.pk)
    assert list(small) == list(shape.COMPACT_FIELDS)
    _same(small, {key: full[key] for key in shape.COMPACT_FIELDS})  # each key as the full shape has it


def test_the_serializer_describes_the_one_shape_and_delegates_its_output(monkeypatch):
    memory = _a_memory_with_a_chain()
    keys = list(shape.memory_as_dict(memory))
    assert list(api.serializers.MemorySerializer().fields) == keys  # the schema names every key, in order
    assert list(api.serializers.SearchResultSerializer().fields) == [*keys, "score", "explain"]
    assert set(shape.COMPACT_FIELDS) < set(keys)
    monkeypatch.setattr(api.serializers, "memory_as_dict", lambda m: {"from": "the one shape", "id": m.pk})
    assert api.serializers.MemorySerializer(memory).data == {"from": "the one shape", "id": memory.pk}


SHAPE_KEYS = ("embed_model", "access_count", "last_accessed_at", "merged_into", "valid_from", "supersedes")


def test_every_answer_builds_a_memory_with_the_one_function():
    for module in (api.serializers, api.views.memories, api.views.retrieval, api.views.proposals,
                   memoryhub.writes.exports):  # fmt: skip
        assert module.memory_as_dict is shape.memory_as_dict, module.__name__
    assert memoryhub.agents.tools.compact_memory is shape.compact_memory
    assert memoryhub.agents.tools.write_answer is api.views.memories.write_answer is shape.write_answer
    for module in (memoryhub.agents.tools, memoryhub.writes.exports, api.serializers):
        assert not hasattr(module, "compact") and not hasattr(module, "COMPACT_FIELDS"), module.__name__
    # A second dict of a memory, written out key by key beside the one home, fails here.
    root = Path(__file__).resolve().parent.parent
    copies = {}
    for folder in ("memoryhub", "api", "ui"):
        for path in (root / folder).rglob("*.py"):
            found = {key for key in SHAPE_KEYS if re.search(rf"[\"']{key}[\"']\s*:", path.read_text())}
            if len(found) >= 3:
                copies[str(path.relative_to(root))] = sorted(found)
    assert list(copies) == ["memoryhub/writes/shape.py"], copies
