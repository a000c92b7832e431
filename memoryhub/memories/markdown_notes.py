"""Markdown memory files of other tools read as items: CLAUDE.md, AGENTS.md, .cursorrules, Cursor's .mdc rules,
Windsurf and Cline rules, and Basic Memory notes.

One item per bullet or short paragraph, with the headings above it as context ("Testing: run make test before
pushing"). Code blocks, tables, HTML comments and front matter are not facts and are skipped; a paragraph longer
than PARAGRAPH_CHARS is cut at sentence ends. A Basic Memory note (front matter, `- [category] text #tag`
observations, `- relation [[Target]]` relations) keeps its categories and tags: the category becomes a tag and,
when it names one of MemoryHub's categories (or a close synonym), the memory's category; `#tags` and the front
matter's `tags` become tags; a relation becomes "Title relation Target". Task-list boxes (`- [ ]`, `- [x]`) are
bullets, not categories.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

PARAGRAPH_CHARS = 500
# Names of rule files that are Markdown without the extension.
RULE_FILES = {".cursorrules": "cursor-rules", ".windsurfrules": "windsurf-rules", ".clinerules": "cline-rules"}
MARKDOWN_SUFFIXES = (".md", ".mdc", ".markdown")
SKIPPED_FOLDERS = {".git", "node_modules", ".venv", "venv", "__pycache__", ".obsidian", ".trash"}

# Basic Memory's own categories are free words; these are the ones that mean one of ours.
CATEGORY_SYNONYMS = {
    "fact": "fact", "facts": "fact", "decision": "decision", "decisions": "decision", "design": "decision",
    "skill": "skill", "technique": "skill", "howto": "skill", "how-to": "skill", "procedure": "skill",
    "method": "skill", "reference": "reference", "link": "reference", "resource": "reference",
    "preference": "preference", "preferences": "preference", "person": "person", "people": "person",
    "environment": "environment", "setup": "environment", "config": "environment", "project": "project",
    "gotcha": "gotcha", "issue": "gotcha", "problem": "gotcha", "bug": "gotcha", "warning": "gotcha",
    "pitfall": "gotcha",
}  # fmt: skip

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^(\s*)(?:[-*+]|\d+[.)])\s+(.*)$")
_TASK_BOX = re.compile(r"^\[[ xX]\]\s+")
_OBSERVATION = re.compile(r"^\[([^\[\]]{1,40})\]\s+(.+)$")
_RELATION = re.compile(r"^([A-Za-z][\w -]{0,60}?)\s+\[\[([^\]]+)\]\]\s*(?:\((.*)\))?\s*$")
_HASHTAG = re.compile(r"(?:(?<=\s)|^)#([A-Za-z][\w/-]{0,63})\b")
_FENCE = re.compile(r"^\s*(```|~~~)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(])")


@dataclass
class NoteItem:
    content: str
    category: str = ""
    tags: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)


def file_kind(name: str) -> str:
    """A tag naming where the text came from: claude-md, agents-md, cursor-rules, ... or markdown."""
    base = os.path.basename(name)
    if base in RULE_FILES:
        return RULE_FILES[base]
    lowered = base.lower()
    if lowered.endswith(".mdc") or "/.cursor/rules" in name.replace(os.sep, "/"):
        return "cursor-rules"
    stem = lowered.rsplit(".", 1)[0]
    return {"claude": "claude-md", "agents": "agents-md", "gemini": "gemini-md"}.get(stem, "markdown")


def is_markdown_file(name: str) -> bool:
    base = os.path.basename(name)
    return base in RULE_FILES or base.lower().endswith(MARKDOWN_SUFFIXES)


@dataclass
class FolderFiles:
    files: list[str]  # the Markdown or rule files to read, sorted
    skipped: list[str]  # why each link was left alone: "notes/CLAUDE.md: a symbolic link, not followed"


def markdown_files(folder: str) -> FolderFiles:
    """Every Markdown or rule file under `folder`, sorted, skipping VCS, dependency and editor folders. Symbolic
    links, to files or folders, are never followed: a `CLAUDE.md` linked to /etc/passwd would otherwise become
    memories. Each one left alone is named in `skipped`."""
    found, skipped = [], []
    for root, folders, files in os.walk(folder):  # followlinks=False: a linked folder is listed, never entered
        for name in sorted(folders):
            if os.path.islink(os.path.join(root, name)):
                skipped.append(f"{os.path.relpath(os.path.join(root, name), folder)}: a symbolic link, not followed")
        folders[:] = sorted(
            f for f in folders if f not in SKIPPED_FOLDERS and not os.path.islink(os.path.join(root, f))
        )
        for name in sorted(files):
            path = os.path.join(root, name)
            if not is_markdown_file(name):
                continue
            if os.path.islink(path):
                skipped.append(f"{os.path.relpath(path, folder)}: a symbolic link, not followed")
                continue
            found.append(path)
    return FolderFiles(found, skipped)


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """The YAML front matter's simple keys (text, inline and dashed lists) and the body after it."""
    if not text.startswith("---"):
        return {}, text
    end = re.search(r"^---\s*$", text[3:], re.MULTILINE)
    if end is None:
        return {}, text
    block, body = text[3 : 3 + end.start()], text[3 + end.end() :]
    meta: dict[str, Any] = {}
    key = None
    for line in block.splitlines():
        dashed = re.match(r"^\s*-\s+(.*)$", line)
        if dashed and key is not None:
            meta.setdefault(key, [])
            if isinstance(meta[key], list):
                meta[key].append(dashed.group(1).strip().strip("'\""))
            continue
        pair = re.match(r"^([A-Za-z_][\w-]*):\s*(.*)$", line)
        if not pair:
            continue
        key, value = pair.group(1), pair.group(2).strip()
        if value.startswith("[") and value.endswith("]"):
            meta[key] = [v.strip().strip("'\"") for v in value[1:-1].split(",") if v.strip()]
        elif value:
            meta[key] = value.strip("'\"")
        else:
            meta[key] = []
    return meta, body


