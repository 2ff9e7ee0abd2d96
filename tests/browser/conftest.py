"""Browser tests: Playwright driving Debian's Chromium against a live server.

The browser is `/usr/bin/chromium` (`JOBCOST_CHROMIUM` overrides it); Playwright never
downloads one. Without it the tests skip with a reason, unless `JOBCOST_REQUIRE_BROWSER=1`
(set by `.ci/run`, which installs the `chromium` package), where a missing browser fails.

Each test gets `page` (1440×900, a fresh context) and `steps`: `steps.shot("name")` marks a
step. When the test fails, the page as it was at the failure and the list of the steps it
passed are written under `var/browser/<test>/` for a person to look at. A full-page screenshot
costs Chromium a tenth of a second or more, about a quarter of the browser tests' time, so the
steps' own screenshots are taken only when asked for: `JOBCOST_BROWSER_STEPS=1` keeps them and
writes them beside the failure's (rerun a failed test so), and `JOBCOST_BROWSER_SHOTS=<folder>`
writes every test's steps there, pass or fail: that is how the screenshots in
`docs/backoffice/img/` are made.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from tests import network

CHROMIUM = os.environ.get("JOBCOST_CHROMIUM", "/usr/bin/chromium")
REQUIRED = os.environ.get("JOBCOST_REQUIRE_BROWSER") == "1"
VIEWPORT = {"width": 1440, "height": 900}
# As the machine's own probe starts it: no sandbox (root), no background traffic, and no name
# resolves but localhost (the live server's), so nothing past loopback is reached.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost",
]
# A page's request anywhere but loopback (the live server) is aborted and fails the test
# (tests/network.py); data: and blob: URLs are not requests to anywhere.
OFF_LOOPBACK = re.compile(
    r"^(?!(https?|wss?)://(localhost|127(\.\d+){3}|\[::1\])(:\d+)?/)[a-z-]+://"
)
SHOTS = Path(settings.BASE_DIR) / "var" / "browser"
# Playwright waits this long for an element or a navigation before failing the test.
TIMEOUT_MS = 15_000


def _why_no_browser() -> str | None:
    if not Path(CHROMIUM).exists():
        return f"no browser at {CHROMIUM} (install Debian's chromium package)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -r requirements.txt)"
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the session.

    Playwright's sync API keeps an event loop in the test thread while it is open, which
    Django's async-safety check takes for async code; the tests are synchronous (the live
    server runs in its own thread), so the check is off while the browser is open."""
    reason = _why_no_browser()
    if reason:
        if REQUIRED:
            pytest.fail(f"JOBCOST_REQUIRE_BROWSER=1 but {reason}")
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    before = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()
    if before is None:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    else:
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = before


# Screenshots of every step, not only of a failure (see the module's docstring).
KEEP_STEPS = bool(
    os.environ.get("JOBCOST_BROWSER_SHOTS") or os.environ.get("JOBCOST_BROWSER_STEPS")
)


class Steps:
    """A test's steps, by name, with their screenshots when KEEP_STEPS; written out when the
    test fails (or, with JOBCOST_BROWSER_SHOTS, always)."""

    def __init__(self, page) -> None:
        self.page = page
        self.names: list[str] = []
        self.kept: list[tuple[str, bytes]] = []

    def shot(self, name: str) -> None:
        """Mark the step; with KEEP_STEPS, keep a full-page screenshot of the page now."""
        self.names.append(name)
        if KEEP_STEPS:
            self.kept.append((name, self.page.screenshot(full_page=True)))

    def write(self, folder: Path, *, failed: bool = True) -> None:
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True, exist_ok=True)
        for number, (name, png) in enumerate(self.kept, start=1):
            (folder / f"{number:02d}-{_slug(name)}.png").write_bytes(png)
        if not failed:
            return
        passed = "".join(f"{number:02d} {name}\n" for number, name in enumerate(self.names, 1))
        (folder / "steps.txt").write_text(passed or "(no step reached)\n")
        try:
            self.page.screenshot(path=str(folder / "failure.png"), full_page=True)
        except Exception as exc:  # the page may be gone; the kept steps still help
            (folder / "failure.txt").write_text(f"No screenshot at the failure: {exc}\n")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")[:80] or "step"


@pytest.fixture
def page(browser, live_server, request):
    """A fresh 1440×900 page whose relative URLs go to the live server."""
    context = browser.new_context(viewport=VIEWPORT, base_url=live_server.url)
    context.set_default_timeout(TIMEOUT_MS)

    def refuse(route):
        network.record(f"the browser asked for {route.request.url}")
        route.abort("blockedbyclient")

    context.route(OFF_LOOPBACK, refuse)
    page = context.new_page()
    page.steps = Steps(page)
    yield page
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed:
        page.steps.write(SHOTS / _slug(request.node.name))
    elif os.environ.get("JOBCOST_BROWSER_SHOTS") and page.steps.kept:
        folder = Path(os.environ["JOBCOST_BROWSER_SHOTS"]) / _slug(request.node.name)
        page.steps.write(folder, failed=False)
    context.close()


@pytest.fixture
def steps(page) -> Steps:
    """`steps.shot("name")`: keep a screenshot of this step (written only on failure)."""
    return page.steps


@pytest.fixture
def demo(transactional_db):
    """The demo job (`seed_demo`), with the demo accountant, in the live server's database."""
    call_command("seed_demo", verbosity=0)


def login(page, username: str, password: str) -> None:
    """Sign in on the admin's login page and wait for the home page."""
    page.goto("/admin/login/?next=/admin/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/admin/")
