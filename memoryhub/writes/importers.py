"""Moving in from other tools: their memory files become memories, every item through the write gate.

Formats (the names `python manage.py import_from FORMAT PATH` and POST /api/v1/import_from take):

- `mcp-memory`: the reference MCP memory server's file, one JSON object a line (`{"type": "entity", "name",
  "entityType", "observations"}` and `{"type": "relation", "from", "to", "relationType"}`; the whole-graph object
  `{"entities": [...], "relations": [...]}` that its read_graph answers is read too). Each observation becomes
  "Entity name: observation" tagged with the entity's name and type (the type is also the category when it is
  one of ours, e.g. `person`); each relation becomes "From relation to To" tagged with both names.
- `mem0`: what mem0's `get_all` returns, `{"results": [{"id", "memory", "metadata", "created_at", "user_id",
  "agent_id", "run_id", "categories"}]}` (a bare list too). The text is `memory`; `user_id`, `agent_id` and
  `run_id` become tags `user:<id>`, `agent:<id>`, `run:<id>`; mem0's `categories` become tags; its id, dates and
  metadata are kept in the memory's metadata. The project is the one the import names (see below), because mem0's
  ids name people and agents rather than code bases.
- `markdown`: CLAUDE.md, AGENTS.md, .cursorrules and other rule files, Basic Memory notes; a file or a folder of
  them (memoryhub/writes/markdown_notes.py).

Every item goes through `gate_write`, so secrets are refused, near-duplicates (also within one import) folded,
noise refused: an import from another tool is not a restore (POST memories/import is). Every item lands in one
project: the `--project` given, else none (global memories) for the command; the API uses the token's only project
when it is limited to one. Nothing is stored on a dry run: the report says what the gate would decide, and only
"merged" cannot be told apart from "duplicate" without writing, so a dry run counts both as duplicate.

The mcp-memory format is also written (`export_mcp_memory`), so people leave as easily as they came.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError

from memoryhub.memories.fields import parse_import_time
from memoryhub.memories.storable import MAX_JSON_DEPTH  # a file nests no deeper than a memory's metadata may
from memoryhub.memories.traces import shown_safely
from memoryhub.models import Category, Memory
from memoryhub.writes.gate_preview import ItemWrite, item_through_gate
from memoryhub.writes.markdown_notes import is_markdown_file, markdown_files, parse_note

FORMATS = ("mcp-memory", "mem0", "markdown")
OUTCOMES = ("created", "merged", "duplicate", "rejected")
MAX_ITEMS = 20_000  # one import; a bigger file is refused whole rather than half stored
MAX_TAG = 64


class ImportFormatError(ValueError):
    """The file is not in the format named; nothing was stored."""


@dataclass
class ImportItem:
    content: str
    origin: str  # where it came from, for the report: "memory.json line 3", "CLAUDE.md"
    category: str = ""
    tags: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    valid_from: datetime | None = None  # when the source says the fact was written or last changed


def _source_date(*values: Any) -> datetime | None:
    """The first date the source gives that reads as one; a bad date is dropped, not a reason to refuse."""
    for value in values:
        try:
            parsed = parse_import_time(value, "valid_from")
        except ValidationError:
            continue
        if parsed is not None:
            return parsed
    return None


@dataclass(frozen=True)
class ItemOutcome(ItemWrite):
    """What the gate decided for one imported item."""

    item: ImportItem = field(kw_only=True)

    @property
    def shown_content(self) -> str:
        """The item's text for a report: a secret in it is never repeated back."""
        return shown_safely(self.item.content)

    def as_dict(self) -> dict[str, Any]:
        return {"origin": self.item.origin, "content": self.shown_content} | super().as_dict()


@dataclass
class ImportReport:
    format: str
    dry_run: bool
    outcomes: list[ItemOutcome] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # files not read, each with why (a symbolic link)

    @property
    def counts(self) -> dict[str, int]:
        return {o: sum(1 for x in self.outcomes if x.outcome == o) for o in OUTCOMES}

    def summary(self) -> str:
        """The one line an import ends with."""
        return ", ".join(f"{n} {outcome}" for outcome, n in self.counts.items())


# --- reading ------------------------------------------------------------------------------------------------------


def _tag(text: Any) -> str:
    return " ".join(str(text).split())[:MAX_TAG]


def _tags(*values: Any) -> list[str]:
    return list(dict.fromkeys(t for t in (_tag(v) for v in values if v not in (None, "")) if t))


def _category(word: Any) -> str:
    return word.lower() if isinstance(word, str) and word.lower() in Category.values else ""


def _loads(text: str, where: str) -> Any:
    """JSON, or ImportFormatError: not JSON, or nested deeper than MAX_JSON_DEPTH (Python's parser would
    otherwise stop at its recursion limit with an error no one could act on)."""
    try:
        value = json.loads(text)
    except RecursionError as exc:
        raise ImportFormatError(f"{where} is nested too deeply (at most {MAX_JSON_DEPTH} levels)") from exc
    except ValueError as exc:
        raise ImportFormatError(f"{where} is not JSON") from exc
    if _depth(value) > MAX_JSON_DEPTH:
        raise ImportFormatError(f"{where} is nested too deeply (at most {MAX_JSON_DEPTH} levels)")
    return value


