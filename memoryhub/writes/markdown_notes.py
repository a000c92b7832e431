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


@dataclass(frozen=True)
class _Note:
    """What every item of one file shares: the file's path, the note's title and the tags the file gives."""

    name: str
    title: str
    tags: list[str]  # the file kind's tag, then the front matter's tags


def _note_of(meta: dict[str, Any], *, name: str) -> _Note:
    kind = file_kind(name)
    title = meta.get("title") if isinstance(meta.get("title"), str) else ""
    note_tags = [_clean_tag(t) for t in meta.get("tags", []) if isinstance(t, str) and t.strip()]
    base_tags = [kind] if kind != "markdown" else []
    return _Note(name, title, [*base_tags, *(t for t in note_tags if t)])


def _ends_block(stripped: str) -> bool:
    """A blank line, a table row or a horizontal rule: whatever was being read is complete."""
    return not stripped or stripped.startswith("|") or bool(re.fullmatch(r"[-*_=]{3,}", stripped))


@dataclass
class _NoteReader:
    """Reads one file line by line: the headings in force, and the bullet or paragraph being gathered."""

    note: _Note
    items: list[NoteItem] = field(default_factory=list)
    headings: list[tuple[int, str]] = field(default_factory=list)
    block: list[str] = field(default_factory=list)  # the bullet or paragraph being read
    block_is_bullet: bool = False
    in_fence: bool = False

    def read(self, line: str) -> None:
        if _FENCE.match(line):
            self.flush()
            self.in_fence = not self.in_fence
            return
        if self.in_fence:
            return
        heading = _HEADING.match(line)
        if heading:
            self.flush()
            level = len(heading.group(1))
            self.headings = [h for h in self.headings if h[0] < level] + [(level, _inline(heading.group(2)))]
            return
        stripped = line.strip()
        if _ends_block(stripped):
            self.flush()
            return
        bullet = _BULLET.match(line)
        if bullet:
            self.flush()
            self.block, self.block_is_bullet = [bullet.group(2)], True
        elif self.block and self.block_is_bullet and line[:1] in (" ", "\t"):
            self.block.append(stripped)  # the bullet's continuation line
        else:
            if self.block_is_bullet:
                self.flush()
            self.block.append(stripped)

    def context(self) -> str:
        """The headings above the block, as the subject its items are about."""
        # A single H1 is usually the file's title: it says less than the section names under it.
        names = [h for _, h in self.headings]
        if len(self.headings) > 1 and self.headings[0][0] == 1:
            names = names[1:]
        title = self.note.title
        if title:  # a Basic Memory note: its title names the subject better than its section names
            names = [n for n in names if n.lower() not in ("observations", "relations", title.lower())] or [title]
        return " / ".join(names)

    def flush(self) -> None:
        raw = " ".join(part.strip() for part in self.block).strip()
        was_bullet = self.block_is_bullet
        self.block, self.block_is_bullet = [], False
        if not raw:
            return
        metadata: dict[str, Any] = {"imported_from": "markdown", "file": self.note.name}
        where = self.context()
        if where:
            metadata["heading"] = where
        if was_bullet:
            raw = _TASK_BOX.sub("", raw)
            item = _basic_memory_item(raw, note=self.note, where=where, metadata=metadata)
            if item is not None:
                self.items.append(item)
                return
        self.items.extend(_paragraph_items(raw, tags=self.note.tags, where=where, metadata=metadata))


def _basic_memory_item(raw: str, *, note: _Note, where: str, metadata: dict[str, Any]) -> NoteItem | None:
    """A bullet that is a Basic Memory observation or relation as its item; None for a plain bullet."""
    observation = _OBSERVATION.match(raw)
    if observation:
        return _observation_item(observation, note=note, where=where, metadata=metadata)
    relation = _RELATION.match(raw)
    if relation and (note.title or where):  # a relation needs a subject to hang from
        return _relation_item(relation, subject=note.title or where, tags=note.tags, metadata=metadata)
    return None


def _observation_item(observation: re.Match, *, note: _Note, where: str, metadata: dict[str, Any]) -> NoteItem:
    """`- [category] text #tag`: the category becomes a tag (and ours when it names one), `#tags` become tags."""
    category_word, statement = observation.group(1).strip(), observation.group(2)
    found = [_clean_tag(t) for t in _HASHTAG.findall(statement)]
    statement = _inline(_HASHTAG.sub("", statement))
    statement = re.sub(r"\s*\(([^()]*)\)\s*$", r" (\1)", statement).strip()
    subject = note.title or where
    content = f"{subject}: {statement}" if subject else statement
    metadata["basic_memory_category"] = category_word
    tags = [*note.tags, _clean_tag(category_word), *found]
    category = CATEGORY_SYNONYMS.get(category_word.lower(), "")
    return NoteItem(content, category, list(dict.fromkeys(t for t in tags if t)), metadata)


def _relation_item(relation: re.Match, *, subject: str, tags: list[str], metadata: dict[str, Any]) -> NoteItem:
    """`- relation [[Target]] (context)`: "Subject relation Target (context)"."""
    relation_type = relation.group(1).replace("_", " ").strip()
    target = relation.group(2).strip()
    content = f"{subject} {relation_type} {target}"
    if relation.group(3):
        content += f" ({relation.group(3).strip()})"
    metadata["relation"] = {"type": relation.group(1).strip(), "target": target}
    return NoteItem(content, "", list(dict.fromkeys([*tags, "relation"])), metadata)


def _paragraph_items(raw: str, *, tags: list[str], where: str, metadata: dict[str, Any]) -> list[NoteItem]:
    """A bullet or paragraph as plain text, cut at sentence ends when long, each piece led by its headings."""
    items = []
    for piece in _chunks(_inline(raw)):
        content = f"{where}: {piece}" if where and not piece.lower().startswith(where.lower()) else piece
        items.append(NoteItem(content, "", list(dict.fromkeys(tags)), dict(metadata)))
    return items


def parse_note(text: str, *, name: str) -> list[NoteItem]:
    """The items of one Markdown file; `name` is its path as shown to the user."""
    meta, body = split_front_matter(text.replace("\r\n", "\n"))
    reader = _NoteReader(_note_of(meta, name=name))
    for line in re.sub(r"<!--.*?-->", "", body, flags=re.DOTALL).split("\n"):
        reader.read(line)
    reader.flush()
    return reader.items
