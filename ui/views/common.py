"""What every dashboard view shares: login, the person's access, partial-or-page rendering, messages, refusals.

The person's access (memoryhub.people.roles) is worked out once per request by `dashboard_view`; views load what
they act on through `get_memory` / `get_scoped`, which answer a row the person may not see exactly like a missing
one (404) and a visible row they may not change with a 403.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import wraps

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django_htmx.http import HttpResponseClientRedirect
from django_htmx.middleware import HtmxDetails

from memoryhub.memories.backup import BackupError
from memoryhub.memories.secrets import holds_secret, redact_shown
from memoryhub.models import Memory
from memoryhub.people.persons import NotAllowed
from memoryhub.people.roles import Access, Action, access_for


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails
    access: Access


class Missing(Exception):
    """What the view looked for does not exist, or the person may not see it: both answer the same 404."""


MEMORIES_CHANGED = "memories-changed"  # the nav counters listen for it
SELECTION_DONE = "selection-done"  # app.js forgets the ticked rows: the bulk action acted on them


def dashboard_view(view: Callable) -> Callable:
    """Login required; an htmx request with an expired session is sent to the login page as a whole page.

    A failed automatic backup (before a merge, an import, a bulk delete) refuses the change wherever it comes
    from: one place says so, with a 503, instead of every view catching it.
    """

    @wraps(view)
    def wrapper(request: HtmxHttpRequest, *args, **kwargs):
        if not request.user.is_authenticated:
            if request.htmx:
                next_url = request.htmx.current_url_abs_path or "/"
                return HttpResponseClientRedirect(f"{reverse('login')}?{urlencode({'next': next_url})}")
            return redirect_to_login(request.get_full_path())
        request.access = access_for(request.user)
        try:
            return view(request, *args, **kwargs)
        except BackupError as exc:
            return refuse(request, error_text(exc), status=503)
        except Missing as exc:
            return refuse(request, str(exc), status=404)
        except NotAllowed as exc:
            return refuse(request, error_text(exc), status=403)

    return wrapper


def requires(action: Action, *, everywhere: bool = False) -> Callable:
    """A page or action that needs `action` in at least one project (`everywhere`: a hub admin only, for what
    acts on the whole store). Stacked under `dashboard_view`; per-row checks happen where the row is loaded."""

    def decorate(view: Callable) -> Callable:
        @wraps(view)
        def wrapper(request: HtmxHttpRequest, *args, **kwargs):
            access = request.access
            allowed = access.is_admin if everywhere else access.is_admin or bool(access.projects_for(action))
            if not allowed:
                raise NotAllowed(f"your role does not allow this ({action})")
            return view(request, *args, **kwargs)

        return wrapper

    return decorate


def check(request: HtmxHttpRequest, action: Action, project: str | None) -> None:
    if not request.access.can(action, project):
        where = f"project {project!r}" if project else "global memories"
        raise NotAllowed(f"your role does not allow this ({action}) in {where}")


def actor(request: HttpRequest) -> str:
    """Dashboard changes are signed with the person's username (agents sign with their token's name)."""
    return request.user.get_username()


def wants_partial(request: HtmxHttpRequest) -> bool:
    # A history restore (back button after the cache emptied) needs the whole page, not a fragment.
    return bool(request.htmx) and not request.htmx.history_restore_request and not request.htmx.boosted


def render_view(
    request: HtmxHttpRequest, template: str, partial: str | None, context: dict, *, status: int = 200
) -> HttpResponse:
    """The named partial for an htmx request, the whole page otherwise; the URL works both ways."""
    name = f"{template}#{partial}" if partial and wants_partial(request) else template
    response = render(request, name, context, status=status)
    patch_vary_headers(response, ["HX-Request"])
    return response


@dataclass(frozen=True)
class Undo:
    """The Undo button of a notice: app.js POSTs `values` to `url` and swaps the answer over `target` (outerHTML);
    with no target, or when the page no longer shows it, it reloads the memory list instead."""

    url: str
    target: str = ""
    values: dict = field(default_factory=dict)


def notify(
    response: HttpResponse,
    notice: str = "",
    *,
    changed: bool = True,
    also: tuple[str, ...] = (),
    undo: Undo | None = None,
) -> HttpResponse:
    """Tell the page what happened: a notice to show (with an Undo button for what can be taken back) and an event
    that refreshes the counters (`also`: more events, such as SELECTION_DONE)."""
    events: dict = dict.fromkeys(also, True)
    if changed:
        events[MEMORIES_CHANGED] = True
    if notice:
        events["notice"] = {"text": notice, "level": "success"}
        if undo is not None:
            events["notice"]["undo"] = asdict(undo)
    if events:
        response["HX-Trigger"] = json.dumps(events)
    return response


def safe_next(request: HttpRequest, default: str) -> str:
    candidate = request.POST.get("next") or request.GET.get("next") or ""
    if candidate and url_has_allowed_host_and_scheme(candidate, allowed_hosts={request.get_host()}):
        return candidate
    return default


def done(request: HtmxHttpRequest, notice: str, default: str) -> HttpResponse:
    """After a plain (non-htmx) POST: show the notice on the page we go back to."""
    messages.success(request, notice)
    return HttpResponseRedirect(safe_next(request, default))


def refuse(request: HtmxHttpRequest, message: str, *, status: int = 400) -> HttpResponse:
    """A request we cannot carry out: say why where the person is looking, never a 500."""
    if request.htmx:
        response = render(request, "ui/messages.html#message", {"level": "error", "text": message}, status=status)
        response["HX-Retarget"] = "#messages"
        response["HX-Reswap"] = "innerHTML"
        return response
    return render(request, "ui/problem.html", {"message": message, "back": safe_next(request, "/")}, status=status)


def error_text(exc: Exception) -> str:
    """A readable sentence from a domain error, naming fields where the domain named them."""
    if isinstance(exc, ValidationError):
        if hasattr(exc, "message_dict"):
            text = "; ".join(f"{field}: {' '.join(msgs)}" for field, msgs in exc.message_dict.items())
        else:
            text = " ".join(exc.messages)
    else:
        text = str(exc) or exc.__class__.__name__
    text = redact_shown(text[:1].upper() + text[1:])  # a message that quotes what was typed never repeats a secret
    return text if text.endswith((".", "!", "?")) else text + "."


def error_text_from_form(form) -> str:
    return "; ".join(
        f"{'' if field == '__all__' else field + ': '}{' '.join(errs)}" for field, errs in form.errors.items()
    )


# What the domain raises for a request it will not carry out (bad values, a state that does not allow it): Django's
# ValidationError, from the write path (memoryhub/memories/store.py, gate.py, lifecycle.py) and consolidation. Any
# other error is a fault, and a 500 that shows up in the log says so better than a refusal would.
DOMAIN_ERRORS: tuple[type[Exception], ...] = (ValidationError,)


def forget_secret_inputs(form) -> None:
    """A form shown again after a refusal: every input that holds a secret comes back empty, so the page never
    carries it (the error names the field and kind). Applies to every form, whatever refused it; a field error that
    could quote the value (Django's "Select a valid choice. <value> is not one of...") is replaced too."""
    form.data = form.data.copy()
    for name in form.fields:
        key = form.add_prefix(name)
        values = form.data.getlist(key) if hasattr(form.data, "getlist") else [form.data.get(key)]
        if any(isinstance(v, str) and holds_secret(v) for v in values):
            form.data[key] = ""
            if form.is_bound and name in form.errors:
                form.errors[name] = form.error_class(
                    ["This held a secret; it was not kept. Enter it again without it."]
                )


def get_memory(request: HtmxHttpRequest, pk: int, action: Action = Action.READ) -> Memory:
    """The memory, if the person sees it (else Missing: the same answer as a memory that never was) and may
    `action` it (else NotAllowed)."""
    memory = Memory.objects.filter(request.access.rows(Action.READ), pk=pk).first()
    if memory is None:
        raise Missing(f"Memory #{pk} does not exist (it may have been deleted or merged away).")
    check(request, action, memory.project)
    return memory


def get_scoped(request: HtmxHttpRequest, rows, pk: int, action: Action, noun: str):
    """A row of a table with a project column (proposal, gate log entry), under the same rule as `get_memory`."""
    row = rows.filter(request.access.rows(Action.READ), pk=pk).first()
    if row is None:
        raise Missing(f"{noun} #{pk} does not exist.")
    check(request, action, row.project)
    return row
