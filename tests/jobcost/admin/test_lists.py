"""Lists an accountant works from (docs/backoffice/lists.md): filters by project, status,
vendor and date ranges, search by numbers, codes and names, newest first, and a totals row
for the money columns of the whole filtered list, in dollars."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from jobcost.admin.display import accounting
from jobcost.admin.invoices import InvoiceAdmin
from jobcost.models import Invoice
from tests.factories import AccountFactory, VendorFactory, make_change_order, make_invoice, make_job
from tests.jobcost.admin.pages import results_text

INVOICES = "/admin/jobcost/invoice/"
CHANGE_ORDERS = "/admin/jobcost/changeorder/"


@pytest.fixture
def books(db):
    account = AccountFactory(name="Harbor Build Co")
    job = make_job(account, commitment_amount=5_000_000)
    for number, amount, day in (
        ("A-1", 100_000, "2026-01-10"),
        ("A-2", 250_050, "2026-02-12"),
        ("A-3", 12_345, "2026-03-05"),
    ):
        make_invoice(job.commitment, amount=amount, number=number, invoice_date=day)
    return job


def _totals(response) -> dict[str, str]:
    body = response.content.decode()
    row = re.search(r"<tr data-totals>(.*?)</tr>", body, re.S)
    assert row, "no totals row"
    cells = dict(re.findall(r'data-total="(\w+)">([^<]*)</td>', row.group(1)))
    cells["label"] = re.search(r"<th[^>]*>([^<]*)</th>", row.group(1)).group(1)
    return cells


def _numbers(response) -> list[str]:
    return re.findall(r'<th class="field-number"><a [^>]*>([^<]+)</a>', response.content.decode())


def test_invoices_are_newest_first_with_totals_of_the_filtered_list(web, books):
    response = web.get(INVOICES)

    assert _numbers(response) == ["A-3", "A-2", "A-1"]
    totals = _totals(response)
    # $1,000.00 + $2,500.50 + $123.45; retainage 10 % of each, rounded per invoice.
    assert totals["amount_display"] == "$3,623.95"
    retainage = sum(Invoice.objects.values_list("retainage_amount", flat=True))
    assert totals["retainage_amount_display"] == accounting(retainage) == "$362.40"
    assert totals["net_amount_display"] == "$3,261.55"
    assert totals["label"] == "Total (3 rows)"


def test_the_totals_cover_every_filtered_row_not_only_the_page(web, books, monkeypatch):
    monkeypatch.setattr(InvoiceAdmin, "list_per_page", 2)
    response = web.get(INVOICES)

    assert len(_numbers(response)) == 2
    assert _totals(response)["amount_display"] == "$3,623.95"


def test_a_date_range_narrows_the_list_and_its_totals(web, books):
    response = web.get(
        INVOICES,
        {"invoice_date__range__gte": "2026-02-01", "invoice_date__range__lte": "2026-03-31"},
    )

    assert _numbers(response) == ["A-3", "A-2"]
    assert _totals(response)["amount_display"] == "$2,623.95"


def test_filter_by_vendor_and_search_by_commitment_and_project(web, books):
    other_vendor = VendorFactory(account=books.project.account, name="Summit Steel")
    by_vendor = web.get(INVOICES, {"vendor__id__exact": other_vendor.pk})
    assert _numbers(by_vendor) == []
    assert "0 invoices" in by_vendor.content.decode()

    by_commitment = web.get(INVOICES, {"q": books.commitment.number})
    assert _numbers(by_commitment) == ["A-3", "A-2", "A-1"]
    by_project = web.get(INVOICES, {"q": books.project.number})
    assert len(_numbers(by_project)) == 3
    assert "A-1" in results_text(web.get(INVOICES, {"q": "A-1"}))


def test_a_deduction_reads_in_parentheses_and_counts_in_the_total(web, books):
    make_change_order(books.project, cost_code=books.codes["03-000"], amount=600_000)
    make_change_order(books.project, cost_code=books.codes["09-000"], amount=-123_450)

    response = web.get(CHANGE_ORDERS)

    assert "($1,234.50)" in results_text(response)
    assert _totals(response)["amount_display"] == "$4,765.50"


def _queries(web, url) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert web.get(url).status_code == 200
    return len(captured)


def test_the_invoice_list_costs_the_same_queries_for_3_or_30_rows(web, books):
    before = _queries(web, INVOICES)
    for index in range(27):
        make_invoice(
            books.commitment, amount=1_000 + index, number=f"B-{index}", invoice_date="2026-04-01"
        )
    other = make_job(AccountFactory())
    make_invoice(other.commitment, amount=5, number="X", invoice_date="2026-04-01")
    assert _queries(web, INVOICES) == before
