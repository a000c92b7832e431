"""Replaced automatically: the supersessions the write gate made, each with both texts, the rules' reason and a
Restore that undoes it in place."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from memoryhub.memories.supersession import restore
from memoryhub.memories.supersession_log import (
    automatic_supersession,
    automatic_supersessions,
    count_automatic_supersessions,
)
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
    requires,
)

SUPERSESSIONS = "ui/supersessions.html"
PAGE_SIZE = 25


@dashboard_view
@require_GET
def supersessions(request: HtmxHttpRequest) -> HttpResponse:
    project = request.GET.get("project", "")
    scopes = selectors.supersession_scopes(request.access, project)
    total = count_automatic_supersessions(projects=scopes)
    page = Paginator(range(total), PAGE_SIZE).get_page(request.GET.get("page"))
    offset = page.start_index() - 1 if total else 0
    context = {
        "items": automatic_supersessions(projects=scopes, limit=PAGE_SIZE, offset=offset),
        "page": page,
        "total": total,
        **selectors.project_filter(request.access, project),
    }
    return render_view(request, SUPERSESSIONS, "entries", context)


@dashboard_view
@requires(Action.CURATE)
@require_POST
def restore_supersession(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Undo one automatic supersession: the older memory is active again beside its successor."""
    memory = get_memory(request, pk, Action.CURATE)
    link = automatic_supersession(older_id=memory.pk, projects=[memory.project])
    if link is None:
        return refuse(request, f"Memory #{pk} is not replaced automatically (it may have been restored).", status=409)
    try:
        restore(memory=link.older, actor=actor(request))
    except DOMAIN_ERRORS as exc:
        return refuse(request, error_text(exc), status=409)
    notice = f"Memory #{pk} restored: it and memory #{link.newer.pk} are both active."
    if not request.htmx:
        return done(request, notice, reverse("ui:supersessions"))
    return notify(render_view(request, SUPERSESSIONS, "row", {"item": link}), notice)
