"""The back office on a 1280×800 laptop and a 1440×900 screen, as the demo accountant: no page
scrolls sideways — every list, the pay apps' G703, the budget page, every report — and no table
hides a column in a scrolling box (docs/backoffice/month.md, "Screen width")."""

from __future__ import annotations

import pytest

from jobcost.demo.accountant import DEVELOPMENT_PASSWORD, USERNAME
from jobcost.models import PayApp, Project
from tests.browser.conftest import login

pytestmark = pytest.mark.postgres

SCREENS = [{"width": 1280, "height": 800}, {"width": 1440, "height": 900}]

# What overflows: the page itself, or a box inside the content that scrolls its table
# (`.results` of a list, `.report-scroll` of a report). A text box whose typed value is
# longer than the box is not a layout overflow.
OVERFLOW = """() => {
  const doc = document.documentElement;
  const boxes = [];
  for (const el of document.querySelectorAll('#content *')) {
    if (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT') continue;
    if (el.clientWidth > 1 && el.scrollWidth > el.clientWidth + 1
        && getComputedStyle(el).overflowX !== 'visible') {
      boxes.push(`${el.tagName}.${el.className} ${el.scrollWidth} > ${el.clientWidth}`);
    }
  }
  const tables = [...document.querySelectorAll('#content table')]
    .map(t => t.getBoundingClientRect().right)
    .filter(right => right > doc.clientWidth);
  return {page: doc.scrollWidth, view: doc.clientWidth, boxes, tables};
}"""


def _pages(page) -> list[str]:
    """Every list the accountant's home page links to, each pay app, the budget page and
    every report."""
    page.goto("/admin/")
    lists = page.eval_on_selector_all(
        "#content-main a[href^='/admin/'][href$='/']",
        "links => [...new Set(links.map(a => a.getAttribute('href')))]",
    )
    lists = [url for url in lists if not url.endswith("/add/")]
    project = Project.objects.get(number="2026-014")
    pay_apps = [
        f"/admin/jobcost/payapp/{pk}/change/" for pk in PayApp.objects.values_list("pk", flat=True)
    ]
    reports = [
        "/admin/reports/wip/",
        f"/admin/reports/job-cost/?project={project.pk}",
        "/admin/reports/ap-aging/",
        "/admin/reports/ar-aging/",
        "/admin/reports/retainage/",
    ]
    return [*lists, *pay_apps, f"/admin/jobcost/project/{project.pk}/budget/", *reports]


@pytest.mark.parametrize("screen", SCREENS, ids=lambda s: f"{s['width']}x{s['height']}")
def test_no_page_scrolls_sideways(page, demo, screen):
    page.set_viewport_size(screen)
    login(page, USERNAME, DEVELOPMENT_PASSWORD)
    urls = _pages(page)
    assert len(urls) >= 20, urls
    overflowing = {}
    for url in urls:
        page.goto(url)
        found = page.evaluate(OVERFLOW)
        if found["page"] > found["view"] or found["boxes"] or found["tables"]:
            overflowing[url] = found
    assert overflowing == {}

    # The WIP's earned revenue, billings and over/under billing are all in view.
    page.goto("/admin/reports/wip/")
    for column in ("earned_revenue", "billed_to_date", "over_billing", "under_billing"):
        box = page.locator(f'.report tbody td[data-column="{column}"]').first.bounding_box()
        assert box is not None and box["x"] + box["width"] <= screen["width"], column
    # The invoice list's retainage and net too.
    page.goto("/admin/jobcost/invoice/")
    for column in ("retainage_amount_display", "net_amount_display"):
        box = page.locator(f"#result_list thead th.column-{column}").bounding_box()
        assert box is not None and box["x"] + box["width"] <= screen["width"], column
