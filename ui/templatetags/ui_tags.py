"""Small helpers for the dashboard templates: counters, importance bars, history formatting."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote

from django import template
from django.conf import settings
from django.utils.html import escape
from django.utils.safestring import mark_safe

from memoryhub.memories.demo import DEMO_PROJECTS, demo_present
from memoryhub.people.roles import Access, Action, access_for
from ui import diffing, selectors

register = template.Library()


def request_access(request) -> Access:
    """The person's access, as the dashboard view found it (or worked out again for a page outside the views)."""
    access = getattr(request, "access", None)
    return access if access is not None else access_for(request.user)


@register.simple_tag(takes_context=True)
def nav_counts(context) -> dict[str, int]:
    return selectors.nav_counts(request_access(context["request"]))


@register.simple_tag
def demo_projects() -> tuple[str, ...]:
    """The demo projects while demo memories are in the store (the banner offers to remove them), else ()."""
    return DEMO_PROJECTS if demo_present() else ()


@register.simple_tag(takes_context=True)
def may(context, action: str, project: str | None = None) -> bool:
    """`{% may "curate" memory.project as can_curate %}`: whether to offer an action (the view checks it again)."""
    return request_access(context["request"]).can(Action(action), project or None)


@register.simple_tag(takes_context=True)
def may_somewhere(context, action: str) -> bool:
    """Whether the person may `action` in at least one project: which team pages the navigation offers."""
    access = request_access(context["request"])
    return access.is_admin or bool(access.projects_for(Action(action)))


@register.filter
def percent(value: float | None) -> int:
    """0..1 as a whole percentage for a bar's width."""
    try:
        return max(0, min(100, round(float(value) * 100)))
    except (TypeError, ValueError):
        return 0


@register.filter
def importance_level(value: float | None) -> str:
    """A word for the bar's colour: under the archive threshold, near it, or comfortably above."""
    value = float(value or 0.0)
    threshold = settings.MEMORYHUB_ARCHIVE_THRESHOLD
    if value < threshold:
        return "low"
    if value < threshold + 0.2:
        return "mid"
    return "high"


def _show(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "(none)"
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    if value == "":
        return "(empty)"
    return str(value)


@register.filter
def event_changes(event) -> list[tuple[str, str, str]]:
    """(field, before, after) for every field the event names, the way a person reads a change."""
    before = event.before if isinstance(event.before, dict) else {}
    after = event.after if isinstance(event.after, dict) else {}
    if before and after:
        fields = list(dict.fromkeys([*before, *after]))
        return [(f, _show(before.get(f)), _show(after.get(f))) for f in fields if before.get(f) != after.get(f)]
    return []


@register.filter
def event_snapshot(event) -> list[tuple[str, str]]:
    """A one-sided event (created, deleted): the values it recorded."""
    before = event.before if isinstance(event.before, dict) else {}
    after = event.after if isinstance(event.after, dict) else {}
    if before and after:
        return []
    return [(k, _show(v)) for k, v in (after or before).items()]


@register.filter
def pretty_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True)


@register.filter
def days_text(days: float | None) -> str:
    if days is None:
        return "never"
    if days <= 0:
        return "now"
    if days < 1:
        return "within a day"
    return f"in {days:.0f} day{'s' if round(days) != 1 else ''}"


@register.filter
def ago(moment) -> str:
    """A short relative time ("5 min ago", "3 days ago") for tight table cells."""
    from django.utils import timezone

    if not moment:
        return "never"
    seconds = max(0, int((timezone.now() - moment).total_seconds()))
    for unit, size in (("day", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            n = seconds // size
            return f"{n} {unit}{'s' if unit == 'day' and n != 1 else ''} ago"
    return "just now"


@register.filter
def fixed2(value) -> str:
    """Two decimals, cheaply: floatformat goes through Decimal and locale code, 50 rows x 3 times a page."""
    try:
        return f"{float(value):.2f}"
    except (TypeError, ValueError):
        return ""


@register.filter
def iso(moment) -> str:
    return moment.isoformat(timespec="seconds") if moment else ""


_QUERY_WORD = re.compile(r"[\w][\w.+#/-]*[\w+#]|\w", re.UNICODE)


@register.filter
def highlight(text: str, query: str) -> str:
    """The text with the query's words marked (<mark>), escaped first; words of two letters or fewer are left
    unmarked, they would light up half a sentence. A word matches at the start of a word of the text, so
    "deploy" marks "deploys" and "Deploy"."""
    text = str(text)
    words = sorted({w.lower() for w in _QUERY_WORD.findall(query or "") if len(w) > 2}, key=len, reverse=True)
    if not words:
        return escape(text)
    pattern = re.compile(r"(?<!\w)(" + "|".join(re.escape(w) for w in words) + ")", re.IGNORECASE)
    out, last = [], 0
    for match in pattern.finditer(text):
        out.append(escape(text[last : match.start()]))
        out.append(f"<mark>{escape(match.group())}</mark>")
        last = match.end()
    out.append(escape(text[last:]))
    return mark_safe("".join(out))  # noqa: S308 - every piece was escaped above


@register.filter
def match_channels(explain: dict | None) -> list[str]:
    """How a search hit matched, in words a person reads: "words", "identifier", "meaning 62%", "reply", "next turn".

    Reads the channels `explain` names when it names them; otherwise derives them from the ranks it reports
    (a keyword rank: words; an exact or substring hit: identifier; a vector rank: meaning). "reply": the hit
    answers a question that matched, the memory before it in its conversation (`explain["answers"]`); "next
    turn": the hit is what the speaker of a turn that matched said next (`explain["continues"]`)."""
    if not explain:
        return []
    named = explain.get("channels")
    if isinstance(named, dict):
        named = [name for name, value in named.items() if value]
    if isinstance(named, list | tuple) and named:
        channels = [str(name) for name in named]
    else:
        channels = []
        if explain.get("keyword_rank"):
            channels.append("words")
        if explain.get("exact_match") or explain.get("substring_rank"):
            channels.append("identifier")
        if explain.get("vector_rank"):
            channels.append("meaning")
    if explain.get("answers"):
        channels.append("reply")
    if explain.get("continues"):
        channels.append("next turn")
    similarity = explain.get("similarity")
    return [
        f"meaning {float(similarity):.0%}" if name == "meaning" and isinstance(similarity, int | float) else name
        for name in channels
    ]


@register.filter
def get_item(mapping: dict, key: str) -> Any:
    """`{{ counts|get_item:kind }}`: a dict's value by a key held in a variable."""
    return mapping.get(key, "") if hasattr(mapping, "get") else ""


@register.filter
def plain_reason(reason: str) -> str:
    """A rules' reason in words (ui.diffing.plain_reason): no stemmed tokens on a page."""
    return diffing.plain_reason(reason or "")


@register.filter
def words_dropped(text: str, other: str) -> list:
    """`text` with the words `other` does not have marked as deleted (the older of two texts)."""
    return diffing.source_segments(text or "", other or "")


@register.filter
def words_added(text: str, other: str) -> list:
    """`text` with the words `other` does not have marked as inserted (the newer of two texts)."""
    return diffing.proposed_segments(text or "", [other or ""])


@register.simple_tag
def page_query(**filters: Any) -> str:
    """The filters a page link keeps, before its `page=`: `actor=ann&action=created&`, each value quoted as the
    `urlencode` filter quotes it (ui/bits.html#pages)."""
    return mark_safe("".join(f"{name}={quote(str(value), safe='/')}&" for name, value in filters.items()))
