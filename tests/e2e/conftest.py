"""Headless Chromium (Debian's, driven by Playwright) against the dashboard served on 127.0.0.1 by live_server.

The server runs in a thread of this process and shares the test database, so a test arranges the store with the
domain functions, acts in the browser, and checks the store with the ORM.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.dashboard_fixtures import _fresh_test_state, create_curator  # noqa: F401 (autouse)

CHROMIUM = os.environ.get("MEMORYHUB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PASSWORD = "a-long-e2e-password"


@pytest.fixture(scope="package")
def browser():
    """One Chromium for the browser tests, closed when they are done.

    Playwright's sync API keeps an event loop running in this thread while it is open, and Django then refuses the
    synchronous ORM calls the tests make to arrange and check the store. DJANGO_ALLOW_ASYNC_UNSAFE lets them through
    for exactly that span (this package), so no other test, and no subprocess another test starts, runs with it.
    """
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium (scripts/test.sh does it)")
    with pytest.MonkeyPatch.context() as patch, sync_playwright() as playwright:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def curator(transactional_db):
    return create_curator(PASSWORD)


class Dashboard:
    """A logged-in browser tab, with the console errors it saw (a CSP violation or a script error fails a test)."""

    def __init__(self, page, base_url: str):
        self.page = page
        self.base_url = base_url
        self.errors: list[str] = []
        page.on("console", lambda msg: self.errors.append(msg.text) if msg.type == "error" else None)
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        page.on("dialog", lambda dialog: dialog.accept())  # hx-confirm asks; the person says yes

    def open(self, path: str):
        self.page.goto(self.base_url + path)
        return self.page

    def log_in(self, username: str = "curator", password: str = PASSWORD, next_path: str = "/"):
        page = self.open(f"/login/?next={next_path}")
        page.get_by_label("Username").fill(username)
        page.get_by_label("Password").fill(password)
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(self.base_url + next_path)
        return page

    def screenshot(self, name: str) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path


@contextmanager
def logged_in_tab(browser, base_url: str, width: int = 1440, height: int = 900) -> Iterator[Dashboard]:
    """A tab of its own browser context, logged in as the curator; closed after, and failing on console errors."""
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(15_000)
    tab = Dashboard(context.new_page(), base_url)
    tab.log_in()
    yield tab
    context.close()
    assert not tab.errors, f"the browser console reported errors: {tab.errors}"


@pytest.fixture
def dashboard(browser, live_server, curator):
    with logged_in_tab(browser, live_server.url) as tab:
        yield tab
