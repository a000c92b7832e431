"""The team pages: a project's activity (who did what), agents' tokens for owners, people and roles for admins.

Each page asks memoryhub.people what the person may do; the same checks guard the writes there.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from memoryhub.models import ApiToken, Membership
from memoryhub.people import activity, persons, tokens
from memoryhub.people.roles import Action
from ui import selectors
from ui.forms_team import ActivityForm, GrantForm, PersonForm, RevokeRoleForm, TokenForm
from ui.views.common import (
    HtmxHttpRequest,
    Missing,
    dashboard_view,
    done,
    error_text,
    error_text_from_form,
    refuse,
    render_view,
    requires,
)

ACTIVITY = "ui/activity.html"
TOKENS = "ui/tokens.html"
PEOPLE = "ui/people.html"


# --- activity ----------------------------------------------------------------------------------------------------


def _projects_seen(request: HtmxHttpRequest) -> list[str]:
    return selectors.filter_choices(request.access)["projects"]


@dashboard_view
@require_GET
def activity_index(request: HtmxHttpRequest) -> HttpResponse:
    return render_view(request, ACTIVITY, None, {"projects": _projects_seen(request), "project": None})


@dashboard_view
@require_GET
def project_activity(request: HtmxHttpRequest, project: str) -> HttpResponse:
    if not request.access.can(Action.READ, project):
        raise Missing("There is no such project.")  # the same answer as a project nobody has
    form = ActivityForm(request.GET)
    form.is_valid()
    filters = activity.ActivityFilters(
        project=project, actor=form.cleaned_data.get("actor", ""), action=form.cleaned_data.get("action", "")
    )
    page = Paginator(activity.project_events(filters), 50).get_page(request.GET.get("page"))
    actors, actions = activity.actors_and_actions(project)
    context = {
        "projects": _projects_seen(request),
        "project": project,
        "filters": filters,
        "page": page,
        "actors": actors,
        "actions": actions,
        "people": activity.people_among(actors),
    }
    return render_view(request, ACTIVITY, "events", context)


# --- agents' tokens ----------------------------------------------------------------------------------------------


def _tokens_context(request: HtmxHttpRequest, form: TokenForm | None = None, new_token: str = "") -> dict:
    owned = request.access.projects_for(Action.TOKENS)
    choices = owned if owned is not None else _projects_seen(request)
    return {
        "tokens": tokens.tokens_for(request.access),
        "form": form or TokenForm(projects=choices),
        "new_token": new_token,
        "all_projects_allowed": request.access.is_admin,
    }


@dashboard_view
@requires(Action.TOKENS)
@require_GET
def token_list(request: HtmxHttpRequest) -> HttpResponse:
    return render_view(request, TOKENS, None, _tokens_context(request))


@dashboard_view
@requires(Action.TOKENS)
@require_POST
def token_create(request: HtmxHttpRequest) -> HttpResponse:
    # Projects are checked against the person's roles by the domain (a project not offered is refused there too).
    form = TokenForm(request.POST, projects=request.POST.getlist("projects"))
    if not form.is_valid():
        return render_view(request, TOKENS, None, _tokens_context(request, form), status=422)
    data = form.cleaned_data
    try:
        _, raw = tokens.make_token(
            by=request.access, name=data["name"], projects=data["projects"], read_only=data["read_only"],
            untrusted=data["untrusted"],
        )  # fmt: skip
    except ValidationError as exc:
        form.add_error(None, error_text(exc))
        return render_view(request, TOKENS, None, _tokens_context(request, form), status=422)
    # Rendered, not redirected: the token is in this answer only, never in a session or a message store.
    return render_view(request, TOKENS, None, _tokens_context(request, new_token=raw), status=201)


@dashboard_view
@requires(Action.TOKENS)
@require_POST
def token_revoke(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    try:
        token = tokens.withdraw_token(by=request.access, token_id=pk)
    except ApiToken.DoesNotExist as exc:
        raise Missing(f"Token #{pk} does not exist.") from exc
    return done(request, f"Token {token.prefix}… of {token.name} revoked.", reverse("ui:tokens"))


@dashboard_view
@requires(Action.TOKENS)
@require_POST
def token_trust(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    untrusted = request.POST.get("untrusted") == "1"
    try:
        token = tokens.trust_token(by=request.access, token_id=pk, untrusted=untrusted)
    except ApiToken.DoesNotExist as exc:
        raise Missing(f"Token #{pk} does not exist.") from exc
    state = "untrusted: its writes are held for review" if token.untrusted else "trusted"
    return done(request, f"Token {token.prefix}… of {token.name} is {state}.", reverse("ui:tokens"))


# --- people ------------------------------------------------------------------------------------------------------


def _people_context(request: HtmxHttpRequest, **extra) -> dict:
    managed = request.access.projects_for(Action.MEMBERS)
    memberships = Membership.objects.select_related("user").order_by("project", "user__username")
    if managed is not None:
        memberships = memberships.filter(project__in=managed)
    people = get_user_model().objects.order_by("username") if request.access.is_admin else []
    return {
        "memberships": list(memberships),
        "people": people,
        "projects": managed if managed is not None else _projects_seen(request),
        "roles": Membership._meta.get_field("role").choices,
        "person_form": PersonForm(),
        "grant_form": GrantForm(),
        "set_password_link": "",
        "new_username": "",
    } | extra


@dashboard_view
@requires(Action.MEMBERS)
@require_GET
def people(request: HtmxHttpRequest) -> HttpResponse:
    return render_view(request, PEOPLE, None, _people_context(request))


@dashboard_view
@requires(Action.MEMBERS, everywhere=True)
@require_POST
def person_create(request: HtmxHttpRequest) -> HttpResponse:
    form = PersonForm(request.POST)
    if not form.is_valid():
        return refuse(request, "Nobody was added: " + error_text_from_form(form), status=422)
    try:
        made = persons.add_person(username=form.cleaned_data["username"], admin=form.cleaned_data["admin"])
    except ValidationError as exc:
        return refuse(request, f"Nobody was added. {error_text(exc)}", status=422)
    # Shown once, in this answer: whoever made the person passes it on; it stops working once the password is set.
    link = request.build_absolute_uri(made.set_password_path)
    context = _people_context(request, set_password_link=link, new_username=made.user.get_username())
    return render_view(request, PEOPLE, None, context, status=201)


@dashboard_view
@requires(Action.MEMBERS)
@require_POST
def grant(request: HtmxHttpRequest) -> HttpResponse:
    form = GrantForm(request.POST)
    if not form.is_valid():
        return refuse(request, "No role was given: " + error_text_from_form(form), status=422)
    data = form.cleaned_data
    try:
        persons.grant_role(username=data["username"], role=data["role"], project=data["project"], by=request.access)
    except ValidationError as exc:
        return refuse(request, f"No role was given. {error_text(exc)}", status=422)
    notice = f"{data['username']} is now {data['role']} of {data['project']}."
    return done(request, notice, reverse("ui:people"))


@dashboard_view
@requires(Action.MEMBERS)
@require_POST
def revoke_role(request: HtmxHttpRequest) -> HttpResponse:
    form = RevokeRoleForm(request.POST)
    if not form.is_valid():
        return refuse(request, "No role was taken away: " + error_text_from_form(form), status=422)
    data = form.cleaned_data
    if not persons.revoke_role(username=data["username"], project=data["project"], by=request.access):
        raise Missing(f"{data['username']} has no role in {data['project']}.")
    return done(request, f"{data['username']} has no role in {data['project']} any more.", reverse("ui:people"))
