"""A memory written from the dashboard: through the same write gate as an agent's, with the gate's answer shown."""

from __future__ import annotations

from django.http import HttpResponse
from django.views.decorators.http import require_http_methods

from memoryhub.embeddings import EmbeddingError
from memoryhub.people.roles import Action
from memoryhub.writes.gate import gate_write
from ui import selectors
from ui.forms import NewMemoryForm
from ui.views.common import (
    DOMAIN_ERRORS,
    HtmxHttpRequest,
    actor,
    check,
    dashboard_view,
    error_text,
    forget_secret_inputs,
    notify,
    refuse,
    render_view,
    requires,
)

NEW = "ui/memory_new.html"


def _answer(request: HtmxHttpRequest, form: NewMemoryForm, result=None, *, status: int = 200) -> HttpResponse:
    context = {"form": form, "result": result, "projects": selectors.filter_choices(request.access)["projects"]}
    return render_view(request, NEW, "new_dialog", context, status=status)


@dashboard_view
@requires(Action.CURATE)
@require_http_methods(["GET", "POST"])
def new_memory(request: HtmxHttpRequest) -> HttpResponse:
    if request.method == "GET":
        return _answer(request, NewMemoryForm())
    # A person writes only where their role lets them curate: asked first, before anything else is judged.
    check(request, Action.CURATE, request.POST.get("project", "").strip() or None)
    form = NewMemoryForm(request.POST)
    if not form.is_valid():
        forget_secret_inputs(form)
        return _answer(request, form, status=422)
    data = form.cleaned_data
    project = data["project"].strip() or None
    try:
        result = gate_write(
            content=data["content"], project=project, category=data["category"], tier=data["tier"],
            tags=data["tags"], importance=data["importance"], source=actor(request),
        )  # fmt: skip
    except EmbeddingError as exc:
        return refuse(request, f"Nothing was stored: the embedder failed ({exc}).", status=503)
    except DOMAIN_ERRORS as exc:
        forget_secret_inputs(form)
        form.add_error(None, error_text(exc))
        return _answer(request, form, status=422)
    if result.outcome == "rejected":
        # The text stays in the box to be fixed, unless what was refused is a secret: that is never sent back.
        forget_secret_inputs(form)
        return _answer(request, form, result, status=422)
    # Stored or folded into a twin: the answer says which, and the box is empty for the next one.
    return notify(_answer(request, NewMemoryForm(), result), f"The gate answered: {result.reason}.")
