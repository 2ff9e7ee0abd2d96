"""The invoice list at 1440×900 as the demo accountant: every money column in view without
scrolling, the totals row equal to the rows' sum, and a vendor filter narrowing both."""

from __future__ import annotations

import pytest

from jobcost.demo.accountant import DEVELOPMENT_PASSWORD, USERNAME
from tests.browser.conftest import VIEWPORT, login
from tests.browser.month import cents

pytestmark = pytest.mark.postgres

MONEY = ("amount_display", "retainage_amount_display", "net_amount_display")


def _column_sum(page, name: str) -> int:
    return sum(
        cents(cell)
        for cell in page.locator(f"#result_list tbody td.field-{name}").all_inner_texts()
    )


def test_the_invoice_list_shows_its_money_and_totals_in_view(page, steps, demo):
    login(page, USERNAME, DEVELOPMENT_PASSWORD)
    page.goto("/admin/jobcost/invoice/")
    steps.shot("invoices")

    for name in MONEY:
        header = page.locator(f"#result_list thead th.column-{name}").bounding_box()
        assert header is not None, name
        assert header["x"] + header["width"] <= VIEWPORT["width"], (name, header)
        total = page.locator(f'#result_list tfoot td[data-total="{name}"]').inner_text()
        assert cents(total) == _column_sum(page, name), name

    vendor = "Granite Ridge Concrete, Inc."
    page.locator("#changelist-filter").get_by_role("link", name=vendor).click()
    page.wait_for_url("**vendor__id__exact=*")
    steps.shot("one vendor")
    rows = page.locator("#result_list tbody tr")
    assert rows.count() >= 1
    assert set(page.locator("#result_list tbody td.field-vendor").all_inner_texts()) == {vendor}
    total = page.locator('#result_list tfoot td[data-total="amount_display"]').inner_text()
    assert cents(total) == _column_sum(page, "amount_display")
