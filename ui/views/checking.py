"""Time in the dashboard: the facts nobody checked for longest ("needs checking", per project, Confirm moves one to
the back), the memories past their expiry (out of search and recall) with Extend, and a memory's expiry set from
its page."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from memoryhub.memories.checking import expired, needs_checking, set_expiry, verify_memory
from memoryhub.people.roles import Action
from ui import selectors
from ui.views.common import (
    DOMAIN_ERRORS,
    HtmxHttpRequest,
    actor,
    dashboard_view,
    done,
    error_text,
    get_memory,
    notify,
    refuse,
    render_view,
)

CHECKING = "ui/checking.html"
PAGE_SIZE = 25


def _in_project(rows, project: str):
    if project == selectors.GLOBAL:
        return rows.filter(project__isnull=True)
    return rows.filter(project=project) if project else rows


@dashboard_view
@require_GET
def checking(request: HtmxHttpRequest) -> HttpResponse:
    project = request.GET.get("project", "")
    mine = _in_project(selectors.memories_for(request.access), project)
    unchecked = needs_checking(mine)
    page = Paginator(unchecked, PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        "page": page,
        "items": list(page.object_list),
        "expired": list(expired(mine)[:PAGE_SIZE]),
        "expired_total": expired(mine).count(),
        **selectors.project_filter(request.access, project),
    }
    return render_view(request, CHECKING, "entries", context)


@dashboard_view
@require_POST
def check_memory(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """A person checked the fact: confirmed and checked now, so it leaves the front of the list."""
    memory = get_memory(request, pk, Action.CURATE)
    try:
        memory = verify_memory(memory=memory, actor=actor(request))
    except DOMAIN_ERRORS as exc:
        return refuse(request, error_text(exc), status=409)
    notice = f"Memory #{pk} checked: confirmed, and last in the list now."
    if not request.htmx:
        return done(request, notice, reverse("ui:checking"))
    return notify(render_view(request, CHECKING, "checked_row", {"item": memory}), notice)


@dashboard_view
@require_POST
def expiry(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Set, extend or remove (empty) the moment a memory expires: a date, or a date and time (UTC)."""
    memory = get_memory(request, pk, Action.CURATE)
    try:
        memory = set_expiry(memory=memory, expires_at=request.POST.get("expires_at", "").strip(), actor=actor(request))
    except DOMAIN_ERRORS:
        return refuse(request, "The expiry must be a date (YYYY-MM-DD), or empty for never.", status=400)
    when = memory.expires_at.strftime("%Y-%m-%d %H:%M UTC") if memory.expires_at else "never"
    notice = f"Memory #{pk} expires {when}."
    if not request.htmx:
        return done(request, notice, reverse("ui:memory", args=[pk]))
    return notify(render_view(request, CHECKING, "expiry_form", {"memory": memory}), notice)
