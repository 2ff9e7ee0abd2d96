"""The month-end reports in a real browser: the demo accountant opens Reports from the home
page, reads the WIP schedule (the figures the API reads, totals under them), follows the
project to its job cost report and a cost code to the invoices behind it, and downloads the
job cost report as an Excel workbook whose totals are the page's."""

from __future__ import annotations

import io
from decimal import Decimal

import openpyxl
import pytest

from jobcost.demo.accountant import DEVELOPMENT_PASSWORD, USERNAME
from jobcost.models import Project
from tests.browser.conftest import login
from tests.browser.month import cents
from tests.conftest import Api
from tests.factories import make_key

pytestmark = pytest.mark.postgres


def _cells(page, column: str) -> list[str]:
    return page.locator(f'tr[data-row] td[data-column="{column}"]').all_inner_texts()


def _total(page, column: str) -> int:
    return cents(page.locator(f'tr[data-total] td[data-column="{column}"]').inner_text())


def test_the_accountant_reads_the_month_end_reports(page, steps, demo):
    login(page, USERNAME, DEVELOPMENT_PASSWORD)
    page.get_by_role("link", name="Reports").first.click()
    page.locator("#content-main").get_by_role("link", name="Work-in-progress schedule").click()
    page.wait_for_selector('[data-report="wip"] table')
    steps.shot("wip")

    project = Project.objects.get(number="2026-014")
    expected = Api(make_key(project.account, "viewer")[1]).get("/v1/reports/wip").json()
    row = next(r for r in expected["data"] if r["project"] == project.pk)
    for column in ("revised_contract", "cost_to_date", "earned_revenue", "billed_to_date"):
        assert cents(_cells(page, column)[0]) == row[column], column
        assert _total(page, column) == expected["totals"][column], column

    page.get_by_role("link", name=project.name).click()
    page.wait_for_selector('[data-report="job-cost"] table')
    steps.shot("job cost")
    codes = _cells(page, "code")
    costs = [cents(text) for text in _cells(page, "cost_to_date")]
    assert sum(costs) == _total(page, "cost_to_date") == row["cost_to_date"]
    busiest = codes[costs.index(max(costs))]

    with page.expect_download() as download:
        page.get_by_role("link", name="Excel (XLSX)").click()
    sheet = openpyxl.load_workbook(io.BytesIO(download.value.path().read_bytes()))["Report"]
    rows = list(sheet.iter_rows(values_only=True))
    header, total = rows[0], rows[-1]
    assert total[0] == "Total"
    cost_total = total[header.index("Cost to date")]  # the XLSX heads its columns in words
    assert round(Decimal(str(cost_total)) * 100) == row["cost_to_date"]

    page.get_by_role("link", name=busiest).first.click()
    page.wait_for_selector('[data-report="job-cost-transactions"] table')
    steps.shot("transactions")
    amounts = [cents(text) for text in _cells(page, "amount")]
    assert sum(amounts) == max(costs) == _total(page, "amount")
    page.locator('td[data-column="invoice_number"] a').first.click()
    page.wait_for_url("**/admin/jobcost/invoice/**")
