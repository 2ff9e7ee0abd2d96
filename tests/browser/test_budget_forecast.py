"""The month's forecast in a real browser: the demo accountant opens the demo project's
budget from its page, raises one line's cost to complete and sees its projected cost,
variance and the totals move by exactly that amount."""

from __future__ import annotations

from decimal import Decimal

import pytest

from jobcost.demo.accountant import DEVELOPMENT_PASSWORD, USERNAME
from tests.browser.conftest import login
from tests.browser.month import cents

pytestmark = pytest.mark.postgres


def _figure(page, code: str | None, column: str) -> int:
    row = (
        page.locator("tr[data-total]") if code is None else page.locator(f'tr[data-code="{code}"]')
    )
    return cents(row.locator(f'td[data-column="{column}"]').inner_text())


def test_the_accountant_revises_a_cost_to_complete(page, steps, demo):
    login(page, USERNAME, DEVELOPMENT_PASSWORD)
    page.goto("/admin/jobcost/project/")
    page.locator("#result_list tbody tr").first.get_by_role("link").first.click()
    page.get_by_role("link", name="Budget and forecast").click()
    page.wait_for_selector("#budget-forecast")
    steps.shot("budget")

    code = "09-200"
    box = page.locator(f'tr[data-code="{code}"] input[name^="ctc-"]')
    before_ctc = int(Decimal(box.input_value()) * 100)
    before = {c: _figure(page, code, c) for c in ("projected_cost", "variance")}
    totals = {c: _figure(page, None, c) for c in ("projected_cost", "variance")}

    box.fill(f"{(before_ctc + 2_500_000) / 100:.2f}")
    page.get_by_role("button", name="Save").click()
    page.wait_for_selector("text=cost to complete saved")
    steps.shot("saved")

    assert _figure(page, code, "projected_cost") == before["projected_cost"] + 2_500_000
    assert _figure(page, code, "variance") == before["variance"] - 2_500_000
    assert _figure(page, None, "projected_cost") == totals["projected_cost"] + 2_500_000
    assert _figure(page, None, "variance") == totals["variance"] - 2_500_000
