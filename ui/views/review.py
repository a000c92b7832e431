"""Consolidation review (the proposals queue) and the gate log: where a person overrules the machine."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.db.models import Count
from django.http import HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from memoryhub.embeddings import EmbeddingError
from memoryhub.models import ConflictChoice, GateDecision, GateLogEntry, Memory, Proposal, ProposalKind, ProposalStatus
from memoryhub.people.roles import Access, Action
from ui import diffing, selectors
from ui.forms import AcceptProposalForm, RunConsolidationForm
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
    get_scoped,
    notify,
    refuse,
    render_view,
    requires,
)

PROPOSALS = "ui/proposals.html"
GATE = "ui/gate.html"
STATUSES = [*ProposalStatus.values, "all"]


def proposal_view_model(proposal: Proposal, memories: dict[int, Memory]) -> dict:
    """A proposal with its sources and the word differences between them and the proposed text."""
    sources = []
    texts = []
    for memory_id in proposal.sources:
        memory = memories.get(int(memory_id))
        text = memory.content if memory else ""
        texts.append(text)
        sources.append(
            {
                "id": int(memory_id),
                "memory": memory,
                "segments": diffing.source_segments(text, proposal.content) if memory else [],
                # What a merge would not carry over: tags the proposal lacks (its confirmation and uses are shown).
                "lost_tags": [t for t in memory.tags if t not in (proposal.tags or [])] if memory else [],
            }
        )
    from memoryhub.memories.details import fact_differences

    present = [t for t in texts if t]
    pending = proposal.status == ProposalStatus.PENDING
    return {
        "proposal": proposal,
        # Names, numbers, swapped nouns or always/never that tell the sources apart: a merge would lose one of them.
        "differs_in": fact_differences(present) if pending else [],
        "sources": sources,
        "proposed": diffing.proposed_segments(proposal.content, texts),
        "added": [s.text for s in diffing.proposed_segments(proposal.content, texts) if s.kind == "ins"],
        "form": AcceptProposalForm(initial={"content": proposal.content}, prefix=f"p{proposal.pk}"),
    }


def _cards(proposals: list[Proposal], access: Access) -> list[dict]:
    ids = {int(i) for p in proposals for i in p.sources}
    memories = selectors.memories_for(access).in_bulk(list(ids))
    return [proposal_view_model(p, memories) for p in proposals]


@dashboard_view
@require_GET
def proposals(request: HtmxHttpRequest) -> HttpResponse:
    from memoryhub.consolidation.proposals import close_stale_proposals

    # The queue never offers a merge of memories that changed since it was proposed: those close themselves.
    close_stale_proposals()
    status = request.GET.get("status") or ProposalStatus.PENDING
    problems = []
    if status not in STATUSES:
        problems.append(f"Unknown status “{status}”; showing pending proposals.")
        status = ProposalStatus.PENDING
    kind = request.GET.get("kind") or ""
    if kind not in ("", *ProposalKind.values):
        problems.append(f"Unknown kind “{kind}”; showing every kind.")
        kind = ""
    context = _queue_context(request.access, status, request.GET.get("page"), problems, kind=kind)
    return render_view(request, PROPOSALS, "queue", context)


def _card_response(request: HtmxHttpRequest, proposal: Proposal, notice: str, undo: Undo | None = None) -> HttpResponse:
    if not request.htmx:
        return done(request, notice, reverse("ui:proposals"))
    proposal.refresh_from_db()
    card = _cards([proposal], request.access)[0]
    return notify(render_view(request, PROPOSALS, "card", {"card": card}), notice, undo=undo)


def _proposal_action(
    request: HtmxHttpRequest, pk: int, call, notice, undo: Undo | None = None, form=None
) -> HttpResponse:
    from memoryhub.consolidation.proposals import source_projects

    proposal = get_scoped(request, Proposal.objects.all(), pk, Action.CURATE, "Proposal")
    # A source moved to a project this person cannot see is never superseded or merged from here.
    if not all(request.access.can(Action.READ, project) for project in source_projects(proposal)):
        return refuse(request, f"Proposal #{pk} has memories you cannot see; nothing was changed.", status=403)
    try:
        result = call(proposal)
    except EmbeddingError as exc:
        return refuse(request, f"Nothing was changed: the embedder failed ({exc}).", status=503)
    except DOMAIN_ERRORS as exc:
        if "choice" in getattr(exc, "error_dict", {}):  # an unknown answer, or one given to a merge
            return refuse(request, f"Proposal #{pk} was not decided. {error_text(exc)}", status=400)
        # A proposal gone or already decided is no fault of the text: said in the notice, as before.
        if form is None or not request.htmx or getattr(exc, "code", None) in ("invalid_state", "not_found"):
            return refuse(request, error_text(exc), status=409)
        # An edited text refused (a secret, noise): the error shows on the card, under the box, which keeps the
        # text to be fixed, unless it held a secret: that never comes back to the page.
        forget_secret_inputs(form)
        form.add_error(None, error_text(exc))
        card = _cards([proposal], request.access)[0] | {"form": form}
        return render_view(request, PROPOSALS, "card", {"card": card}, status=422)
    return _card_response(request, proposal, notice(result) if callable(notice) else notice, undo)


def conflict_notice(pk: int, choice: str, kept: Memory) -> str:
    if choice == ConflictChoice.BOTH:
        return f"Conflict #{pk} decided: both kept, as two different facts."
    return f"Conflict #{pk} decided: keep the {choice} (memory #{kept.pk} is current)."


@dashboard_view
@require_POST
def accept(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    from memoryhub.consolidation.proposals import accept_proposal

    form = AcceptProposalForm(request.POST, prefix=f"p{pk}")
    if not form.is_valid():
        return refuse(
            request, f"Proposal #{pk} was not accepted: " + " ".join(form.errors.get("content", [])), status=422
        )
    content = form.cleaned_data["content"].strip() or None
    # A conflict's answer: newer, both or older; anything else, or any answer to a merge, is refused (400) by
    # `accept_proposal`, never read as "accept the merge".
    choice = request.POST.get("choice") or None
    if choice is not None:
        return _proposal_action(
            request,
            pk,
            lambda p: accept_proposal(proposal=p, choice=choice, actor=actor(request)),
            lambda kept: conflict_notice(pk, choice, kept),
            Undo(reverse("ui:undo", args=[pk]), f"#proposal-{pk}"),
        )
    return _proposal_action(
        request,
        pk,
        lambda p: accept_proposal(proposal=p, content=content, actor=actor(request)),
        lambda merged: f"Proposal #{pk} accepted: merged into memory #{merged.pk}.",
        Undo(reverse("ui:undo", args=[pk]), f"#proposal-{pk}"),
        form,
    )


@dashboard_view
@require_POST
def reject(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    from memoryhub.consolidation.proposals import reject_proposal

    # Rejecting a conflict keeps both (a decision like any other answer to it); every decision has its Undo.
    conflict = Proposal.objects.filter(pk=pk, kind=ProposalKind.CONFLICT).exists()
    return _proposal_action(
        request,
        pk,
        lambda p: reject_proposal(proposal=p, actor=actor(request)),
        f"Conflict #{pk} decided: both kept, as two different facts." if conflict else f"Proposal #{pk} rejected.",
        Undo(reverse("ui:undo", args=[pk]), f"#proposal-{pk}"),
    )


@dashboard_view
@requires(Action.CURATE)
@require_POST
def reject_selected(request: HtmxHttpRequest) -> HttpResponse:
    """Bulk reject: every pending proposal ticked in the queue; the queue comes back without them."""
    from memoryhub.consolidation.proposals import reject_proposals

    try:
        ids = [int(i) for i in request.POST.getlist("selected")]
    except ValueError:
        return refuse(request, "Nothing was rejected: a selected proposal id is not a number.", status=422)
    if not ids:
        return refuse(request, "Nothing was rejected: tick the proposals to reject first.", status=422)
    # Only the proposals the person may decide; any other id is left alone, like one that does not exist.
    ids = list(Proposal.objects.filter(request.access.rows(Action.CURATE), pk__in=ids).values_list("pk", flat=True))
    rejected = reject_proposals(proposal_ids=ids, actor=actor(request))
    n = len(rejected)
    notice = f"{n} proposal{'' if n == 1 else 's'} rejected."
    if not request.htmx:
        return done(request, notice, reverse("ui:proposals"))
    response = render_view(
        request, PROPOSALS, "queue", _queue_context(request.access, ProposalStatus.PENDING, None, [])
    )
    return notify(response, notice)


def _queue_context(access: Access, status: str, page_number, problems: list[str], *, kind: str = "") -> dict:
    visible = selectors.scoped(access, Proposal.objects.all())
    of_kind = visible.filter(kind=kind) if kind else visible
    rows = of_kind if status == "all" else of_kind.filter(status=status)
    page = Paginator(rows.order_by("-created_at", "-id"), 20).get_page(page_number)
    by_status = dict(of_kind.values_list("status").annotate(n=Count("id")).values_list("status", "n"))
    of_status = visible if status == "all" else visible.filter(status=status)
    by_kind = dict(of_status.values_list("kind").annotate(n=Count("id")).values_list("kind", "n"))
    return {
        # Counts on the tabs: how many of each status (for the kind chosen), and of each kind (for the status).
        "status_counts": {s: (sum(by_status.values()) if s == "all" else by_status.get(s, 0)) for s in STATUSES},
        "kinds": [("", "every kind", sum(by_kind.values()))]
        + [(k, f"{k}s", by_kind.get(k, 0)) for k in ProposalKind.values],
        "kind": kind,
        "cards": _cards(list(page.object_list), access),
        "page": page,
        "status": status,
        "statuses": STATUSES,
        "problems": problems,
        # What the person may run a pass for: every project for a hub admin, else the projects they curate.
        "projects": selectors.filter_choices(access)["projects"]
        if access.is_admin
        else access.projects_for(Action.CURATE),
    }


@dashboard_view
@require_POST
def undo(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Undo a decision: a merge is taken apart, a rejected one is pending again; a conflict's answer is taken back
    and the question is open again."""
    from memoryhub.consolidation.proposals import reopen_rejected, undo_proposal
    from memoryhub.memories.supersession import undo_conflict_decision

    def take_back(proposal: Proposal) -> Proposal:
        if proposal.kind == ProposalKind.CONFLICT:
            return undo_conflict_decision(proposal=proposal, actor=actor(request))
        if proposal.status == ProposalStatus.REJECTED:
            return reopen_rejected(proposal=proposal, actor=actor(request))
        return undo_proposal(proposal=proposal, actor=actor(request))

    return _proposal_action(
        request,
        pk,
        take_back,
        lambda p: (
            f"Conflict #{pk} open again: both memories are as they were."
            if p.kind == ProposalKind.CONFLICT
            else f"Merge of proposal #{pk} undone."
        ),
    )


