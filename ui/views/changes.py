"""The Changes inbox: every decision the memory made by itself (supersessions, conflicts, merges, folded writes,
decay archives), newest first and grouped by day, with what is new since the person's last visit marked and each
decision's action inline. The actions are the pages' own (restore, decide, undo, promote): their answers carry the
"memories-changed" event, and the inbox list reloads itself on it."""

from __future__ import annotations

import re
from datetime import datetime

from django.http import HttpResponse
from django.utils import timezone
from django.views.decorators.http import require_GET

from memoryhub.memories.changes import KINDS, Change, by_day, changes, count_changes
from memoryhub.memories.supersession_log import cue_of
from ui import diffing, selectors
from ui.views.common import HtmxHttpRequest, dashboard_view, render_view, wants_partial

CHANGES = "ui/changes.html"
# The session remembers when the person last opened the inbox (SEEN) and, while they stay on it, the visit before
# (SINCE): a list that reloads in place after an action keeps marking what was new when the page opened.
SEEN = "changes_seen_at"
_ASKED = re.compile(r"^Which is current\? #[0-9]+ \(older\) or #[0-9]+ \(newer\): ")
SINCE = "changes_since"


def _since(request: HtmxHttpRequest) -> datetime | None:
    if wants_partial(request):
        value = request.session.get(SINCE)
    else:
        value = request.session.get(SEEN)
        request.session[SINCE] = value
        request.session[SEEN] = timezone.now().isoformat()
    return datetime.fromisoformat(value) if value else None


def _texts(change: Change) -> tuple[str, str, str] | None:
    """(older text, newer text, the cue that said it changed) for a change between two texts, else None."""
    if change.supersession is not None:
        return change.supersession.older.content, change.supersession.newer.content, change.supersession.cue
    if change.kind == "conflict" and len(change.sources) == 2:
        return change.sources[0].content, change.sources[1].content, cue_of(change.proposal.rationale)
    if change.entry is not None and change.entry.memory is not None:
        return change.entry.memory.content, change.entry.content, ""
    return None


def _why(change: Change) -> str:
    """The rules' reason in words (their stemmed tokens left out: the texts beside it show what changed)."""
    if change.supersession is not None:
        return diffing.plain_reason(change.supersession.reason)
    if change.kind == "conflict":
        return diffing.plain_reason(_ASKED.sub("", change.proposal.rationale, count=1))
    if change.entry is not None:
        return change.entry.reason
    return ""


def _item(change: Change, since: datetime | None) -> dict:
    item = {"change": change, "new": since is None or change.at > since, "why": _why(change)}
    texts = _texts(change)
    if texts is not None:
        item["older"], item["newer"] = diffing.pair_segments(texts[0], texts[1])
        item["cue"] = texts[2]
    return item


@dashboard_view
@require_GET
def inbox(request: HtmxHttpRequest) -> HttpResponse:
    project = request.GET.get("project", "")
    kind = request.GET.get("kind", "")
    problems = []
    if kind and kind not in KINDS:
        problems.append(f"Unknown kind “{kind}”; showing every kind.")
        kind = ""
    scopes = selectors.supersession_scopes(request.access, project)
    since = _since(request)
    found = changes(projects=scopes, kinds=[kind] if kind else None)
    days = [{"day": day.day, "items": [_item(c, since) for c in day.changes]} for day in by_day(found)]
    context = {
        "days": days,
        "since": since,
        "fresh": sum(1 for day in days for item in day["items"] if item["new"]),
        "kind_counts": count_changes(projects=scopes),
        "kinds": KINDS,
        "kind": kind,
        **selectors.project_filter(request.access, project),
        "problems": problems,
    }
    return render_view(request, CHANGES, "entries", context)