def _depth(value: Any) -> int:
    """How deeply a parsed JSON value nests, counted without recursion (a value may be hundreds deep)."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            if depth <= MAX_JSON_DEPTH:  # past the limit, how much deeper does not matter
                todo += [(child, depth + 1) for child in (item.values() if isinstance(item, dict) else item)]
    return deepest


def _json_lines(text: str, name: str) -> list[tuple[int, Any]]:
    stripped = text.strip()
    if stripped.startswith("{") and "\n" in stripped:
        try:  # one JSON document over several lines (a pretty-printed graph)
            return [(1, _loads(stripped, name))]
        except ImportFormatError as exc:
            if "nested" in str(exc):
                raise
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        rows.append((number, _loads(line, f"{name} line {number}")))
    return rows


def parse_mcp_memory(text: str, *, name: str = "memory.json") -> list[ImportItem]:
    items: list[ImportItem] = []
    records: list[tuple[str, dict]] = []
    for number, row in _json_lines(text, name):
        if isinstance(row, dict) and ("entities" in row or "relations" in row) and "type" not in row:
            records += [(f"{name} entity {i + 1}", {"type": "entity", **e}) for i, e in
                        enumerate(row.get("entities") or []) if isinstance(e, dict)]  # fmt: skip
            records += [(f"{name} relation {i + 1}", {"type": "relation", **r}) for i, r in
                        enumerate(row.get("relations") or []) if isinstance(r, dict)]  # fmt: skip
        elif isinstance(row, dict):
            records.append((f"{name} line {number}", row))
        else:
            raise ImportFormatError(f"{name} line {number} is not a JSON object")
    for origin, record in records:
        kind = record.get("type")
        if kind == "entity" or (kind is None and "observations" in record):
            entity, entity_type = record.get("name"), record.get("entityType") or ""
            if not isinstance(entity, str) or not entity.strip():
                raise ImportFormatError(f"{origin}: an entity without a name")
            metadata = {"imported_from": "mcp-memory", "entity": entity, "entity_type": entity_type}
            for index, observation in enumerate(record.get("observations") or []):
                if isinstance(observation, str) and observation.strip():
                    items.append(ImportItem(
                        content=f"{entity}: {observation.strip()}", origin=f"{origin} observation {index + 1}",
                        category=_category(entity_type), tags=_tags(entity, entity_type), metadata=dict(metadata),
                    ))  # fmt: skip
        elif kind == "relation" or (kind is None and "relationType" in record):
            source, target, relation = record.get("from"), record.get("to"), record.get("relationType")
            if not all(isinstance(v, str) and v.strip() for v in (source, target, relation)):
                raise ImportFormatError(f"{origin}: a relation needs from, to and relationType")
            items.append(ImportItem(
                content=f"{source} {relation.replace('_', ' ')} {target}", origin=origin, tags=_tags(source, target),
                metadata={"imported_from": "mcp-memory", "relation": {"from": source, "to": target,
                                                                       "relationType": relation}},
            ))  # fmt: skip
        else:
            raise ImportFormatError(f"{origin}: neither an entity nor a relation")
    return items


def parse_mem0(text: str, *, name: str = "mem0.json") -> list[ImportItem]:
    data = _loads(text, name)
    results = data.get("results", data.get("memories")) if isinstance(data, dict) else data
    if not isinstance(results, list):
        raise ImportFormatError(f"{name} has no `results` list (the shape mem0's get_all returns)")
    items = []
    for index, entry in enumerate(results):
        origin = f"{name} result {index + 1}"
        if not isinstance(entry, dict) or not isinstance(entry.get("memory"), str):
            raise ImportFormatError(f"{origin} has no `memory` text")
        extra = entry.get("metadata") if isinstance(entry.get("metadata"), dict) else {}
        metadata: dict[str, Any] = {"imported_from": "mem0"}
        for key in ("id", "created_at", "updated_at", "user_id", "agent_id", "run_id"):
            if entry.get(key) not in (None, ""):
                metadata[f"mem0_{key}" if key == "id" else key] = entry[key]
        if extra:
            metadata["mem0_metadata"] = extra
        categories = entry.get("categories") if isinstance(entry.get("categories"), list) else []
        tags = _tags(*(f"{prefix}:{entry[key]}" for key, prefix in (("user_id", "user"), ("agent_id", "agent"),
                      ("run_id", "run")) if entry.get(key) not in (None, "")), *categories)  # fmt: skip
        category = next((_category(c) for c in categories if _category(c)), "")
        when = _source_date(entry.get("updated_at"), entry.get("created_at"))
        items.append(ImportItem(entry["memory"].strip(), origin, category, tags, metadata, valid_from=when))
    return items


def parse_markdown(text: str, *, name: str = "notes.md") -> list[ImportItem]:
    return [ImportItem(n.content, name, n.category, n.tags, n.metadata) for n in parse_note(text, name=name)]


PARSERS = {"mcp-memory": parse_mcp_memory, "mem0": parse_mem0, "markdown": parse_markdown}


def parse_text(*, format: str, text: str, name: str) -> list[ImportItem]:
    if format not in PARSERS:
        raise ImportFormatError(f"unknown format {format!r}; one of: {', '.join(FORMATS)}")
    return PARSERS[format](text, name=name)


@dataclass
class PathItems:
    items: list[ImportItem]
    skipped: list[str] = field(default_factory=list)  # files left alone, each with why


def _read_text(path: str) -> str:
    """A file's text, never through a symbolic link (O_NOFOLLOW: a link swapped in after the check fails too)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        raise ImportFormatError(f"{path} could not be read ({exc.strerror})") from exc
    with open(fd, encoding="utf-8", errors="replace") as handle:
        return handle.read()


