"""Held for review: memories stored for a person to decide (planted instructions, untrusted tokens' writes), each with
the reason it was held, and Approve (it becomes active) or Discard (it is deleted)."""

from __future__ import annotations

from collections.abc import Callable

from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from memoryhub.memories.holds import approve_held, discard_held, held_memories
from memoryhub.people.roles import Action
from ui.views.common import (
    HtmxHttpRequest,
    actor,
    dashboard_view,
    done,
    error_text,
    get_memory,
    refuse,
    render_view,
    requires,
)

HELD = "ui/held.html"


@dashboard_view
@require_GET
def held_inbox(request: HtmxHttpRequest) -> HttpResponse:
    rows = held_memories().filter(request.access.rows(Action.READ))
    return render_view(request, HELD, None, {"memories": list(rows[:200]), "total": rows.count()})


@dashboard_view
@requires(Action.CURATE)
@require_POST
def held_approve(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    return _decide(request, pk, approve_held, f"Memory #{pk} approved: it is active, in search and recall.")


@dashboard_view
@requires(Action.CURATE)
@require_POST
def held_discard(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    return _decide(request, pk, discard_held, f"Memory #{pk} discarded.")


def _decide(request: HtmxHttpRequest, pk: int, decision: Callable[..., object], notice: str) -> HttpResponse:
    """One person's decision on a held memory, back to the list with `notice` (or why it could not be made)."""
    memory = get_memory(request, pk, Action.CURATE)
    try:
        decision(memory=memory, actor=actor(request))
    except ValidationError as exc:
        return refuse(request, error_text(exc), status=409)
    return done(request, notice, reverse("ui:held"))
