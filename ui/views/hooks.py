"""Webhooks on the dashboard: a project's owners add and remove the hooks of their projects and read the delivery
log (hub admins: every hook, hub-wide ones included). The secret is shown once, in the answer that made it."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from memoryhub.operations import deliveries, webhooks
from memoryhub.people.roles import Action
from ui import selectors
from ui.forms_hooks import WebhookForm
from ui.views.common import HtmxHttpRequest, Missing, check, dashboard_view, done, error_text, render_view, requires

WEBHOOKS = "ui/webhooks.html"
# Hooks send a project's memories out of the hub: the owners' right, as agents' tokens are.
MANAGE = Action.TOKENS


def _context(request: HtmxHttpRequest, form: WebhookForm | None = None, new_hook=None) -> dict:
    owned = request.access.projects_for(MANAGE)
    hooks = webhooks.hooks_of(owned)
    return {
        "hooks": hooks,
        "deliveries": deliveries.recent_deliveries(hooks),
        "projects": owned if owned is not None else selectors.filter_choices(request.access)["projects"],
        "events": webhooks.EVENTS,
        "form": form or WebhookForm(),
        "new_hook": new_hook,
        "hub_wide_allowed": request.access.is_admin,
    }


@dashboard_view
@requires(MANAGE)
@require_GET
def webhook_list(request: HtmxHttpRequest) -> HttpResponse:
    return render_view(request, WEBHOOKS, None, _context(request))


@dashboard_view
@requires(MANAGE)
@require_POST
def webhook_create(request: HtmxHttpRequest) -> HttpResponse:
    project = request.POST.get("project", "").strip() or None
    if project is not None:
        check(request, MANAGE, project)  # another's project: refused whatever else the form holds
    form = WebhookForm(request.POST)
    if not form.is_valid():
        return render_view(request, WEBHOOKS, None, _context(request, form), status=422)
    if project is None and not request.access.is_admin:
        form.add_error("project", "Choose one of your projects (hub-wide hooks are for hub admins).")
        return render_view(request, WEBHOOKS, None, _context(request, form), status=422)
    try:
        hook = webhooks.add_webhook(
            url=form.cleaned_data["url"], project=project, events=form.cleaned_data["events"] or None,
            actor=request.access.username,
        )  # fmt: skip
    except ValidationError as exc:
        form.add_error(None, error_text(exc))
        return render_view(request, WEBHOOKS, None, _context(request, form), status=422)
    # Rendered, not redirected: the secret is in this answer only, never in a session or a message store.
    return render_view(request, WEBHOOKS, None, _context(request, new_hook=hook), status=201)


@dashboard_view
@requires(MANAGE)
@require_POST
def webhook_remove(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    if not webhooks.remove_webhook(hook_id=pk, projects=request.access.projects_for(MANAGE)):
        raise Missing(f"Webhook #{pk} does not exist.")
    return done(request, f"Webhook #{pk} removed.", reverse("ui:webhooks"))
