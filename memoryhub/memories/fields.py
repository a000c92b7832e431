"""A write's fields: each field's rule, checked once, and the typed command a checked write becomes.

Every write path (the gate, an edit, an import, a merge, a promotion, the dashboard) checks its fields here; what
comes out (`NewMemory`, or `clean_fields`' dict for an edit) is trusted below (`store.store_new`), never checked
again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import timezone

from memoryhub.memories.secrets import WriteRefused, check_no_secrets
from memoryhub.memories.storable import MAX_METADATA_BYTES, metadata_size, unstorable
from memoryhub.memories.validity import read_moment, written_times
from memoryhub.models import Category, Status, Tier

EDITABLE_FIELDS = ("content", "category", "tier", "project", "tags", "metadata", "importance", "confirmed", "status")
MAX_TAGS = 50
MAX_TAG_LENGTH = 64


def _unstorable(value: Any) -> str | None:
    """Why a field's value cannot be stored as sent (the rule is `storable.unstorable`), or None."""
    found = unstorable(value)
    return None if found is None else f"it {found.why}" + (f" (at {found.path})" if found.path else "")


class _Invalid(Exception):
    """One field's value is wrong; its message says how. Collected per field, then raised as one ValidationError."""


def _clean_content(content: Any) -> str:
    if not isinstance(content, str) or not content.strip():
        raise _Invalid("content is required and must be non-empty text")
    if len(content) > settings.MEMORYHUB_MAX_CONTENT_CHARS:
        raise _Invalid(f"content is longer than {settings.MEMORYHUB_MAX_CONTENT_CHARS} characters")
    return content.strip()


def _one_of(choices: list[str], *, blank: bool) -> Callable[[Any], str]:
    """A field that holds one of `choices`; `blank` lets "" through as "not chosen" (category, tier; not status)."""

    def clean(value: Any) -> str:
        if value == "" and blank:
            return ""
        if value not in choices:
            raise _Invalid(f"must be one of: {', '.join(choices)}")
        return value

    return clean


def _clean_project(project: Any) -> str | None:
    """None or "" is a global memory; a blank name is refused outright (never read as global by accident)."""
    if project in (None, ""):
        return None
    if not isinstance(project, str) or len(project) > 200:
        raise _Invalid("project must be text of at most 200 characters, or null for a global memory")
    if not project.strip():
        raise WriteRefused({"project": "project is blank: name a project, or send null for a global memory"}, kind="")
    return project.strip()


def _clean_tags(tags: Any) -> list[str]:
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise _Invalid("tags must be a list of strings")
    if len(tags) > MAX_TAGS or any(len(t) > MAX_TAG_LENGTH or not t.strip() for t in tags):
        raise _Invalid(f"at most {MAX_TAGS} tags, each 1 to {MAX_TAG_LENGTH} characters")
    return list(dict.fromkeys(t.strip() for t in tags))


def _clean_metadata(metadata: Any) -> dict:
    if not isinstance(metadata, dict):
        raise _Invalid("metadata must be a JSON object")
    if (size := metadata_size(metadata)) > MAX_METADATA_BYTES:
        raise WriteRefused(
            {"metadata": f"metadata is {size} bytes as JSON; at most {MAX_METADATA_BYTES} are kept (keep "
             "references there, a path or a URL, not documents)"},
            kind="",
        )  # fmt: skip
    return metadata


def _clean_importance(importance: Any) -> float:
    if isinstance(importance, bool) or not isinstance(importance, int | float) or not 0.0 <= importance <= 1.0:
        raise _Invalid("importance must be a number from 0 to 1")
    return float(importance)


def _clean_confirmed(confirmed: Any) -> bool:
    if not isinstance(confirmed, bool):
        raise _Invalid("confirmed must be true or false")
    return confirmed


# Each field's rule, in the order they are checked: the first refusal (WriteRefused) ends the check, other errors
# are collected so the answer names every bad field at once.
_FIELD_RULES: tuple[tuple[str, Callable[[Any], Any]], ...] = (
    ("content", _clean_content),
    ("category", _one_of(Category.values, blank=True)),
    ("tier", _one_of(Tier.values, blank=True)),
    ("status", _one_of(Status.values, blank=False)),
    ("project", _clean_project),
    ("tags", _clean_tags),
    ("metadata", _clean_metadata),
    ("importance", _clean_importance),
    ("confirmed", _clean_confirmed),
)


def _is_set(name: str, values: dict[str, Any], *, partial: bool) -> bool:
    """Does this write set the field? Content always on a whole write (so a missing one is an error), the project
    even as null (that makes it global), any other field only with a value (null leaves it as it is)."""
    if name == "content":
        return name in values or not partial
    if name == "project":
        return name in values
    return values.get(name) is not None


