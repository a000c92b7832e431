"""Webhook delivery from the change log, never on a write's path.

The outbox is the history: every change writes its MemoryEvent row in the change's own transaction, so an event
exists exactly when its change was committed. Each hook keeps a cursor, the id of the last event it has handled;
a pass of the delivery thread (runtime/deliveries.py, in the serving process) reads the events past it in id order
and sends those the hook asked for, one at a time. A receiver that fails (an error, a status other than 2xx, no
answer within MEMORYHUB_WEBHOOK_TIMEOUT_S) leaves the cursor where it is: the same event is tried again after 1, 2,
4 ... seconds (at most MEMORYHUB_WEBHOOK_MAX_BACKOFF_S), and nothing after it is sent before it. So a receiver
that was down gets every event once it is back, in the order they happened (per memory, and overall), at least once:
an event whose answer was lost is sent again, with the same `X-MemoryHub-Delivery` id for the receiver to drop.

Which events become which webhook:
- `created`, `imported` -> memory.created; `superseded` -> memory.superseded; `restored` -> memory.restored;
  any change that takes an active memory to archived (an archive, a decay sweep, a merge's sources) ->
  memory.archived;
- `conflict_queued` -> conflict.opened, once per conflict (on its older memory; the event is on both);
- a merge accepted (the merged memory's `merged` event), rejected (`merge_rejected`, once, on the first source),
  a conflict decided (`conflict_decided`) -> proposal.decided.
"""

from __future__ import annotations

import json
import re
import time
from datetime import timedelta
from typing import Any

import httpx
from django.conf import settings
from django.db import connection
from django.db.models import Q
from django.utils import timezone

from memoryhub.models import Memory, MemoryEvent, Proposal, Status, Webhook, WebhookDelivery
from memoryhub.operations.webhooks import SIGNATURE_HEADER, refusal, sign
from memoryhub.writes.shape import iso, memory_as_dict

BATCH = 50  # events read per hook and pass
KEEP_DELIVERIES = 500  # tries kept in the log per hook
# PostgreSQL hands out ids when a row is inserted, not when its transaction commits: an event with a lower id can
# become visible after one with a higher id. A hole in the ids is waited for (the cursor stays before it) until its
# transaction commits, or for this long: then it is taken for a transaction that rolled back (a sequence never gives
# an id back) and passed. (SQLite commits one writer at a time, in id order, and a rollback returns its ids.)
HOLE_PATIENCE_S = 15.0
_holes: dict[int, float] = {}  # the first id missing -> when the delivery pass first saw it missing (monotonic)
_PROPOSAL = re.compile(r"proposal #(\d+)")


def _proposal_of(event: MemoryEvent) -> Proposal | None:
    after = event.after if isinstance(event.after, dict) else {}
    found = after.get("proposal") or (_PROPOSAL.search(event.note or "") or [None, None])[1]
    return Proposal.objects.filter(pk=int(found)).first() if found else None


def _first_source(event: MemoryEvent, proposal: Proposal | None) -> bool:
    return proposal is not None and bool(proposal.sources) and int(proposal.sources[0]) == event.memory_id


def classify(event: MemoryEvent) -> tuple[str | None, Proposal | None]:
    """The webhook event a change-log event is (or None), with the proposal it concerns."""
    before = event.before if isinstance(event.before, dict) else {}
    after = event.after if isinstance(event.after, dict) else {}
    action = event.action
    simple = {"created": "memory.created", "imported": "memory.created", "superseded": "memory.superseded",
              "restored": "memory.restored"}  # fmt: skip
    if action in simple:
        return simple[action], None
    if action == "merged" and "sources" in after:
        return "proposal.decided", _proposal_of(event)
    if after.get("status") == Status.ARCHIVED and before.get("status") != Status.ARCHIVED:
        return "memory.archived", None
    if action in ("conflict_queued", "merge_rejected", "conflict_decided"):
        proposal = _proposal_of(event)
        if action == "conflict_decided" or _first_source(event, proposal):
            return ("conflict.opened" if action == "conflict_queued" else "proposal.decided"), proposal
    return None, None


def _proposal_summary(proposal: Proposal) -> dict[str, Any]:
    return {
        "id": proposal.pk, "kind": proposal.kind, "status": proposal.status, "choice": proposal.choice,
        "sources": list(proposal.sources or []), "content": proposal.content, "rationale": proposal.rationale,
        "merged_memory": proposal.merged_memory_id, "decided_by": proposal.decided_by,
        "decided_at": iso(proposal.decided_at),
    }  # fmt: skip


def message(event: MemoryEvent, hook: Webhook, memory: Memory | None) -> dict[str, Any] | None:
    """The JSON body this hook is sent for this event, or None when the hook does not hear of it."""
    name, proposal = classify(event)
    if name is None or name not in hook.events:
        return None
    before = event.before if isinstance(event.before, dict) else {}
    project = proposal.project if proposal else (memory.project if memory else before.get("project"))
    if hook.project is not None and project != hook.project:
        return None
    body: dict[str, Any] = {
        "event": name,
        "id": event.pk,
        "time": iso(event.created_at),
        "project": project,
        "actor": event.actor,
        "memory": memory_as_dict(memory) if memory else None,
    }
    if proposal is not None:
        body["proposal"] = _proposal_summary(proposal)
    return body


