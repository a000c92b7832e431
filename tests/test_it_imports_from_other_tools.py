"""Moving in from other tools: `manage.py import_from FORMAT PATH` and POST /api/v1/import_from, for the reference
MCP memory server's file, mem0's get_all JSON and Markdown memory files (CLAUDE.md, AGENTS.md, Cursor rules, Basic
Memory notes), every item through the write gate; and leaving again through GET export?format=mcp-memory.

The sample files in tests/samples/imports/ were written from each format's documentation; every item's fate is
asserted."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from memoryhub.agents.tokens import create_token
from memoryhub.models import GateLogEntry, Memory
from memoryhub.writes.importers import export_mcp_memory, import_from, parse_mcp_memory, read_path

SAMPLES = Path(__file__).resolve().parent / "samples" / "imports"

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _model(real_embedder):
    return real_embedder


def run_import(*args: str) -> list[str]:
    out = io.StringIO()
    call_command("import_from", *args, "-v", "2", stdout=out)
    return out.getvalue().splitlines()


def outcomes(lines: list[str]) -> list[tuple[str, str]]:
    """(outcome, origin) of each item line the command printed."""
    found = []
    for line in lines:
        head, _, rest = line.partition(": ")
        if head.split(" ")[0] in ("created", "merged", "duplicate", "rejected") and rest:
            found.append((head.split(" ")[0], rest.split(": ")[0]))
    return found


def test_the_mcp_memory_file_becomes_one_memory_per_observation_and_relation():
    lines = run_import("mcp-memory", str(SAMPLES / "memory.json"), "--project", "webshop")

    assert lines[-1] == "9 created, 0 merged, 1 duplicate, 2 rejected"
    assert outcomes(lines) == [
        ("created", "memory.json line 1 observation 1"),
        ("created", "memory.json line 1 observation 2"),
        ("created", "memory.json line 1 observation 3"),
        ("created", "memory.json line 2 observation 1"),
        ("created", "memory.json line 2 observation 2"),
        ("rejected", "memory.json line 2 observation 3"),  # "ok": noise
        ("rejected", "memory.json line 3 observation 1"),  # a password in a URL
        ("created", "memory.json line 3 observation 2"),
        ("created", "memory.json line 4 observation 1"),  # the same words about another entity: not a twin
        ("created", "memory.json line 5"),
        ("created", "memory.json line 6"),
        ("duplicate", "memory.json line 7 observation 1"),  # the same observation again, with a full stop
    ]
    john = Memory.objects.get(content="John_Smith: Speaks fluent Spanish")
    assert (john.project, john.category, john.tags, john.source) == ("webshop", "person", ["John_Smith", "person"],
                                                                     "import:mcp-memory")  # fmt: skip
    assert john.metadata == {"imported_from": "mcp-memory", "entity": "John_Smith", "entity_type": "person"}
    relation = Memory.objects.get(content="John_Smith works at Anthropic")
    assert relation.tags == ["John_Smith", "Anthropic"]
    assert relation.metadata["relation"] == {"from": "John_Smith", "to": "Anthropic", "relationType": "works_at"}
    assert not Memory.objects.filter(content__contains="Xk9-vault-pw").exists()
    assert "Xk9-vault-pw" not in "\n".join(lines)  # the report never repeats a secret
    secret_log = GateLogEntry.objects.get(kind="secret")
    assert "Xk9-vault-pw" not in secret_log.content


def test_mem0_results_keep_their_ids_and_map_user_agent_and_run_to_tags():
    lines = run_import("mem0", str(SAMPLES / "mem0.json"), "--project", "personal")

    assert lines[-1] == "5 created, 1 merged, 0 duplicate, 1 rejected"
    assert [o for o, _ in outcomes(lines)] == [
        "created", "created", "created", "rejected", "created", "merged", "created"
    ]  # fmt: skip
    dark = Memory.objects.get(content="Prefers dark mode in every editor and terminal")
    # The second copy (with a run id) was folded in: its tag joined the first one's.
    assert dark.tags == ["user:alice", "preferences", "run:session-77"]
    assert dark.metadata["mem0_id"] == "6f1c2b6e-0b9a-4a4e-9d1e-1a2b3c4d5e01"
    assert dark.metadata["created_at"] == "2025-03-02T10:11:12.000000-08:00"
    ruff = Memory.objects.get(content__startswith="Writes Python with type hints")
    assert ruff.tags == ["user:alice", "agent:coding-assistant"]
    peanuts = Memory.objects.get(content__startswith="Is allergic to peanuts")
    assert peanuts.metadata["mem0_metadata"] == {"source": "chat"} and peanuts.tags == ["user:alice", "health"]
    assert not Memory.objects.filter(content__contains="ghp_").exists()
    assert Memory.objects.filter(project="personal").count() == 5


def test_claude_md_and_agents_md_become_one_memory_per_bullet_or_paragraph_with_headings_as_context():
    claude = run_import("markdown", str(SAMPLES / "CLAUDE.md"), "--project", "webshop")
    agents = run_import("markdown", str(SAMPLES / "AGENTS.md"), "--project", "webshop")

    assert claude[-1] == "5 created, 0 merged, 0 duplicate, 1 rejected"
    assert agents[-1] == "4 created, 1 merged, 0 duplicate, 0 rejected"
    stored = list(Memory.objects.filter(project="webshop").order_by("pk").values_list("content", flat=True))
    assert stored == [
        "Webshop: This file gives Claude Code guidance for working in this repository.",
        "Commands: Run `make test` before pushing; CI runs the same target with coverage.",
        "Commands: Start the Stripe mock with `make stripe-mock` before the checkout tests. It listens on port "
        "12111 and resets its state on every start.",
        "Architecture: The storefront is a Django app in `shop/`; background jobs run in Celery workers that read "
        "from Redis.",
        "Gotchas: Never run the migrations against the shared staging database from a laptop; use the deploy pipeline.",
        "Setup: Install dependencies with `pnpm install`, never with npm or yarn.",
        "Setup: Copy `.env.example` to `.env` before the first run.",
        "Code style: TypeScript strict mode is on everywhere; do not add `any` to silence the compiler.",
        "Code style: Prefer named exports over default exports in shared modules.",
    ]
    # AGENTS.md repeats CLAUDE.md's test rule under another heading: folded into it, tagged from both files.
    test_rule = Memory.objects.get(content__startswith="Commands: Run `make test`")
    assert test_rule.tags == ["claude-md", "agents-md"]
    assert test_rule.metadata == {"imported_from": "markdown", "file": "CLAUDE.md", "heading": "Commands"}
    assert ("rejected", "CLAUDE.md") in outcomes(claude)  # the API key line
    assert not Memory.objects.filter(content__contains="sk-proj-").exists()


def test_a_folder_of_cursor_rules_reads_every_rule_file():
    lines = run_import("markdown", str(SAMPLES / "rules"), "--project", "frontend")

    assert lines[-1] == "5 created, 0 merged, 0 duplicate, 1 rejected"
    assert (
        outcomes(lines)
        == [("created", ".cursorrules")] * 3 + [("rejected", ".cursorrules")] + [("created", "testing.mdc")] * 2
    )
    mdc = Memory.objects.get(content__startswith="Tests use Vitest")
    assert mdc.tags == ["cursor-rules"]
    # A ticked task box is a bullet, not a Basic Memory category.
    assert Memory.objects.filter(content="Snapshot tests are forbidden for components that render dates.").exists()
    assert not Memory.objects.filter(content__contains="Today I worked").exists()


def test_basic_memory_notes_keep_their_categories_tags_and_relations():
    lines = run_import("markdown", str(SAMPLES / "notes"), "--project", "kb")

    assert lines[-1] == "10 created, 0 merged, 0 duplicate, 0 rejected"
    pour = Memory.objects.get(
        content="Coffee Brewing Methods: Pour over gives more clarity of flavour than a French press"
    )
    assert (pour.category, pour.tags) == ("skill", ["coffee", "brewing", "method"])
    assert pour.metadata["basic_memory_category"] == "method"
    roast = Memory.objects.get(content__startswith="Coffee Brewing Methods: Medium roast")
    assert (roast.category, roast.tags) == ("preference", ["coffee", "brewing", "preference", "taste"])
    tip = Memory.objects.get(content__startswith="Coffee Brewing Methods: Water at 93")
    assert "tip" in tip.tags and tip.metadata["basic_memory_category"] == "tip"  # not one of ours: a tag
    fts = Memory.objects.get(content__startswith="Search Design: FTS5 reads")
    assert (fts.category, fts.tags) == ("gotcha", ["search", "architecture", "gotcha", "fts5"])
    pairs = Memory.objects.get(content="Coffee Brewing Methods pairs with Chocolate Desserts")
    assert pairs.metadata["relation"] == {"type": "pairs_with", "target": "Chocolate Desserts"}
    assert "relation" in pairs.tags


def test_a_dry_run_says_what_the_gate_would_decide_and_stores_nothing():
    run_import("markdown", str(SAMPLES / "CLAUDE.md"), "--project", "webshop")
    before = Memory.objects.count()

    lines = run_import("markdown", str(SAMPLES / "AGENTS.md"), "--project", "webshop", "--dry-run")

    assert lines[-2:] == ["dry run: nothing was stored", "4 created, 0 merged, 1 duplicate, 0 rejected"]
    assert Memory.objects.count() == before


def test_a_file_in_the_wrong_format_is_refused_whole(tmp_path):
    with pytest.raises(CommandError, match="line 1 is not JSON"):
        run_import("mcp-memory", str(SAMPLES / "CLAUDE.md"))
    with pytest.raises(CommandError, match="memory.json is not JSON"):
        run_import("mem0", str(SAMPLES / "memory.json"))
    wrong_shape = tmp_path / "graph.json"
    wrong_shape.write_text('{"entities": []}')
    with pytest.raises(CommandError, match="no `results` list"):
        run_import("mem0", str(wrong_shape))
    with pytest.raises(CommandError, match="only the markdown format reads folders"):
        run_import("mem0", str(SAMPLES / "notes"))
    assert Memory.objects.count() == 0


def auth(raw: str) -> dict:
    return {"Authorization": f"Bearer {raw}"}


def test_the_api_imports_into_the_tokens_only_project_and_answers_item_by_item(client):
    _, raw = create_token(name="claude", projects=["webshop"])
    body = {"format": "mcp-memory", "content": (SAMPLES / "memory.json").read_text(), "name": "memory.json"}

    response = client.post("/api/v1/import_from", data=json.dumps(body), content_type="application/json",
                           headers=auth(raw))  # fmt: skip

    assert response.status_code == 200, response.content
    answer = response.json()
    assert {k: answer[k] for k in ("created", "merged", "duplicate", "rejected", "summary", "dry_run")} == {
        "created": 9, "merged": 0, "duplicate": 1, "rejected": 2,
        "summary": "9 created, 0 merged, 1 duplicate, 2 rejected", "dry_run": False,
    }  # fmt: skip
    secret = answer["items"][6]
    assert secret["outcome"] == "rejected" and "Xk9-vault-pw" not in json.dumps(answer)
    assert (
        secret["content"]
        == "staging_db: Connects with postgres://deploy:[REDACTED password in a URL, 17 chars]@db.internal:5432/shop"
    )
    assert set(Memory.objects.values_list("project", flat=True)) == {"webshop"}
    assert set(Memory.objects.values_list("source", flat=True)) == {"claude"}


def test_the_api_takes_a_folders_files_refuses_other_projects_and_bad_files(client):
    _, raw = create_token(name="claude", projects=["webshop"])
    files = [{"name": p.name, "content": p.read_text()} for p in sorted((SAMPLES / "rules").iterdir())]

    def post(body: dict):
        return client.post("/api/v1/import_from", data=json.dumps(body), content_type="application/json",
                           headers=auth(raw))  # fmt: skip

    dry = post({"format": "markdown", "files": files, "dry_run": True})
    assert dry.status_code == 200 and dry.json()["summary"] == "5 created, 0 merged, 0 duplicate, 1 rejected"
    assert Memory.objects.count() == 0
    done = post({"format": "markdown", "files": files})
    assert done.json()["summary"] == "5 created, 0 merged, 0 duplicate, 1 rejected"
    assert post({"format": "markdown", "files": files, "project": "billing"}).status_code == 403
    bad = post({"format": "mem0", "content": "not json"})
    assert bad.status_code == 400 and "content" in bad.json()["error"]["fields"]
    assert post({"format": "yaml", "content": "x"}).status_code == 400


def test_export_to_the_mcp_memory_format_gives_back_what_came_in(client):
    items = read_path(format="mcp-memory", path=str(SAMPLES / "memory.json")).items
    import_from(format="mcp-memory", items=items, project="webshop", source="import:mcp-memory")
    from memoryhub.memories.store import create_memory

    create_memory(content="The user writes commit messages in the imperative mood.", project=None)
    _, raw = create_token(name="curator")

    response = client.get("/api/v1/export?format=mcp-memory", headers=auth(raw))

    assert response.status_code == 200
    lines = [json.loads(line) for line in b"".join(response.streaming_content).decode().splitlines()]
    entities = {e["name"]: e for e in lines if e["type"] == "entity"}
    john = ["Speaks fluent Spanish", "Prefers morning meetings before 10am", "Leads the payments team since 2023"]
    assert entities["John_Smith"] == {"type": "entity", "name": "John_Smith", "entityType": "person",
                                      "observations": john}  # fmt: skip
    assert entities["webshop"]["observations"] == [
        "The webshop deploys to Fly.io from the main branch",
        "Uses PostgreSQL 16 with the pgvector extension",
    ]
    imperative = "The user writes commit messages in the imperative mood."
    assert entities["global"] == {"type": "entity", "name": "global", "entityType": "memoryhub",
                                  "observations": [imperative]}  # fmt: skip
    assert [e for e in lines if e["type"] == "relation"] == [
        {"type": "relation", "from": "John_Smith", "to": "Anthropic", "relationType": "works_at"},
        {"type": "relation", "from": "John_Smith", "to": "webshop", "relationType": "maintains"},
    ]
    # And what leaves comes back in: the exported file reads as the same items.
    again = parse_mcp_memory("".join(export_mcp_memory(Memory.objects.order_by("pk"))))
    assert {i.content for i in again} == set(Memory.objects.values_list("content", flat=True)) - {
        "The user writes commit messages in the imperative mood."
    } | {"global: The user writes commit messages in the imperative mood."}
