"""The decay page (distributions, curves, what fades next) and the overview (counts and agent usage)."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpResponse
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from memoryhub.memories.checking import expired
from memoryhub.models import GateDecision, ProposalStatus
from memoryhub.people.roles import Access, Action
from ui import charts, decay_figures, selectors
from ui.views.common import (
    DOMAIN_ERRORS,
    HtmxHttpRequest,
    Undo,
    actor,
    dashboard_view,
    done,
    error_text,
    notify,
    refuse,
    render_view,
    requires,
    wants_partial,
)

DECAY = "ui/decay.html"
PROXY_DAYS = 14  # the chat proxy table on the overview: the last two weeks, a row per day and agent
ACTIVITY_DAYS = 30  # the overview's gate and proposal charts


def decay_context(access: Access) -> dict:
    from memoryhub.memories.lifecycle import last_sweep

    threshold = settings.MEMORYHUB_ARCHIVE_THRESHOLD
    everything = selectors.memories_for(access)
    mine = everything.unexpired()  # an expired memory is out of use already: counted apart, below
    counts = decay_figures.tally(memories=mine)
    by_tier = decay_figures.distribution(counts, "tier")
    by_category = decay_figures.distribution(counts, "category")
    peak = charts.shared_peak([by_tier, by_category])  # one count axis for every histogram
    soon, soon_total = decay_figures.falling_soon(within_days=7, memories=mine, below_total=counts.due_now)
    sweep_projects = access.projects_for(Action.SWEEP)
    can_sweep = sweep_projects is None or bool(sweep_projects)
    swept = selectors.memories_for(access, Action.SWEEP)
    return {
        "threshold": threshold,
        "floor": settings.MEMORYHUB_CONFIRMED_FLOOR,
        "default_rate": settings.MEMORYHUB_DECAY_DEFAULT_RATE,
        "active_total": counts.total,
        "tier_charts": [charts.histogram(name, n, threshold, peak) for name, n in by_tier.items()],
        "category_charts": [charts.histogram(name, n, threshold, peak) for name, n in by_category.items()],
        "tier_curves": [
            charts.decay_curve(c["tier"], c["count"], c["start"], c["rate"], threshold)
            for c in decay_figures.tier_curves(counts)
        ],
        "curves": [
            charts.decay_curve(c["category"], c["count"], c["start"], c["rate"], threshold)
            for c in decay_figures.category_curves(counts)
        ],
        "grid": decay_figures.tier_category_grid(counts),
        # What the person's sweep would archive now (a hub admin's: everything; an owner's: their projects' memories,
        # not the globals nor the projects they only view): the same rule as the sweep, counted by the database.
        "can_sweep": can_sweep,
        "due_now": counts.due_now if access.is_admin else decay_figures.tally(memories=swept).due_now,
        "last_sweep": last_sweep(projects=sweep_projects) if can_sweep else None,
        "soon": soon,
        "soon_total": soon_total,
        "archived": decay_figures.recently_archived(memories=mine),
        # Replaced by a newer fact, not faded: counted apart, and never in the charts or a sweep.
        "superseded_total": selectors.nav_counts(access)["superseded"],
        "expired_total": expired(everything).count(),
    }


@dashboard_view
@require_GET
def decay(request: HtmxHttpRequest) -> HttpResponse:
    return render_view(request, DECAY, "body", decay_context(request.access))


PREVIEW_ROWS = 50  # the sweep preview lists the lowest this many; the count says how many go in all


@dashboard_view
@require_GET
def decay_sweep_preview(request: HtmxHttpRequest) -> HttpResponse:
    """The sweep bar: its count, and with ?open=1 the list of what a sweep would archive now (the same rule, read
    only), before anything is archived. Redrawn after every change on the decay page, so the list stays current.
    It computes only the bar (not the page's charts): it is asked for after every Confirm on the page."""
    from memoryhub.memories.lifecycle import last_sweep, sweep_preview

    access = request.access
    if not wants_partial(request):  # a plain link: the whole decay page, with the list open
        context = decay_context(access)
    else:
        context = {"threshold": settings.MEMORYHUB_ARCHIVE_THRESHOLD}
    sweep_projects = access.projects_for(Action.SWEEP)
    can_sweep = sweep_projects is None or bool(sweep_projects)
    context["can_sweep"] = can_sweep
    if can_sweep:
        due_now, lowest = sweep_preview(projects=sweep_projects, limit=PREVIEW_ROWS)
        context |= {"due_now": due_now, "last_sweep": last_sweep(projects=sweep_projects)}
        if request.GET.get("open") == "1":
            context["preview"] = lowest
    else:
        context["due_now"] = decay_figures.tally(memories=selectors.memories_for(access)).due_now
    return render_view(request, DECAY, "sweep_bar", context)


@dashboard_view
@requires(Action.SWEEP)
@require_POST
def decay_sweep(request: HtmxHttpRequest) -> HttpResponse:
    from memoryhub.memories.lifecycle import run_decay_sweep

    try:
        report = run_decay_sweep(actor=actor(request), projects=request.access.projects_for(Action.SWEEP))
    except DOMAIN_ERRORS as exc:
        return refuse(request, f"The decay sweep did not run. {error_text(exc)}", status=409)
    n = len(report.archived)
    notice = f"Decay sweep done: {n} memor{'y' if n == 1 else 'ies'} archived."
    if not request.htmx:
        return done(request, notice, reverse("ui:decay"))
    context = decay_context(request.access) | {"swept": report}
    undo = Undo(reverse("ui:decay_undo_sweep"), "#decay-body") if n else None
    return notify(render_view(request, DECAY, "body", context), notice, undo=undo)


@dashboard_view
@requires(Action.SWEEP)
@require_POST
def decay_undo_sweep(request: HtmxHttpRequest) -> HttpResponse:
    """Undo the last sweep in one action: everything it archived comes back (a history event each)."""
    from memoryhub.memories.lifecycle import undo_last_sweep

    try:
        restored = undo_last_sweep(actor=actor(request), projects=request.access.projects_for(Action.SWEEP))
    except DOMAIN_ERRORS as exc:
        return refuse(request, f"Nothing was undone. {error_text(exc)}", status=409)
    n = len(restored)
    notice = f"Last decay sweep undone: {n} memor{'y' if n == 1 else 'ies'} restored."
    if not request.htmx:
        return done(request, notice, reverse("ui:decay"))
    return notify(render_view(request, DECAY, "body", decay_context(request.access)), notice)


@dashboard_view
@require_GET
def overview(request: HtmxHttpRequest) -> HttpResponse:
    from memoryhub.retrieval.recall import build_recall

    access = request.access
    kinds, agents = selectors.usage_by_agent(access)
    projects = [p for p, _ in selectors.counts_by("project", access)]
    recall_usage = selectors.recall_usage_by_project(access)
    # What an agent gets when it names no size (MEMORYHUB_RECALL_BUDGET_CHARS), build_recall's default.
    budget = settings.MEMORYHUB_RECALL_BUDGET_CHARS
    recall_rows = []
    for project in sorted(projects, key=lambda p: (p != "", p)):
        # Built without a query: nothing is searched, so nothing is reinforced by looking.
        block = build_recall(project=project or None)
        usage = recall_usage.get(project or None)
        recall_rows.append(
            {
                "project": project,
                "chars": len(block.text),
                "fill": min(1.0, len(block.text) / budget),
                "label": f"{len(block.text)} of {budget} characters",
                "memories": len(block.memory_ids),
                "avg_sent": round(usage["avg"]) if usage else None,
                "calls": usage["n"] if usage else 0,
            }
        )
    today = timezone.now().date()
    context = {
        "total": selectors.memories_for(access).count(),
        "by_project": selectors.counts_by("project", access),
        "by_category": selectors.counts_by("category", access),
        "by_tier": selectors.counts_by("tier", access),
        "by_status": selectors.counts_by("status", access),
        "by_confirmed": [("confirmed" if v else "unconfirmed", n) for v, n in selectors.counts_by("confirmed", access)],
        "kinds": kinds,
        "agents": agents,
        "recall_rows": recall_rows,
        "budget": budget,
        "proxy_days": selectors.proxy_usage_by_day(access, days=PROXY_DAYS),
        "proxy_window": PROXY_DAYS,
        "activity_window": ACTIVITY_DAYS,
        "gate_chart": charts.daily_bars(
            "Gate outcomes",
            selectors.gate_outcomes_by_day(access, ACTIVITY_DAYS),
            GateDecision.values,
            today,
            ACTIVITY_DAYS,
        ),
        "proposal_chart": charts.daily_bars(
            "Proposals", selectors.proposals_by_day(access, ACTIVITY_DAYS), ProposalStatus.values, today, ACTIVITY_DAYS
        ),
    }
    return render_view(request, "ui/overview.html", None, context)
