"""The memory list, a memory's page, and the actions on one memory (in place, in its row)."""

from __future__ import annotations

from django.http import HttpResponse, HttpResponseRedirect, QueryDict
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from memoryhub.consolidation.proposals import proposal_for_merged
from memoryhub.embeddings import EmbeddingError
from memoryhub.memories.decay import days_until_below
from memoryhub.memories.store import delete_memory
from memoryhub.memories.supersession import chain_of
from memoryhub.models import Memory
from memoryhub.people.activity import people_among
from memoryhub.people.roles import Access, Action
from memoryhub.writes.gate import edit_memory
from ui import decay_figures, selectors
from ui.forms import EditTextForm, FilterForm, RetagForm
from ui.views.common import (
    DOMAIN_ERRORS,
    HtmxHttpRequest,
    Undo,
    actor,
    check,
    dashboard_view,
    done,
    error_text,
    forget_secret_inputs,
    get_memory,
    notify,
    refuse,
    render_view,
    safe_next,
    wants_partial,
)

LIST = "ui/memory_list.html"


def listing_context(query: QueryDict, access: Access) -> dict:
    """Everything the results partial needs, from a query string (the page's or the one a bulk form carried)."""
    form = FilterForm(query or None)
    if form.is_bound:
        form.is_valid()
    filters = form.filters()
    problems = [f"Ignored the {name} filter: {' '.join(errs)}" for name, errs in form.errors.items()]
    try:
        listing = selectors.list_memories(filters, access)
    except EmbeddingError as exc:
        # The meaning half of the search needs the embedder; keep the page up and say what failed.
        problems.append(f"Search is unavailable: {exc}")
        filters.q = ""
        listing = selectors.list_memories(filters, access)
    link_query = query.copy()
    link_query.pop("page", None)
    return {
        "form": form,
        "filters": filters,
        "listing": listing,
        "problems": problems,
        "query": link_query,
        "return_query": query.urlencode(),
        "query_text": filters.q if listing.searched else "",
        "sorts": selectors.SORTS,
        "global_value": selectors.GLOBAL,
    }


@dashboard_view
@require_GET
def memory_list(request: HtmxHttpRequest) -> HttpResponse:
    context = listing_context(request.GET, request.access)
    choices = selectors.filter_choices(request.access)
    filters = context["filters"]
    # The menus are kept a minute; a value chosen in the URL is always offered, so the form shows what is applied.
    for key, value in (("projects", filters.project), ("sources", filters.source)):
        if value and value != selectors.GLOBAL and value not in choices[key]:
            choices = choices | {key: sorted([*choices[key], value])}
    context["choices"] = choices
    context["active_filters"] = filters.applied
    return render_view(request, LIST, "results", context)


@dashboard_view
@require_GET
def counters(request: HtmxHttpRequest) -> HttpResponse:
    return render_view(request, "base.html", "counters", {})


@dashboard_view
@require_GET
def memory_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    memory = get_memory(request, pk)
    events = selectors.history(pk)
    context = {
        "memory": memory,
        "supersedes": chain_of(memory).supersedes,
        "days_left": days_until_below(memory),
        "events": events,
        "people": people_among(sorted({event.actor for event in events})),
        "similar": selectors.similar_memories(memory, request.access),
        "merged_from": list(selectors.memories_for(request.access).filter(merged_into=memory).order_by("pk")),
        "merge_proposal": proposal_for_merged(memory),  # the accepted merge that made it: the page offers the undo
    }
    return render_view(request, "ui/memory_detail.html", None, context)


# --- rows ------------------------------------------------------------------------------------------------------


def _row(request: HtmxHttpRequest, memory: Memory, *, status: int = 200) -> HttpResponse:
    """The memory's row as the page that asked shows it: the list's row or the decay page's row."""
    if request.POST.get("view") == "decay" or request.GET.get("view") == "decay":
        row = decay_figures.DecayRow(memory, memory.effective_importance, days_until_below(memory))
        return render_view(request, "ui/decay.html", "soon_row", {"row": row}, status=status)
    selectors.explain_superseded(selectors.explain_archived([memory]), request.access)
    return render_view(request, LIST, "row", {"memory": memory}, status=status)


def _after_action(request: HtmxHttpRequest, memory: Memory, notice: str, undo: Undo | None = None) -> HttpResponse:
    if request.htmx:
        memory.refresh_from_db()
        return notify(_row(request, memory), notice, undo=undo)
    return done(request, notice, reverse("ui:memory", args=[memory.pk]))