def read_path(*, format: str, path: str) -> PathItems:
    """The items of a file, or of every Markdown file in a folder (markdown only). Symbolic links are not followed:
    a path that is one is refused, and inside a folder each one is skipped and named."""
    if os.path.islink(path):
        raise ImportFormatError(f"{path} is a symbolic link; import_from does not follow links, give the real path")
    if os.path.isdir(path):
        if format != "markdown":
            raise ImportFormatError(f"{path} is a folder; only the markdown format reads folders")
        folder = markdown_files(path)
        if not folder.files:
            raise ImportFormatError(f"{path} holds no Markdown or rule files")
        items = []
        for file in folder.files:
            items += parse_text(format=format, text=_read_text(file), name=os.path.relpath(file, path))
        return PathItems(items, folder.skipped)
    if not os.path.isfile(path):
        raise ImportFormatError(f"{path} does not exist")
    if format == "markdown" and not is_markdown_file(path):
        raise ImportFormatError(f"{path} is not a Markdown or rule file (.md, .mdc, .cursorrules, ...)")
    return PathItems(parse_text(format=format, text=_read_text(path), name=os.path.basename(path)))


# --- storing ------------------------------------------------------------------------------------------------------


def import_from(
    *,
    format: str,
    items: list[ImportItem],
    project: str | None,
    source: str,
    dry_run: bool = False,
    skipped: list[str] | None = None,
    trusted: bool = True,
) -> ImportReport:
    """Send each item through the gate (or, on a dry run, say what the gate would decide). `skipped`: the files
    reading left alone (read_path), carried into the report."""
    if len(items) > MAX_ITEMS:
        raise ImportFormatError(f"{len(items)} items is more than one import takes ({MAX_ITEMS}); split the file")
    report = ImportReport(format=format, dry_run=dry_run, skipped=list(skipped or []))
    seen: set[str] = set()
    for item in items:
        done = item_through_gate(dry_run=dry_run, seen=seen, content=item.content, project=project,
                                 category=item.category, tags=item.tags, metadata=item.metadata, source=source,
                                 valid_from=item.valid_from, trusted=trusted)  # fmt: skip
        report.outcomes.append(ItemOutcome(**vars(done), item=item))
    return report


# --- leaving ------------------------------------------------------------------------------------------------------


def export_mcp_memory(memories: Iterable[Memory]) -> Iterator[str]:
    """The reference MCP memory server's file: entities first, then relations, one JSON object a line.

    A memory imported from that format goes back to its entity (or relation) as it was. Any other memory becomes
    an observation of an entity named after its project (type `project`), or `global` (type `memoryhub`) for the
    global memories, so the file loads into the reference server as it is. A memory folded into another
    (`merged_into`) is left out: the one it was folded into carries it."""
    entities: dict[str, dict[str, Any]] = {}
    relations: list[dict[str, str]] = []
    for memory in memories:
        if memory.merged_into_id is not None:
            continue
        metadata = memory.metadata or {}
        relation = metadata.get("relation")
        if isinstance(relation, dict) and {"from", "to", "relationType"} <= set(relation):
            relations.append({"type": "relation", "from": str(relation["from"]), "to": str(relation["to"]),
                              "relationType": str(relation["relationType"])})  # fmt: skip
            continue
        name = metadata.get("entity") if isinstance(metadata.get("entity"), str) else None
        text = memory.content
        if name:
            entity_type = str(metadata.get("entity_type") or "")
            prefix = f"{name}: "
            text = text[len(prefix) :] if text.startswith(prefix) else text
        else:
            name, entity_type = (memory.project, "project") if memory.project else ("global", "memoryhub")
        entity = entities.setdefault(name, {"type": "entity", "name": name, "entityType": entity_type,
                                            "observations": []})  # fmt: skip
        entity["observations"].append(text)
    for entity in entities.values():
        yield json.dumps(entity, ensure_ascii=False) + "\n"
    for relation in relations:
        yield json.dumps(relation, ensure_ascii=False) + "\n"
