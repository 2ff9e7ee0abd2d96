"""The dashboard in a real browser: the demo accountant's home page shows the demo project's
figures (the API's, in dollars) and what waits, each queue a link to exactly its rows."""

from __future__ import annotations

import pytest

from jobcost.demo.accountant import DEVELOPMENT_PASSWORD, USERNAME
from jobcost.models import Project
from jobcost.selectors.projects import project_rollup
from jobcost.selectors.visible import with_rollups
from tests.browser.conftest import login
from tests.browser.month import cents

pytestmark = pytest.mark.postgres


def test_the_dashboard_shows_the_job_and_links_each_queue_to_its_rows(page, steps, demo):
    login(page, USERNAME, DEVELOPMENT_PASSWORD)
    steps.shot("dashboard")
    project = with_rollups(Project.objects.filter(number="2026-014")).get()
    rollup = project_rollup(project)
    row = page.locator('#dashboard tr[data-project="2026-014"]')

    def figure(name: str) -> int:
        return cents(row.locator(f'td[data-figure="{name}"]').inner_text())

    assert figure("contract") == project.contract_amount == 840_000_000
    assert figure("revised_contract") == rollup.revised_contract
    assert figure("cost_to_date") == rollup.cost_to_date
    assert figure("billed_to_date") == rollup.billed_to_date
    assert figure("over_under_billing") == rollup.over_under_billing
    assert figure("margin") == rollup.revised_contract - rollup.projected_cost
    assert row.locator('td[data-figure="percent_complete"]').inner_text() == (
        f"{rollup.percent_complete:.2f}%"
    )

    queue = page.locator('a[data-queue="pending_change_orders"]')
    count = int(queue.locator(".count").inner_text())
    assert count >= 1  # the demo's CO-003 waits for the owner
    queue.click()
    page.wait_for_selector("#result_list")
    steps.shot("pending change orders")
    assert page.locator("#result_list tbody tr").count() == count

    page.goto("/admin/")
    missing = page.locator('a[data-queue="missing_waivers"]')
    assert int(missing.locator(".count").inner_text()) == 3  # three vendors' waivers are out
    missing.click()
    page.wait_for_selector("#result_list")
    steps.shot("missing waivers")
    assert page.locator("#result_list tbody tr").count() == 3
    assert page.locator("#result_list tbody td.field-status", has_text="Received").count() == 0
