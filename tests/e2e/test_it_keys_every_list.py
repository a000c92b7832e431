"""The keyboard on every list page (issue 27): j/k, open, confirm, edit, archive, accept, reject and Esc, with `?`
showing the shortcuts on every page."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from memoryhub.models import Memory, Proposal
from memoryhub.writes.gate import gate_write
from tests.factories import remember

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _proposal(texts: tuple[str, str]) -> Proposal:
    a, b = (remember(t, project="ops") for t in texts)
    return Proposal.objects.create(sources=[a.pk, b.pk], cluster_key=f"{a.pk},{b.pk}", project="ops", content=a.content)


def _start(page):
    page.locator("h1").click()  # keys go to the page, not to a field


@pytest.mark.parametrize(
    "path", ["/", "/proposals/", "/gate/", "/supersessions/", "/decay/", "/overview/", "/activity/"]
)
def test_question_mark_shows_the_shortcuts_on_every_page(dashboard, transactional_db, path):
    page = dashboard.open(path)
    _start(page)
    page.keyboard.press("?")
    expect(page.locator("#shortcuts-dialog")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("#shortcuts-dialog")).to_be_hidden()


def test_keys_open_edit_and_archive_a_memory(dashboard, transactional_db):
    older = remember("The staging database is reset every Sunday night", project="alpha")
    newer = remember("Deploys run through GitHub Actions to Fly.io", project="alpha")
    page = dashboard.open("/")
    _start(page)
    page.keyboard.press("j")
    page.keyboard.press("j")
    expect(page.locator(f"#memory-{older.pk}")).to_have_class(re.compile("is-selected"))
    page.keyboard.press("a")
    expect(page.locator(f"#memory-{older.pk}")).to_have_class(re.compile("is-archived"))
    page.keyboard.press("k")
    page.keyboard.press("e")
    expect(page.locator(f"#memory-{newer.pk} textarea")).to_be_focused()
    page.keyboard.press("Escape")
    page.locator("h1").click()
    page = dashboard.open("/")
    _start(page)
    page.keyboard.press("j")
    page.keyboard.press("o")
    expect(page).to_have_url(re.compile(f"/memories/{newer.pk}/$"))
    assert Memory.objects.get(pk=older.pk).status == "archived"


def test_keys_accept_and_reject_proposals(dashboard, transactional_db):
    first = _proposal(("Use ruff for lint", "Lint with ruff"))
    second = _proposal(("Format the code with black", "Black formats the code"))
    page = dashboard.open("/proposals/")
    _start(page)
    page.keyboard.press("j")
    page.keyboard.press("r")
    expect(page.locator(f"#proposal-{second.pk} .badge").first).to_have_text("rejected")
    page.keyboard.press("j")
    page.keyboard.press("e")
    expect(page.locator(f"#proposal-{first.pk} textarea")).to_be_focused()
    page.locator("h1").click()
    page.keyboard.press("a")
    expect(page.locator(f"#proposal-{first.pk} .badge").first).to_have_text("accepted")
    assert Proposal.objects.get(pk=first.pk).status == "accepted"
    assert Proposal.objects.get(pk=second.pk).status == "rejected"


def test_keys_confirm_on_the_decay_page_and_move_on_the_gate_log(dashboard, transactional_db):
    fading = remember("We once used Jenkins for CI", project="ops", tier="episodic", importance=0.31)
    page = dashboard.open("/decay/")
    _start(page)
    page.keyboard.press("j")
    page.keyboard.press("c")
    expect(page.locator(f"#memory-{fading.pk}")).to_contain_text("confirmed")
    assert Memory.objects.get(pk=fading.pk).confirmed
    refused = gate_write(content="ok", project="ops", source="claude")  # noise: the gate logs its refusal
    page = dashboard.open("/gate/")
    _start(page)
    page.keyboard.press("j")
    expect(page.locator(f"#gate-{refused.log_entry.pk}")).to_have_class(re.compile("is-selected"))


def test_keys_select_two_memories_and_merge_them(dashboard, transactional_db):
    a = remember("The docs site builds with mkdocs material", project="alpha")
    b = remember("Docs are built by mkdocs with the material theme", project="alpha")
    page = dashboard.open("/")
    _start(page)
    for key in ("j", "x", "j", "x", "m"):
        page.keyboard.press(key)
    dialog = page.locator("#merge-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text(f"#{a.pk}")
    expect(dialog).to_contain_text(f"#{b.pk}")


def test_slash_searches_from_any_page(dashboard, transactional_db):
    page = dashboard.open("/proposals/")
    _start(page)
    page.keyboard.press("/")
    expect(page).to_have_url(re.compile(r"/#search$"))
    expect(page.get_by_label("Search memories")).to_be_focused()