def clean_fields(values: dict[str, Any], *, partial: bool = False, check_secrets: bool = True) -> dict[str, Any]:
    """Validate and normalise memory fields; raises ValidationError naming each bad field.

    Every write path (gate, edit, import, merge, promotion, dashboard) comes through here, so this is where the
    rules no route may skip live: no NUL byte or lone surrogate anywhere, no blank project, and no secret in any
    field (WriteRefused, answered 422). `check_secrets=False` is for `new_memory`, whose command the gate (which
    logs a refusal redacted) or `store.create_memory` then checks for secrets."""
    errors: dict[str, str] = {}
    out: dict[str, Any] = {}
    for name in ("content", "project", "tags", "metadata"):
        why = _unstorable(values.get(name))
        if why:
            errors[name] = f"refused: {why}"
    if errors:
        raise ValidationError(errors)
    for name, clean in _FIELD_RULES:
        if _is_set(name, values, partial=partial):
            try:
                out[name] = clean(values.get(name))
            except _Invalid as exc:
                errors[name] = str(exc)
    if errors:
        raise ValidationError(errors)
    if check_secrets:
        check_no_secrets({k: out[k] for k in ("content", "project", "tags", "metadata") if out.get(k)})
    return out


# Imported dates before this are typos or epoch zeros; after "now" they would never decay. Both are clamped.
EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)


def parse_import_time(value: Any, field: str) -> datetime | None:
    """An imported timestamp, read leniently: ISO 8601 with or without a zone (none: UTC), or a date alone;
    clamped to [2000-01-01, now] so a date in 2999 cannot make a memory immune to decay."""
    if value in (None, ""):
        return None
    parsed = read_moment(value)
    if parsed is not None:
        try:
            parsed = parsed.astimezone(UTC)
        except OverflowError:  # the edge of the calendar (year 1 or 9999 in another zone): clamped below
            parsed = EARLIEST if parsed.year < 2000 else timezone.now()
    if parsed is None:
        raise ValidationError({field: "must be an ISO 8601 date-time (no zone is read as UTC)"})
    return min(max(parsed, EARLIEST), timezone.now())


@dataclass(frozen=True)
class NewMemory:
    """One checked write: built by `new_memory` (every field's rule applied once), trusted by the record layer."""

    content: str
    project: str | None
    category: str = ""
    tier: str = ""
    tags: list[str] = field(default_factory=list)
    metadata: dict = field(default_factory=dict)
    importance: float = 0.5
    confirmed: bool = False
    source: str = ""
    valid_from: datetime | None = None  # None: true from the moment it is stored
    valid_to: datetime | None = None  # when the fact stops being true, if the writer knows (memories/validity.py)
    expires_at: datetime | None = None  # past it the memory leaves search, recall and the tools
    trusted: bool = True  # False: an untrusted token's write, held for a person (memories/holds.py)

    def searched_for_secrets(self) -> dict[str, Any]:
        """The fields a secret may hide in, those that hold something (the gate and `store.create_memory` look)."""
        return {k: getattr(self, k) for k in ("content", "project", "tags", "metadata") if getattr(self, k)}

    def row_fields(self) -> dict[str, Any]:
        """The columns this write fills (the row's own; `source` and `valid_from` are the store's to place)."""
        return {k: v for k, v in asdict(self).items() if k not in ("source", "valid_from", "trusted")}


def new_memory(
    *,
    content: Any,
    project: Any = None,
    category: Any = None,
    tier: Any = None,
    tags: Any = None,
    metadata: Any = None,
    importance: Any = None,
    confirmed: Any = False,
    source: str = "",
    valid_from: Any = None,
    valid_to: Any = None,
    expires_at: Any = None,
    trusted: bool = True,
) -> NewMemory:
    """A write's fields checked once (ValidationError naming each bad one; WriteRefused for a refusal) and made a
    `NewMemory`. Omitted category and tier stay "" (the gate may guess them); `valid_from` is ISO 8601 or a datetime;
    `valid_to` and `expires_at` are checked by `validity.written_times`.
    Secrets are not looked for here: that is a judgement, made by the gate (which logs the refusal redacted) or by
    `store.create_memory` for a write that skips the gate."""
    when = parse_import_time(valid_from, "valid_from")
    times = written_times(valid_from=when, valid_to=valid_to, expires_at=expires_at)
    raw = {"content": content, "project": project, "category": category or "", "tier": tier or ""}
    raw |= {"tags": tags or [], "metadata": metadata or {}, "importance": 0.5 if importance is None else importance}
    fields = clean_fields(raw | {"confirmed": confirmed}, check_secrets=False)
    return NewMemory(**fields, source=source, valid_from=when, **times, trusted=trusted)
