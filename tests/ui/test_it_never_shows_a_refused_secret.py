"""The dashboard refuses a secret in every form (edit, re-tag, bulk re-tag, merge, accepting a proposal with new
text) and never shows it back: not in the form it renders again, not in its messages. A plain link to a row (no
htmx) leads to the memory's page instead of failing."""

from __future__ import annotations

import random

import pytest

from bench import secret_holdout as held
from memoryhub.models import Memory, Proposal
from tests.ui.conftest import HX, remember

KEY = held.django_key_lines(1)[0]  # "SECRET_KEY = '<a generated key>'"
LABELS = {c.kind: c for c in held.labelled_secrets(random.Random(25))}
AWS = LABELS["AWS secret key part"]
PASSWORD = next(c for c in held.labelled_secrets() if c.text.startswith("Zq8"))  # a fixed value


def fresh(memory: Memory) -> Memory:
    memory.refresh_from_db()
    return memory


def shown(response, secret: str) -> bool:
    return secret[-12:] in response.content.decode()


@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "plain"])
@pytest.mark.parametrize("case", [AWS, PASSWORD, LABELS["JWT"]], ids=lambda c: c.kind)
def test_re_tagging_with_a_secret_tag_or_project_is_refused_and_the_input_comes_back_empty(ui, store, case, htmx):
    memory = store["pagination"]
    p = f"m{memory.pk}"
    for field in ("add_tags", "project"):
        data = {f"{p}-add_tags": "rest", f"{p}-project": "alpha", f"{p}-category": "fact", f"{p}-tier": ""}
        data |= {f"{p}-{field}": case.text if field == "project" else f"rest, {case.text}"}
        data[f"{p}-version"] = fresh(memory).updated_at.isoformat()
        response = ui.post(f"/memories/{memory.pk}/retag/", data, **(HX if htmx else {}))
        assert response.status_code == 422, field
        assert not shown(response, case.secret), field
        assert "secret" in response.content.decode()
        assert fresh(memory).tags == ["api", "pagination"] and memory.project == "alpha"


def test_editing_the_text_with_a_django_key_is_refused_and_the_textarea_comes_back_empty(ui, store):
    memory = store["deploy"]
    p = f"m{memory.pk}"
    data = {f"{p}-content": f"Deploys sign with {KEY.text}", f"{p}-version": fresh(memory).updated_at.isoformat()}
    response = ui.post(f"/memories/{memory.pk}/edit/", data, **HX)
    assert response.status_code == 422 and not shown(response, KEY.secret)
    assert "Django secret key" in response.content.decode()
    assert fresh(memory).content == "Deploys run through GitHub Actions to Fly.io"


def test_a_secret_tag_in_a_bulk_re_tag_is_refused_without_printing_it(ui, store):
    ids = [store["pagination"].pk, store["deploy"].pk]
    for tags in (f"fine, {AWS.text}", f"fine, {PASSWORD.text}", f"fine, {AWS.text * 2}", f"fine, <{AWS.text}>"):
        response = ui.post(
            "/memories/bulk/", {"action": "retag", "selected": ids, "add_tags": tags, "category": "fact"}, **HX
        )
        assert response.status_code == 422, tags
        assert not shown(response, AWS.secret) and not shown(response, PASSWORD.secret), response.content
        assert Memory.objects.get(pk=ids[0]).tags == ["api", "pagination"]
    response = ui.post(
        "/memories/bulk/",
        {"action": "retag", "selected": ids, "set_project": "1", "project": AWS.text, "category": "__keep__"},
        **HX,
    )
    assert response.status_code == 422 and not shown(response, AWS.secret)
    assert Memory.objects.get(pk=ids[0]).project == "alpha"


@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "plain"])
def test_a_merge_whose_text_or_tags_hold_a_secret_is_refused_and_the_dialog_forgets_them(ui, store, htmx):
    a = store["pagination"]
    b = remember("Every list endpoint pages with a cursor", project="alpha", category="decision", tags=["cursor"])
    for content, tags in ((f"List endpoints page with cursors; {KEY.text}", "api"), ("Cursor pages", AWS.text)):
        response = ui.post(
            "/memories/merge/",
            {"selected": [a.pk, b.pk], "content": content, "category": "decision", "tier": "semantic", "tags": tags},
            **(HX if htmx else {}),
        )
        assert response.status_code == 422
        assert not shown(response, KEY.secret) and not shown(response, AWS.secret)
        assert "secret" in response.content.decode()
    assert Memory.objects.count() == 5 and not Proposal.objects.exists()


def test_accepting_a_proposal_with_a_secret_in_the_edited_text_is_refused_without_echo(ui, db):
    a = remember("Run the shopfront tests with pytest -n auto and --reuse-db", project="shop")
    b = remember("The shopfront tests run with pytest -n auto --reuse-db", project="shop")
    proposal = Proposal.objects.create(
        sources=[a.pk, b.pk], cluster_key=f"{a.pk},{b.pk}", project="shop", category="skill", tier="procedural",
        tags=["testing"], content="Run the shopfront tests with pytest -n auto --reuse-db", rationale="same",
    )  # fmt: skip
    for headers in (HX, {}):
        response = ui.post(
            f"/proposals/{proposal.pk}/accept/", {f"p{proposal.pk}-content": f"Tests need {KEY.text}"}, **headers
        )
        assert response.status_code in (409, 422) and not shown(response, KEY.secret)
        assert "secret" in response.content.decode()
    proposal.refresh_from_db()
    assert proposal.status == "pending"
    page = ui.get("/proposals/")
    assert not shown(page, KEY.secret)


def test_a_plain_link_to_a_row_leads_to_the_memory_page(ui, store):
    memory = store["deploy"]
    response = ui.get(f"/memories/{memory.pk}/row/")
    assert response.status_code == 302 and response["Location"] == f"/memories/{memory.pk}/"
    page = ui.get(response["Location"])
    assert page.status_code == 200 and memory.content in page.content.decode()
    row = ui.get(f"/memories/{memory.pk}/row/", **HX)
    assert row.status_code == 200 and f'id="memory-{memory.pk}"' in row.content.decode()
    assert ui.get("/memories/999999/row/").status_code == 404


def test_a_secret_typed_into_a_choice_field_is_not_quoted_in_the_error(ui, store):
    memory = store["pagination"]
    p = f"m{memory.pk}"
    data = {f"{p}-add_tags": "", f"{p}-project": "alpha", f"{p}-category": AWS.text, f"{p}-tier": ""}
    data[f"{p}-version"] = fresh(memory).updated_at.isoformat()
    response = ui.post(f"/memories/{memory.pk}/retag/", data, **HX)
    assert response.status_code == 422 and not shown(response, AWS.secret)
    bulk = ui.post("/memories/bulk/", {"action": "retag", "selected": [memory.pk], "category": AWS.text}, **HX)
    assert bulk.status_code == 422 and not shown(bulk, AWS.secret)
    assert "held a secret" in bulk.content.decode()  # Django's own message would quote the value
