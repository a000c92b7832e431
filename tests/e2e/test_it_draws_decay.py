"""The decay page in a browser: a curve for each tier beside the categories' curves, the tier x category grid,
histograms on one count scale, and no text under 12 px (SVG text measured as drawn, at both widths)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from memoryhub.models import Tier
from tests.factories import remember

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SMALLEST_TEXT = """() => {
  const sizes = [];
  for (const el of document.querySelectorAll('main *')) {
    if (!el.childNodes.length || ![...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
    const box = el.getBoundingClientRect();
    if (!box.width || !box.height || el.closest('.visually-hidden, title')) continue;
    let size = parseFloat(getComputedStyle(el).fontSize);
    const svg = el.closest('svg');
    if (svg && svg.viewBox.baseVal && svg.viewBox.baseVal.width) {
      size *= svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    }
    sizes.push([size, el.tagName + ' ' + el.textContent.trim().slice(0, 30)]);
  }
  sizes.sort((a, b) => a[0] - b[0]);
  return sizes[0];
}"""


@pytest.fixture
def mixed(transactional_db):
    remember("Deploys run through GitHub Actions", project="alpha", category="fact", tier="semantic")
    remember("Run pytest with -n auto", project="alpha", category="skill", tier="procedural")
    remember("Yesterday the build broke on a flaky test", project="alpha", category="fact", tier="episodic")
    remember("The user prefers short answers", category="preference", tier="semantic")


def test_a_curve_for_each_tier_and_a_tier_by_category_grid(dashboard, mixed):
    page = dashboard.open("/decay/")
    tier_curves = page.locator("#tier-curves svg")
    expect(tier_curves).to_have_count(len(Tier.values))
    for tier in Tier.values:
        expect(page.locator("#tier-curves")).to_contain_text(tier)
    expect(page.locator("#tier-curves polyline")).to_have_count(3)
    # Each curve says its rate and carries an accessible title.
    titles = page.locator("#tier-curves svg > title").all_text_contents()
    assert all("rate" in t for t in titles) and len(titles) == 3
    expect(page.locator("#curve-charts svg")).to_have_count(9)
    grid = page.locator("#tier-category-grid")
    expect(grid.locator("tbody tr")).to_have_count(3)
    expect(grid.locator("thead")).to_contain_text("fact")
    expect(page.locator("#decay-rule")).to_contain_text("else the tier's")
    # Histograms share their count axis: every chart's top tick is the same number.
    tops = page.eval_on_selector_all(
        "#tier-charts svg, #category-charts svg",
        "svgs => svgs.map(s => [...s.querySelectorAll('text.tick[text-anchor=end]')].map(t => t.textContent).pop())",
    )
    assert len(set(tops)) == 1 and tops[0] == "2", tops
    # Histograms and curves list the categories in the same order.
    hist_order = [t.split(" · ")[0] for t in page.locator("#category-charts .chart-title").all_text_contents()]
    curve_order = [t.split(" · ")[0] for t in page.locator("#curve-charts .chart-title").all_text_contents()]
    assert [c for c in curve_order if c in hist_order] == hist_order
    smallest = page.evaluate(SMALLEST_TEXT)
    assert smallest[0] >= 11.99, smallest


def test_decay_text_is_readable_on_a_phone(browser, live_server, curator, mixed):
    from tests.e2e.conftest import Dashboard

    context = browser.new_context(viewport={"width": 390, "height": 844})
    tab = Dashboard(context.new_page(), live_server.url)
    tab.log_in()
    page = tab.open("/decay/")
    expect(page.locator("#tier-curves svg")).to_have_count(3)
    smallest = page.evaluate(SMALLEST_TEXT)
    assert smallest[0] >= 11.99, smallest
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    tab.screenshot("phone-decay-charts")
    context.close()
    assert not tab.errors
