"""The overview draws gate outcomes and proposals per day over the last 30 days, and links the API docs."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from memoryhub.models import GateLogEntry, Proposal


def test_the_overview_charts_30_days_of_gate_outcomes_and_proposals(ui, db):
    now = timezone.now()
    for days_ago, decision in [(0, "rejected"), (0, "rejected"), (3, "duplicate"), (40, "rejected")]:
        GateLogEntry.objects.create(decision=decision, reason="r", created_at=now - timedelta(days=days_ago))
    Proposal.objects.create(sources=[1, 2], cluster_key="1,2", content="x", status="accepted")
    Proposal.objects.create(sources=[3, 4], cluster_key="3,4", content="y", status="stale")
    html = ui.get("/overview/").content.decode()
    gate = html[html.index('id="gate-chart"') : html.index('id="proposal-chart"')]
    assert "Gate outcomes, last 30 days: 2 rejected, 1 duplicate, 0 merged, 0 warned" in gate  # day 40 is out
    assert gate.count('class="series series-rejected"') == 1  # today's two, stacked in one bar
    assert gate.count('class="series series-duplicate"') == 1
    proposals = html[html.index('id="proposal-chart"') :]
    assert "1 accepted" in proposals and "1 stale" in proposals
    assert 'href="/api/v1/docs"' in html
    assert ui.get("/api/v1/docs").status_code == 200