@dashboard_view
@requires(Action.CURATE)
@require_POST
def run_consolidation_pass(request: HtmxHttpRequest) -> HttpResponse:
    from memoryhub.consolidation.proposals import run_consolidation

    form = RunConsolidationForm(request.POST)
    if not form.is_valid():
        return refuse(request, "Consolidation not run: the project name is too long.", status=422)
    project = form.cleaned_data["project"].strip() or None
    check(request, Action.CURATE, project)  # no project: every project and the globals, a hub admin's pass
    try:
        made = run_consolidation(project=project, actor=actor(request))
    except EmbeddingError as exc:
        return refuse(request, f"Consolidation not run: the embedder failed ({exc}).", status=503)
    except DOMAIN_ERRORS as exc:
        return refuse(request, f"Consolidation not run. {error_text(exc)}", status=422)
    notice = f"Consolidation pass done: {len(made)} new proposal{'' if len(made) == 1 else 's'}."
    if not request.htmx:
        return done(request, notice, reverse("ui:proposals"))
    response = render_view(request, PROPOSALS, "queue", _queue_context(request.access, ProposalStatus.PENDING, 1, []))
    response["HX-Push-Url"] = reverse("ui:proposals")
    return notify(response, notice)


# --- gate log --------------------------------------------------------------------------------------------------