def _send(hook: Webhook, body: dict[str, Any]) -> tuple[int | None, str]:
    """POST the body, signed; (status code or None, error text or '')."""
    why = refusal(hook.url)
    if why:
        return None, why[:500]
    data = json.dumps(body, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "MemoryHub-Webhooks",
        SIGNATURE_HEADER: sign(data, hook.secret),
        "X-MemoryHub-Event": body["event"],
        "X-MemoryHub-Delivery": str(body["id"]),
    }
    try:
        # No redirects: a receiver's 3xx must not lead the server to an address the check above never saw.
        answer = httpx.post(hook.url, content=data, headers=headers, timeout=settings.MEMORYHUB_WEBHOOK_TIMEOUT_S)
    except httpx.HTTPError as exc:
        return None, f"{type(exc).__name__}: {exc}"[:500]
    if 200 <= answer.status_code < 300:
        return answer.status_code, ""
    return answer.status_code, f"the receiver answered {answer.status_code}"


def backoff(failures: int) -> float:
    """Seconds before the next try after `failures` failed tries in a row: 1, 2, 4 ..., capped."""
    return min(2.0 ** max(failures - 1, 0), settings.MEMORYHUB_WEBHOOK_MAX_BACKOFF_S)


def _deliver_to(hook: Webhook) -> bool:
    """Send this hook its events past its cursor, in order, until one fails; True when it has more waiting. The
    hook's row is written once, at the end: an event sent again after a crash is what at-least-once allows."""
    batch = list(MemoryEvent.objects.filter(pk__gt=hook.cursor).order_by("pk")[:BATCH])
    if not batch:
        return False
    memories = Memory.objects.in_bulk({event.memory_id for event in batch})
    was = (hook.cursor, hook.failures, hook.next_attempt_at)
    sent = False
    try:
        for event in batch:
            if _before_a_hole(hook.cursor, event.pk):
                return False  # the next pass looks again
            body = message(event, hook, memories.get(event.memory_id))
            if body is not None:
                sent = True
                if not _try(hook, event, body):
                    hook.failures += 1
                    hook.next_attempt_at = timezone.now() + timedelta(seconds=backoff(hook.failures))
                    return False
                hook.failures, hook.next_attempt_at = 0, None
            hook.cursor = event.pk
        return len(batch) == BATCH
    finally:
        if (hook.cursor, hook.failures, hook.next_attempt_at) != was:
            Webhook.objects.filter(pk=hook.pk).update(
                cursor=hook.cursor, failures=hook.failures, next_attempt_at=hook.next_attempt_at
            )
        if sent:
            _trim_log(hook)


def _try(hook: Webhook, event: MemoryEvent, body: dict[str, Any]) -> bool:
    """One try, written to the delivery log; whether the receiver took it."""
    started = time.perf_counter()
    status, error = _send(hook, body)
    WebhookDelivery.objects.create(
        webhook=hook, event=body["event"], event_id=event.pk, memory_id=event.memory_id, attempt=hook.failures + 1,
        ok=not error, status_code=status, error=error, duration_ms=(time.perf_counter() - started) * 1000,
    )  # fmt: skip
    return not error


def _before_a_hole(cursor: int, next_id: int) -> bool:
    """Whether ids between the cursor and the next event are missing and may still be committed (PostgreSQL)."""
    if next_id == cursor + 1 or connection.vendor != "postgresql" or cursor == 0:
        return False
    seen = _holes.setdefault(cursor + 1, time.monotonic())
    if time.monotonic() - seen < HOLE_PATIENCE_S:
        return True
    _holes.pop(cursor + 1, None)
    return False


def _trim_log(hook: Webhook) -> None:
    oldest_kept = (
        WebhookDelivery.objects.filter(webhook=hook).order_by("-pk").values_list("pk", flat=True)[KEEP_DELIVERIES:][:1]
    )
    if oldest_kept:
        WebhookDelivery.objects.filter(webhook=hook, pk__lte=oldest_kept[0]).delete()


def deliver_due() -> bool:
    """One pass over the hooks that are due (not waiting out a backoff); True when some hook has more events
    waiting (the caller passes again at once instead of sleeping)."""
    now = timezone.now()
    due = Webhook.objects.filter(Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lte=now)).order_by("pk")
    more = False
    for hook in due:
        more = _deliver_to(hook) or more
    return more


def recent_deliveries(hooks: list[Webhook], limit: int = 100) -> list[WebhookDelivery]:
    """The delivery log of these hooks, newest first."""
    return list(WebhookDelivery.objects.filter(webhook__in=hooks).select_related("webhook")[:limit])
