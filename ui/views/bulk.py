"""Bulk actions on the selected rows, and merging a selection into one memory."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse, HttpResponseRedirect, QueryDict
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST

from memoryhub.embeddings import EmbeddingError
from memoryhub.memories.demo import remove_demo as remove_demo_memories
from memoryhub.models import Memory
from memoryhub.people.roles import Action
from ui import selectors, services
from ui.forms import BulkForm, MergeForm
from ui.ids import is_id, parse_ids
from ui.views.common import (
    DOMAIN_ERRORS,
    SELECTION_DONE,
    HtmxHttpRequest,
    Undo,
    actor,
    check,
    dashboard_view,
    done,
    error_text,
    error_text_from_form,
    forget_secret_inputs,
    notify,
    refuse,
    requires,
)
from ui.views.memories import LIST, listing_context


def _results(request: HtmxHttpRequest, notice: str, undo: Undo | None = None) -> HttpResponse:
    """The list as the person had it filtered, after the change; or back to it for a plain form post."""
    return_query = request.POST.get("return_query", "")
    if not request.htmx:
        from django.contrib import messages

        messages.success(request, notice)
        return HttpResponseRedirect(reverse("ui:memories") + (f"?{return_query}" if return_query else ""))
    context = listing_context(QueryDict(return_query), request.access) | {"close_dialog": True}
    response = render(request, f"{LIST}#results", context)
    return notify(response, notice, also=(SELECTION_DONE,), undo=undo)


def _selected_memories(request: HtmxHttpRequest, ids: list[int]) -> tuple[list[Memory], int]:
    """The selected memories the person sees (any other id counts as gone); every one must be theirs to curate,
    or nothing is done."""
    by_id = selectors.memories_for(request.access).in_bulk(ids)
    for memory in by_id.values():
        check(request, Action.CURATE, memory.project)
    return [by_id[i] for i in ids if i in by_id], sum(1 for i in ids if i not in by_id)


def _skipped(missing: int) -> str:
    return f" {missing} selected memor{'y was' if missing == 1 else 'ies were'} already gone." if missing else ""


@dashboard_view
@requires(Action.CURATE)
@require_POST
def bulk(request: HtmxHttpRequest) -> HttpResponse:
    form = BulkForm(request.POST)
    if not form.is_valid():
        forget_secret_inputs(form)
        return refuse(request, "Bulk action not carried out: " + error_text_from_form(form), status=422)
    ids = form.cleaned_data["selected"]
    if not ids:
        return refuse(request, "Select at least one memory first.", status=400)
    memories, missing = _selected_memories(request, ids)
    if not memories:
        return refuse(request, "None of the selected memories exist any more; reload the list.", status=404)
    action = form.cleaned_data["action"]
    who = actor(request)
    if action == "retag" and form.cleaned_data.get("set_project"):  # moving memories needs the right where they go
        check(request, Action.CURATE, form.cleaned_data["project"].strip() or None)
    if action == "merge":
        memories.sort(key=lambda m: m.pk)  # oldest first, as the merge records its sources
        return _merge_dialog(request, memories, MergeForm(initial=_merge_initial(memories)), missing=missing)
    undo = None
    try:
        if action in ("confirm", "unconfirm"):
            n = services.bulk_confirm(memories=memories, confirmed=action == "confirm", actor=who)
            verb = "confirmed" if action == "confirm" else "unconfirmed"
        elif action == "archive":
            n, verb = services.bulk_archive(memories=memories, actor=who), "archived"
            undo = _bulk_undo(request, memories)
        elif action == "restore":
            undoing = request.POST.get("undo") == "1"  # the Undo of an archive: last use stays where it was
            n, verb = services.bulk_restore(memories=memories, actor=who, undo=undoing), "restored"
        else:
            n, verb = services.bulk_retag(memories=memories, changes_for=form.retag_changes, actor=who), "re-tagged"
    except DOMAIN_ERRORS as exc:
        return refuse(request, f"Nothing was changed. {error_text(exc)}", status=422)
    return _results(request, f"{n} memor{'y' if n == 1 else 'ies'} {verb}." + _skipped(missing), undo)


def _bulk_undo(request: HtmxHttpRequest, memories: list[Memory]) -> Undo:
    """Restoring the same selection, through the same bulk view (so the same per-project checks apply)."""
    values = {
        "action": "restore",
        "undo": "1",
        "selected": [m.pk for m in memories],
        "return_query": request.POST.get("return_query", ""),
    }
    return Undo(reverse("ui:bulk"), "#memory-results", values)


def _merge_initial(memories: list[Memory]) -> dict:
    """Start from what a consolidation proposal would say (most common category and tier, every tag)."""
    from memoryhub.consolidation.proposals import deterministic_fields

    fields = deterministic_fields(memories)
    return {
        "selected": [m.pk for m in memories],
        "content": fields["content"],  # the most informative source as written, never the texts joined
        "category": fields["category"],
        "tier": fields["tier"],
        "tags": ", ".join(fields["tags"]),
    }


def _merge_dialog(
    request: HtmxHttpRequest, memories: list[Memory], form: MergeForm, *, missing: int = 0, status: int = 200
):
    from memoryhub.memories.details import fact_differences

    context = {
        "memories": memories,
        "differs_in": fact_differences([m.content for m in memories]),
        "form": form,
        "return_query": request.POST.get("return_query", ""),
        "skipped": _skipped(missing).strip(),
    }
    if not request.htmx:
        return render(request, "ui/merge.html", context, status=status)
    response = render(request, f"{LIST}#merge_dialog", context, status=status)
    response["HX-Retarget"] = "#dialog-slot"
    response["HX-Reswap"] = "innerHTML"
    return response


@dashboard_view
@requires(Action.CURATE)
@require_POST
def merge(request: HtmxHttpRequest) -> HttpResponse:
    form = MergeForm(request.POST)
    ids = parse_ids(v for v in request.POST.getlist("selected") if is_id(v)) or []  # the form names any other
    memories, missing = _selected_memories(request, ids)
    if not form.is_valid():
        forget_secret_inputs(form)
        return _merge_dialog(request, memories, form, status=422)
    if missing or len(memories) < 2:
        return refuse(
            request, "Some of these memories no longer exist; nothing was merged. Reload the list.", status=409
        )
    from memoryhub.consolidation.proposals import merge_memories, proposal_for_merged

    data = form.cleaned_data
    try:
        merged = merge_memories(
            memory_ids=[m.pk for m in memories],
            content=data["content"],
            actor=actor(request),
            category=data["category"],
            tier=data["tier"],
            tags=data["tags"],
        )
    except EmbeddingError as exc:
        return refuse(request, f"Nothing was merged: the embedder failed ({exc}).", status=503)
    except DOMAIN_ERRORS as exc:
        forget_secret_inputs(form)
        form.add_error(None, error_text(exc))
        return _merge_dialog(request, memories, form, status=422)
    record = proposal_for_merged(merged)  # a merge by hand is recorded as an accepted proposal: its undo is that one's
    undo = Undo(reverse("ui:undo", args=[record.pk])) if record else None
    return _results(request, f"Merged {len(memories)} memories into #{merged.pk}.", undo)


@dashboard_view
@requires(Action.DELETE, everywhere=True)
@require_POST
def remove_demo(request: HtmxHttpRequest) -> HttpResponse:
    """The demo banner's button: every demo memory goes (memoryhub/memories/demo.py); a hub admin's call, since
    the demo spans several projects."""
    removed = remove_demo_memories(actor=actor(request))
    notice = f"Removed {removed} demo memor{'y' if removed == 1 else 'ies'}."
    if not request.htmx:
        return done(request, notice, reverse("ui:memories"))
    response = HttpResponse(status=200)
    response["HX-Redirect"] = reverse("ui:memories")
    messages.success(request, notice)
    return response