@dashboard_view
@require_GET
def gate_log(request: HtmxHttpRequest) -> HttpResponse:
    decision = request.GET.get("decision") or ""
    problems = []
    if decision and decision not in GateDecision.values:
        problems.append(f"Unknown decision “{decision}”; showing every entry.")
        decision = ""
    page = Paginator(selectors.gate_entries(request.access, decision), 50).get_page(request.GET.get("page"))
    context = {"page": page, "decision": decision, "decisions": GateDecision.values, "problems": problems}
    return render_view(request, GATE, "entries", context)


@dashboard_view
@require_POST
def promote(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    from memoryhub.writes.gate import promote_gate_entry

    entry = get_scoped(request, GateLogEntry.objects.all(), pk, Action.CURATE, "Gate log entry")
    try:
        memory = promote_gate_entry(entry=entry, actor=actor(request))
    except EmbeddingError as exc:
        return refuse(request, f"Not promoted: the embedder failed ({exc}).", status=503)
    except DOMAIN_ERRORS as exc:
        return refuse(request, f"Entry #{pk} was not promoted. {error_text(exc)}", status=409)
    notice = f"Promoted to memory #{memory.pk}."
    if not request.htmx:
        return done(request, notice, reverse("ui:gate"))
    entry.refresh_from_db()
    return notify(render_view(request, GATE, "entry", {"entry": entry}), notice)
