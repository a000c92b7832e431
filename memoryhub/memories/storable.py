"""Storable JSON: the values a memory's fields may hold, and the one check every route applies to them.

A value is storable when it is made of JSON's types (text, numbers, true/false, null, arrays, objects with text
keys), nests at most MAX_JSON_DEPTH levels, holds only finite numbers and text that is valid Unicode, and no NUL
byte. Why each: a lone surrogate (\\ud800) parses as JSON but cannot be written out as UTF-8, so one stored would
break every answer that includes it; NaN and Infinity are not JSON at all on the way out; PostgreSQL refuses a NUL
in text; a value nested without limit is walked recursively by every reader. Metadata has a size limit on top.

The API's body parser and the agents' tool arguments check the same rule before any field is known, with NUL
allowed (a search query may carry one; a memory's field is refused later by `store.clean_fields`, which checks
every write with NUL refused).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

MAX_JSON_DEPTH = 32
# Metadata is a few references (a path, a URL, a commit, an id): 16 KiB of JSON holds hundreds of them, and keeps a
# 4 MiB blob out of every row, history event, export and backup. Content has its own cap (MEMORYHUB_MAX_CONTENT_CHARS).
MAX_METADATA_BYTES = 16 * 1024

_NOT_UNICODE = "not valid Unicode (a lone surrogate such as \\ud800)"
# Why text cannot be stored, said of a value and of an object's key.
_TEXT_WHY = {"nul": "holds a NUL byte", "unicode": f"holds text that is {_NOT_UNICODE}"}
_KEY_WHY = {"nul": "has a key that holds a NUL byte", "unicode": f"has a key that is {_NOT_UNICODE}"}


@dataclass(frozen=True)
class Unstorable:
    """Where in a value the first thing that cannot be stored sits, and why, as words that follow its name:
    `path` is "" for the value itself, else dotted keys and list indexes ("note", "tags.1", "a.b.0")."""

    path: str
    why: str


def unstorable(value: Any, *, nul_allowed: bool = False) -> Unstorable | None:
    """The first part of `value` that cannot be stored, or None. `nul_allowed`: for a whole request read before
    its fields are known (see the module's docstring)."""
    return _walk(value, "", 0, nul_allowed)


def _walk(value: Any, path: str, depth: int, nul_allowed: bool) -> Unstorable | None:
    if depth > MAX_JSON_DEPTH:
        return Unstorable(path, f"is nested deeper than {MAX_JSON_DEPTH} levels")
    if isinstance(value, str):
        flaw = _text_flaw(value, nul_allowed)
        return Unstorable(path, _TEXT_WHY[flaw]) if flaw else None
    if isinstance(value, float) and not math.isfinite(value):
        return Unstorable(path, "must be a finite number")
    if value is None or isinstance(value, bool | int | float):
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return Unstorable(path, "has a key that is not text")
            if flaw := _text_flaw(key, nul_allowed):
                return Unstorable(path, _KEY_WHY[flaw])
            if found := _walk(item, f"{path}.{key}" if path else key, depth + 1, nul_allowed):
                return found
        return None
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            if found := _walk(item, f"{path}.{index}" if path else str(index), depth + 1, nul_allowed):
                return found
        return None
    return Unstorable(path, f"is not a JSON value (a {type(value).__name__})")


def _text_flaw(text: str, nul_allowed: bool) -> str | None:
    if not nul_allowed and "\x00" in text:
        return "nul"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "unicode"
    return None


def metadata_size(metadata: dict) -> int:
    """Bytes of metadata as JSON (UTF-8), as it is stored."""
    return len(json.dumps(metadata, ensure_ascii=False, separators=(",", ":"), default=str).encode("utf-8"))
