"""The proposal queue stays honest: a proposal whose memories changed closes itself as `stale` (and shows under
that filter), several proposals are rejected at once, a card warns when its sources differ in a name, number,
time or path, twins that only write a time differently are proposed, and nothing about different people,
numbers or paths is ever proposed as one memory."""

from __future__ import annotations

import json

import pytest

from memoryhub.consolidation.proposals import close_stale_proposals, run_consolidation
from memoryhub.memories.lifecycle import archive
from memoryhub.memories.store import update_memory
from memoryhub.models import Proposal
from tests.ui.conftest import HX, remember


def _proposal(a, b, content=None) -> Proposal:
    return Proposal.objects.create(
        sources=[a.pk, b.pk], cluster_key=f"{a.pk},{b.pk}", project=a.project, content=content or a.content
    )


@pytest.fixture
def pair(db):
    a = remember("The staging database is refreshed every Sunday night", project="ops")
    b = remember("Staging's database gets refreshed each Sunday night", project="ops")
    return a, b


def test_a_proposal_whose_source_was_edited_closes_itself_as_stale(ui, pair):
    a, b = pair
    proposal = _proposal(a, b)
    untouched = _proposal(*[remember(t, project="ops") for t in ("Use ruff for lint", "Lint with ruff")])
    update_memory(memory=b, changes={"content": "Staging is refreshed every Saturday"}, actor="test", action="edited")
    html = ui.get("/proposals/").content.decode()
    proposal.refresh_from_db()
    assert proposal.status == "stale"
    assert f"memory #{b.pk} was edited" in proposal.rationale
    assert f'id="proposal-{proposal.pk}"' not in html and f'id="proposal-{untouched.pk}"' in html
    stale = ui.get("/proposals/?status=stale").content.decode()
    assert f'id="proposal-{proposal.pk}"' in stale and ">stale<" in stale
    untouched.refresh_from_db()
    assert untouched.status == "pending"


def test_an_archived_or_deleted_source_makes_a_proposal_stale_too(db, pair):
    a, b = pair
    first = _proposal(a, b)
    archive(memory_ids=[a.pk], actor="test")
    c = remember("The docs are built with mkdocs", project="ops")
    d = remember("Docs get built by mkdocs", project="ops")
    second = _proposal(c, d)
    d.delete()
    assert set(close_stale_proposals()) == {first.pk, second.pk}
    assert close_stale_proposals() == []  # closed once


def test_bulk_reject_rejects_every_ticked_proposal(ui, pair):
    a, b = pair
    one = _proposal(a, b)
    c, d = remember("Use ruff for lint", project="ops"), remember("Lint with ruff", project="ops")
    two = _proposal(c, d)
    e, f = remember("Tabs in Makefiles", project="ops"), remember("Makefiles need tabs", project="ops")
    kept = _proposal(e, f)
    response = ui.post("/proposals/reject/", {"selected": [one.pk, two.pk]}, **HX)
    assert response.status_code == 200
    assert json.loads(response["HX-Trigger"])["notice"]["text"] == "2 proposals rejected."
    statuses = dict(Proposal.objects.values_list("pk", "status"))
    assert statuses == {one.pk: "rejected", two.pk: "rejected", kept.pk: "pending"}
    assert f'id="proposal-{kept.pk}"' in response.content.decode()
    assert ui.post("/proposals/reject/", {}, **HX).status_code == 422


def test_the_card_warns_when_sources_differ_in_a_number_or_time(ui, db):
    a = remember("The API listens on port 8080 in staging", project="ops")
    b = remember("The API listens on port 8081 in staging", project="ops")
    _proposal(a, b)
    c = remember("Backups run at 3pm every day", project="ops")
    d = remember("Backups run at 15:00 every day", project="ops")
    same_time = _proposal(c, d)
    html = ui.get("/proposals/").content.decode()
    assert "the sources differ in <code>8080</code>, <code>8081</code>" in html
    card = html[html.index(f'id="proposal-{same_time.pk}"') :]
    card = card[: card.index("</article>")]
    assert "Check before accepting" not in card  # 3pm and 15:00 are the same time


def test_twins_that_write_a_time_differently_are_proposed_and_different_things_never(db):
    background = [
        "The frontend is written in TypeScript with React",
        "Use pnpm, not npm, to install packages",
        "Pull requests need one approving review",
    ]
    for text in background:
        remember(text, project="ops")
    twin_a = remember("The nightly database backup starts at 3pm UTC on the main server", project="ops")
    twin_b = remember("The nightly database backup starts at 15:00 UTC on the main server", project="ops")
    apart = [
        remember("Priya prefers tabs over spaces in Python files", project="ops"),
        remember("Oskar prefers tabs over spaces in Python files", project="ops"),
        remember("The API service listens on port 8080 in staging", project="ops"),
        remember("The API service listens on port 9090 in staging", project="ops"),
        remember("The worker settings live in config/worker.toml", project="ops"),
        remember("The worker settings live in config/web.toml", project="ops"),
        remember("The release train leaves at 9am every Monday", project="ops"),
        remember("The release train leaves at 11am every Monday", project="ops"),
    ]
    made = run_consolidation(project="ops", llm=False)
    # Never a merge; an edited value of one statement may be put to a person as a conflict (which is current?).
    clusters = [set(p.sources) for p in made if p.kind == "merge"]
    assert {twin_a.pk, twin_b.pk} in clusters
    assert all(p.kind == "conflict" and len(p.sources) == 2 for p in made if set(p.sources) != {twin_a.pk, twin_b.pk})
    for first, second in zip(apart[::2], apart[1::2], strict=True):
        assert not any({first.pk, second.pk} <= c for c in clusters), (first.content, second.content)