@dashboard_view
@require_GET
def memory_row(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The plain row again: what Cancel on an inline form swaps back in. A row alone is no page: opened as a plain
    link (no htmx), it leads to the memory's page."""
    memory = get_memory(request, pk)
    if not wants_partial(request):
        return HttpResponseRedirect(reverse("ui:memory", args=[pk]))
    return _row(request, memory)


def _lifecycle_action(request: HtmxHttpRequest, pk: int, call, notice: str, undo: Undo | None = None) -> HttpResponse:
    memory = get_memory(request, pk, Action.CURATE)
    try:
        call(memory)
    except DOMAIN_ERRORS as exc:
        return refuse(request, error_text(exc), status=409)
    return _after_action(request, memory, notice.format(pk=pk), undo)


@dashboard_view
@require_POST
def confirm(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    from memoryhub.memories.lifecycle import confirm_memory

    value = request.POST.get("confirmed", "1") != "0"
    return _lifecycle_action(
        request,
        pk,
        lambda m: confirm_memory(memory=m, confirmed=value, actor=actor(request)),
        "Memory #{pk} confirmed." if value else "Memory #{pk} is no longer confirmed.",
    )


@dashboard_view
@require_POST
def archive(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    from memoryhub.memories.lifecycle import archive_memory

    return _lifecycle_action(
        request,
        pk,
        lambda m: archive_memory(memory=m, actor=actor(request), reason="archived from the dashboard"),
        "Memory #{pk} archived.",
        Undo(reverse("ui:restore", args=[pk]), f"#memory-{pk}", {"undo": "1"}),
    )


@dashboard_view
@require_POST
def restore(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    from memoryhub.memories.supersession import restore

    # One restore for archived and superseded memories: a superseded one is unlinked on both sides. The Undo of an
    # archive posts undo=1: the memory comes back as it was, its last use untouched.
    undo = request.POST.get("undo") == "1"
    return _lifecycle_action(
        request, pk, lambda m: restore(memory=m, actor=actor(request), undo=undo), "Memory #{pk} restored."
    )


@dashboard_view
@require_POST
def refresh(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    from memoryhub.memories.lifecycle import refresh_memory

    return _lifecycle_action(
        request, pk, lambda m: refresh_memory(memory=m, actor=actor(request)), "Memory #{pk} refreshed."
    )


@dashboard_view
@require_http_methods(["GET", "POST"])
def delete(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    memory = get_memory(request, pk, Action.DELETE)
    if request.method == "GET":
        # Without JavaScript there is no hx-confirm: this page asks instead.
        return render_view(request, "ui/memory_form.html", None, {"memory": memory, "mode": "delete"})
    delete_memory(memory=memory, actor=actor(request))
    notice = f"Memory #{pk} deleted."
    if request.htmx:
        return notify(HttpResponse(""), notice)  # the row swaps itself out
    return done(request, notice, reverse("ui:memories"))


# --- inline forms ----------------------------------------------------------------------------------------------


def _form_view(request: HtmxHttpRequest, pk: int, form_class, mode: str, apply) -> HttpResponse:
    """GET shows the form (in the row for htmx, as a page otherwise); POST validates, checks staleness, saves."""
    memory = get_memory(request, pk, Action.CURATE)
    partial = "row_edit" if mode == "edit" else "row_retag"
    if request.method == "GET":
        form = form_class(memory=memory)
        return _form_response(request, memory, form, mode, partial)
    form = form_class(request.POST, memory=memory)
    if not form.is_valid():
        forget_secret_inputs(form)
        return _form_response(request, memory, form, mode, partial, status=422)
    if form.is_stale():
        return refuse(
            request,
            f"Memory #{pk} changed after you opened this form; nothing was saved. Reload it to see the current "
            "version, then make your change again.",
            status=409,
        )
    try:
        apply(memory, form)
    except EmbeddingError as exc:
        return refuse(request, f"Nothing was saved: the embedder failed ({exc}).", status=503)
    except DOMAIN_ERRORS as exc:
        forget_secret_inputs(form)
        form.add_error(None, error_text(exc))
        return _form_response(request, memory, form, mode, partial, status=422)
    notice = f"Memory #{pk} saved."
    if request.htmx:
        memory.refresh_from_db()
        return notify(_row(request, memory), notice)
    return done(request, notice, safe_next(request, reverse("ui:memory", args=[pk])))


def _form_response(request, memory, form, mode, partial, *, status=200) -> HttpResponse:
    context = {"memory": memory, "form": form, "mode": mode, "next": safe_next(request, "")}
    if mode == "retag":
        context["projects"] = selectors.filter_choices(request.access)["projects"]
    if request.htmx:
        return render_view(request, LIST, partial, context, status=status)
    return render_view(request, "ui/memory_form.html", None, context, status=status)


@dashboard_view
@require_http_methods(["GET", "POST"])
def edit(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    def apply(memory: Memory, form: EditTextForm) -> None:
        changes = {"content": form.cleaned_data["content"]}
        if form.cleaned_data["importance"] is not None:
            changes["importance"] = form.cleaned_data["importance"]
        edit_memory(memory=memory, changes=changes, actor=actor(request), action="edited")

    return _form_view(request, pk, EditTextForm, "edit", apply)


@dashboard_view
@require_http_methods(["GET", "POST"])
def retag(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    def apply(memory: Memory, form: RetagForm) -> None:
        changes = form.changes()
        if "project" in changes:  # moving a memory needs the same right where it goes
            check(request, Action.CURATE, changes["project"])
        edit_memory(memory=memory, changes=changes, actor=actor(request), action="retagged")

    return _form_view(request, pk, RetagForm, "retag", apply)
