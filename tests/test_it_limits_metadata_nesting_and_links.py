"""Issue 25's last 500s and open doors: metadata has a size limit (16 KiB of JSON) on every write route; JSON nested
too deeply inside an import_from file is a 400 naming `content`, not a RecursionError; `import_from markdown` never
follows a symbolic link (file or folder) out of the folder it was given, and says which it skipped; `manage.py
check` is clean afterwards."""

from __future__ import annotations

import io
import json
import os

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from memoryhub.agents.tokens import Agent
from memoryhub.agents.tools import ToolError, call_tool
from memoryhub.memories.storable import MAX_METADATA_BYTES, metadata_size
from memoryhub.memories.store import create_memory
from memoryhub.models import Memory
from memoryhub.writes.importers import read_path
from tests.api.conftest import error_of

pytestmark = pytest.mark.django_db
FACT = "Alpha caches sessions in Redis 7"


def _metadata(size: int) -> dict:
    """Metadata of exactly `size` bytes as JSON."""
    base = {"blob": ""}
    return {"blob": "x" * (size - metadata_size(base))}


def test_metadata_up_to_the_limit_is_kept_and_one_byte_more_is_a_422_naming_it(curator):
    assert metadata_size(_metadata(MAX_METADATA_BYTES)) == MAX_METADATA_BYTES
    ok = curator.store(FACT, project="alpha", metadata=_metadata(MAX_METADATA_BYTES))
    assert ok.status_code == 201, ok.content
    too_big = curator.store("Beta caches sessions in Memcached", project="beta", metadata=_metadata(4 * 1024 * 1024))
    error = error_of(too_big)
    assert too_big.status_code == 422 and set(error["fields"]) == {"metadata"}
    assert str(MAX_METADATA_BYTES) in error["message"]
    assert Memory.objects.count() == 1


def test_the_metadata_limit_holds_on_edit_import_and_tool_calls(curator):
    memory = create_memory(content=FACT, project="alpha")
    big = _metadata(MAX_METADATA_BYTES + 1)
    response = curator.patch(f"memories/{memory.pk}", {"metadata": big})
    assert response.status_code == 422 and "metadata" in error_of(response)["fields"]
    response = curator.post("memories/import", {"memories": [{"content": "Beta uses Bazel 7", "metadata": big}]})
    assert response.status_code == 422 and "memories.0.metadata" in error_of(response)["fields"]
    response = curator.post(
        "tools/call", {"name": "memory_store", "arguments": {"content": FACT, "metadata": big, "scope": "global"}}
    )
    assert response.status_code == 422, response.content
    with pytest.raises(ToolError) as caught:
        call_tool(name="memory_update", arguments={"id": memory.pk, "metadata": big}, agent=Agent(name="curator"))
    assert caught.value.status == 422
    memory.refresh_from_db()
    assert memory.metadata == {} and Memory.objects.count() == 1


def _nested(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


@pytest.mark.parametrize("depth", [40, 5_000, 200_000])
def test_deeply_nested_json_in_import_from_is_a_400_naming_content(curator, depth):
    mem0 = '{"results": [{"memory": "The beta build uses Bazel 7", "metadata": ' + _nested(depth) + "}]}"
    mcp = '{"type": "entity", "name": "beta", "entityType": "project", "observations": [], "x": ' + _nested(depth)
    mcp += "}"
    for body in ({"format": "mem0", "content": mem0}, {"format": "mcp-memory", "content": mcp}):
        response = curator.post("import_from", body)
        assert response.status_code == 400, (body["format"], response.content[:300])
        error = error_of(response)
        assert "content" in error["fields"] and "nested too deeply" in error["message"]
    assert Memory.objects.count() == 0


def test_json_nested_within_the_limit_still_imports(curator):
    mem0 = {"results": [{"memory": "The beta build uses Bazel 7", "metadata": json.loads(_nested(20))}]}
    response = curator.post("import_from", {"format": "mem0", "content": json.dumps(mem0), "project": "beta"})
    assert response.status_code == 200 and response.json()["created"] == 1, response.content


# --- symbolic links -----------------------------------------------------------------------------------------


@pytest.fixture
def linked_folder(tmp_path):
    """notes/ with one real rule file, a CLAUDE.md linking to a file outside, and a folder linking outside."""
    outside = tmp_path / "outside"
    (outside / "deep").mkdir(parents=True)
    (outside / "passwd.md").write_text("root:x:0:0:root:/root:/bin/bash is the first account line\n")
    (outside / "deep" / "AGENTS.md").write_text("- The outside folder must never be imported by a link\n")
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "RULES.md").write_text("- Use pnpm, not npm, in the web app\n")
    os.symlink(outside / "passwd.md", notes / "CLAUDE.md")
    os.symlink(outside / "deep", notes / "linked")
    return notes


def test_import_from_markdown_skips_linked_files_and_folders_and_names_them(linked_folder):
    read = read_path(format="markdown", path=str(linked_folder))
    assert [i.content for i in read.items] == ["Use pnpm, not npm, in the web app"]
    assert read.skipped == ["linked: a symbolic link, not followed", "CLAUDE.md: a symbolic link, not followed"]
    out = io.StringIO()
    call_command("import_from", "markdown", str(linked_folder), stdout=out)
    lines = out.getvalue().splitlines()
    assert "skipped CLAUDE.md: a symbolic link, not followed" in lines
    assert "skipped linked: a symbolic link, not followed" in lines
    assert lines[-1] == "1 created, 0 merged, 0 duplicate, 0 rejected"
    contents = " ".join(Memory.objects.values_list("content", flat=True))
    assert "root:x:0:0" not in contents and "outside folder" not in contents


def test_a_path_that_is_a_link_is_refused_whole(linked_folder, tmp_path):
    with pytest.raises(CommandError, match="symbolic link"):
        call_command("import_from", "markdown", str(linked_folder / "CLAUDE.md"), stdout=io.StringIO())
    os.symlink(linked_folder, tmp_path / "notes-link")
    with pytest.raises(CommandError, match="symbolic link"):
        call_command("import_from", "markdown", str(tmp_path / "notes-link"), stdout=io.StringIO())
    assert Memory.objects.count() == 0


def test_manage_py_check_is_clean_after_the_hostile_inputs(curator, linked_folder):
    curator.store(FACT, metadata=_metadata(MAX_METADATA_BYTES * 2))
    curator.post("import_from", {"format": "mem0", "content": '{"results": ' + "[" * 50_000 + "]" * 50_000 + "}"})
    call_command("import_from", "markdown", str(linked_folder), stdout=io.StringIO())
    out = io.StringIO()
    call_command("check", stdout=out)
    assert "no issues" in out.getvalue()
