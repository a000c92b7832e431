"""Dense rows (issue 27): many memories on the first screen, one line each, the text taking the width, the primary
action in sight and the rest in the row's menu; on a phone the filters fold behind "Filters (n)"."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import PASSWORD
from tests.factories import remember

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1440, "height": 900}
PHONE = {"width": 390, "height": 844}
TOPICS = ("billing", "checkout", "search", "ledger", "mail", "auth", "cache", "queue", "deploys", "metrics")


@pytest.fixture
def many(transactional_db):
    made = []
    for n in range(30):
        topic = TOPICS[n % len(TOPICS)]
        made.append(
            remember(
                f"Memory {n}: the {topic} service keeps its settings in config/{topic}.toml and reloads them on SIGHUP "
                f"without dropping open connections, which the on-call runbook relies on during incidents",
                project=("alpha", "beta", "gamma", "delta")[n % 4],
                category="fact",
                tags=[topic, "ops"],
            )
        )
    return made


def _tab(browser, live_server, viewport):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.goto(live_server.url + "/login/?next=/")
    page.get_by_label("Username").fill("curator")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(live_server.url + "/")
    return page


def _rows_on_first_screen(page, height: int) -> int:
    return page.eval_on_selector_all(
        "tr.memory-row", f"rows => rows.filter(r => r.getBoundingClientRect().bottom <= {height}).length"
    )


def test_a_desktop_shows_at_least_twelve_memories_one_line_each(browser, live_server, curator, many):
    page = _tab(browser, live_server, DESKTOP)
    expect(page.locator("tr.memory-row").first).to_be_visible()
    shown = _rows_on_first_screen(page, DESKTOP["height"])
    page.screenshot(path="test-artifacts/desktop-dense-list.png")
    assert shown >= 12, f"{shown} memories on the first screen"
    row = page.locator(f"#memory-{many[-1].pk}")
    text = row.locator(".content-text")
    line = float(text.evaluate("e => parseFloat(getComputedStyle(e).lineHeight)"))
    assert text.bounding_box()["height"] <= line * 1.3  # one line of text
    assert text.bounding_box()["width"] > DESKTOP["width"] * 0.4  # the text gets the width
    expect(row.get_by_role("button", name="Confirm")).to_be_visible()  # the primary action
    archive = row.get_by_role("button", name="Archive")
    expect(archive).to_be_hidden()
    row.get_by_role("button", name=f"Actions on memory #{many[-1].pk}").click()
    expect(archive).to_be_visible()
    page.context.close()


def test_a_phone_shows_at_least_three_memories_with_filters_folded(browser, live_server, curator, many):
    page = _tab(browser, live_server, PHONE)
    expect(page.locator("tr.memory-row").first).to_be_visible()
    project = page.get_by_label("Project", exact=True)
    expect(project).to_be_hidden()
    shown = _rows_on_first_screen(page, PHONE["height"])
    page.screenshot(path="test-artifacts/phone-dense-list.png")
    assert shown >= 3, f"{shown} memories on the first screen"
    page.get_by_role("button", name="Filters (0)").click()
    expect(project).to_be_visible()
    project.select_option("alpha")
    expect(page.locator("tr.memory-row")).to_have_count(8)
    page.goto(live_server.url + "/?project=alpha&category=fact")
    expect(page.get_by_role("button", name="Filters (2)")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
    page.context.close()