def _clean_tag(tag: str) -> str:
    return re.sub(r"\s+", "-", tag.strip().lstrip("#"))[:64]


def _inline(text: str) -> str:
    """One line of Markdown as plain text: emphasis markers go, code spans and link texts stay."""
    text = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", text)
    text = re.sub(r"(\*\*|__)(.+?)\1", r"\2", text)
    text = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"\1", text)
    return " ".join(text.split())


def _chunks(paragraph: str) -> list[str]:
    if len(paragraph) <= PARAGRAPH_CHARS:
        return [paragraph]
    chunks, current = [], ""
    for sentence in _SENTENCE_END.split(paragraph):
        if current and len(current) + 1 + len(sentence) > PARAGRAPH_CHARS:
            chunks.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}".strip()
    return [*chunks, current] if current else chunks


def parse_note(text: str, *, name: str) -> list[NoteItem]:
    """The items of one Markdown file; `name` is its path as shown to the user."""
    meta, body = split_front_matter(text.replace("\r\n", "\n"))
    kind = file_kind(name)
    title = meta.get("title") if isinstance(meta.get("title"), str) else ""
    note_tags = [_clean_tag(t) for t in meta.get("tags", []) if isinstance(t, str) and t.strip()]
    note_tags = [t for t in note_tags if t]
    base_tags = [kind] if kind != "markdown" else []
    headings: list[tuple[int, str]] = []
    items: list[NoteItem] = []
    lines = re.sub(r"<!--.*?-->", "", body, flags=re.DOTALL).split("\n")
    in_fence = False
    block: list[str] = []  # the bullet or paragraph being read
    block_is_bullet = False

    def context() -> str:
        # A single H1 is usually the file's title: it says less than the section names under it.
        names = [h for _, h in headings]
        if len(headings) > 1 and headings[0][0] == 1:
            names = names[1:]
        if title:  # a Basic Memory note: its title names the subject better than its section names
            names = [n for n in names if n.lower() not in ("observations", "relations", title.lower())] or [title]
        return " / ".join(names)

    def flush() -> None:
        nonlocal block, block_is_bullet
        raw = " ".join(part.strip() for part in block).strip()
        was_bullet = block_is_bullet
        block, block_is_bullet = [], False
        if not raw:
            return
        metadata: dict[str, Any] = {"imported_from": "markdown", "file": name}
        where = context()
        if where:
            metadata["heading"] = where
        tags = [*base_tags, *note_tags]
        if was_bullet:
            raw = _TASK_BOX.sub("", raw)
            observation = _OBSERVATION.match(raw)
            relation = _RELATION.match(raw)
            if observation:
                category_word, statement = observation.group(1).strip(), observation.group(2)
                found = [_clean_tag(t) for t in _HASHTAG.findall(statement)]
                statement = _inline(_HASHTAG.sub("", statement))
                statement = re.sub(r"\s*\(([^()]*)\)\s*$", r" (\1)", statement).strip()
                subject = title or where
                content = f"{subject}: {statement}" if subject else statement
                metadata["basic_memory_category"] = category_word
                tags = [*tags, _clean_tag(category_word), *found]
                category = CATEGORY_SYNONYMS.get(category_word.lower(), "")
                items.append(NoteItem(content, category, list(dict.fromkeys(t for t in tags if t)), metadata))
                return
            if relation and (title or where):
                relation_type = relation.group(1).replace("_", " ").strip()
                target = relation.group(2).strip()
                content = f"{title or where} {relation_type} {target}"
                if relation.group(3):
                    content += f" ({relation.group(3).strip()})"
                metadata["relation"] = {"type": relation.group(1).strip(), "target": target}
                items.append(NoteItem(content, "", list(dict.fromkeys([*tags, "relation"])), metadata))
                return
        for piece in _chunks(_inline(raw)):
            content = f"{where}: {piece}" if where and not piece.lower().startswith(where.lower()) else piece
            items.append(NoteItem(content, "", list(dict.fromkeys(tags)), dict(metadata)))

    for line in lines:
        if _FENCE.match(line):
            flush()
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        heading = _HEADING.match(line)
        if heading:
            flush()
            level = len(heading.group(1))
            headings = [h for h in headings if h[0] < level] + [(level, _inline(heading.group(2)))]
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith("|") or re.fullmatch(r"[-*_=]{3,}", stripped):
            flush()
            continue
        bullet = _BULLET.match(line)
        if bullet:
            flush()
            block, block_is_bullet = [bullet.group(2)], True
        elif block and block_is_bullet and line[:1] in (" ", "\t"):
            block.append(stripped)  # the bullet's continuation line
        else:
            if block_is_bullet:
                flush()
            block.append(stripped)
    flush()
    return items
