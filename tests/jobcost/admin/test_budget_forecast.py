"""The project's budget and forecast page and a commitment's ledger in the back office
(docs/backoffice/budget.md)."""

from __future__ import annotations

import re

import pytest
from django.contrib.admin.utils import quote
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from audit.models import AuditEntry
from jobcost.models import BudgetLine
from tests.conftest import Api
from tests.factories import AccountFactory, CostCodeFactory, make_invoice, make_job, make_key
from tests.jobcost.admin.pages import member_client


@pytest.fixture
def money(db):
    """`make_job`: budgets 01-000 $18,000.00, 03-000 $45,000.00 (a $10,000.00 subcontract),
    09-000 $27,000.00; an approved $3,000.00 invoice on 03-000."""
    account = AccountFactory(name="Harbor Build Co")
    job = make_job(account)
    job.account = account
    make_invoice(job.commitment, amount=300_000, number="A-1", status="approved")
    return job


def budget_url(project) -> str:
    return reverse("admin:jobcost_project_budget", args=[quote(project.pk)])


def ledger_url(commitment) -> str:
    return reverse("admin:jobcost_commitment_ledger", args=[quote(commitment.pk)])


def _cell(page, code: str, column: str) -> str:
    body = page.content.decode()
    row = re.search(rf'<tr data-code="{re.escape(code)}"[^>]*>(.*?)</tr>', body, re.S).group(1)
    cell = re.search(rf'data-column="{column}">(.*?)</td>', row, re.S).group(1)
    box = re.search(r'value="([^"]*)"', cell)
    return box.group(1) if box else re.sub(r"<[^>]+>", "", cell).strip()


def _total(page, column: str) -> str:
    body = page.content.decode()
    row = re.search(r"<tr data-total>(.*?)</tr>", body, re.S).group(1)
    return re.search(rf'data-column="{column}">([^<]*)</td>', row).group(1)


def _line(job, code: str) -> BudgetLine:
    return BudgetLine.objects.get(cost_code=job.codes[code])


def test_typed_costs_to_complete_move_projected_cost_and_variance(web, money):
    page = web.get(budget_url(money.project))
    assert page.status_code == 200
    # 03-000: committed $10,000.00 < revised $45,000.00, cost to date $3,000.00: computed
    # cost to complete $42,000.00, projected $45,000.00, variance $0.00.
    assert _cell(page, "03-000", "cost_to_complete") == "42000.00"
    assert _cell(page, "03-000", "variance") == "$0.00"

    saved = web.post(
        budget_url(money.project),
        {
            f"ctc-{_line(money, '03-000').pk}": "47,500.00",
            f"ctc-{_line(money, '09-000').pk}": "20000",
        },
        follow=True,
    )

    assert saved.status_code == 200
    assert _cell(saved, "03-000", "projected_cost") == "$50,500.00"
    assert _cell(saved, "03-000", "variance") == "($5,500.00)"
    assert _cell(saved, "09-000", "variance") == "$7,000.00"
    # Totals: revised $90,000.00; projected $18,000.00 + $50,500.00 + $20,000.00.
    assert _total(saved, "projected_cost") == "$88,500.00"
    assert _total(saved, "variance") == "$1,500.00"
    assert _line(money, "03-000").cost_to_complete_estimate == 4_750_000
    assert _line(money, "09-000").cost_to_complete_estimate == 2_000_000
    api = Api(make_key(money.account, "viewer")[1])
    shown = api.get(f"/v1/budgets/{_line(money, '03-000').pk}").json()
    assert (shown["projected_cost"], shown["variance"]) == (5_050_000, -550_000)
    entries = AuditEntry.objects.filter(target_type="budget_line", actor_type="user")
    assert entries.count() == 2


def test_a_refused_line_writes_nothing_and_the_page_shows_stored_figures(web, money):
    audit_before = AuditEntry.objects.count()
    good, bad = _line(money, "03-000"), _line(money, "09-000")

    refused = web.post(
        budget_url(money.project), {f"ctc-{good.pk}": "47500", f"ctc-{bad.pk}": "-5"}
    )

    assert refused.status_code == 200
    body = refused.content.decode()
    assert "Nothing was saved" in body
    assert re.search(r'<tr data-code="09-000" class="refused">', body)
    assert _cell(refused, "03-000", "projected_cost") == "$45,000.00"  # stored, not typed
    assert _line(money, "03-000").cost_to_complete_estimate is None
    assert AuditEntry.objects.count() == audit_before


def test_clearing_a_box_returns_the_line_to_its_computed_value(web, money):
    line = _line(money, "03-000")
    web.post(budget_url(money.project), {f"ctc-{line.pk}": "50000"})
    assert _line(money, "03-000").cost_to_complete_estimate == 5_000_000

    web.post(budget_url(money.project), {f"ctc-{line.pk}": ""})

    assert _line(money, "03-000").cost_to_complete_estimate is None


def test_a_viewer_reads_the_forecast_and_cannot_save(money):
    viewer = member_client(money.account, "viewer")
    page = viewer.get(budget_url(money.project))
    assert page.status_code == 200
    assert 'name="ctc-' not in page.content.decode()
    line = _line(money, "03-000")
    assert viewer.post(budget_url(money.project), {f"ctc-{line.pk}": "1"}).status_code == 403
    assert _line(money, "03-000").cost_to_complete_estimate is None


def test_another_accounts_pages_are_404(money):
    stranger = member_client(AccountFactory(name="Ridgeline"), "manager")
    line = _line(money, "03-000")
    assert stranger.get(budget_url(money.project)).status_code == 404
    assert stranger.post(budget_url(money.project), {f"ctc-{line.pk}": "1"}).status_code == 404
    assert stranger.get(ledger_url(money.commitment)).status_code == 404
    assert _line(money, "03-000").cost_to_complete_estimate is None


def _queries(client, url) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


def test_the_forecast_costs_the_same_queries_for_3_or_20_lines(web, money):
    before = _queries(web, budget_url(money.project))
    for index in range(17):
        CostCodeFactory(project=money.project, code=f"20-{index:03d}", budget_amount=1_000)
    assert _queries(web, budget_url(money.project)) == before


def test_the_ledger_lists_the_commitments_records_with_the_apis_figures(web, money):
    make_invoice(money.commitment, amount=100_000, number="A-2", status="paid")
    make_invoice(money.commitment, amount=50_000, number="A-3")
    api = Api(make_key(money.account, "viewer")[1]).get(f"/v1/commitments/{money.commitment.pk}")

    page = web.get(ledger_url(money.commitment))

    body = page.content.decode()
    figures = dict(re.findall(r'data-figure="(\w+)">([^<]*)<', body))
    shown = api.json()
    assert figures["billed_to_date"] == "$4,000.00" and shown["billed_to_date"] == 400_000
    assert figures["remaining"] == "$6,000.00" and shown["remaining"] == 600_000
    assert figures["retainage_held"] == "$400.00"
    assert figures["paid"] == "$900.00"
    assert re.search(r'data-total="amount">\$4,000.00<', body)
    for number in ("A-1", "A-2", "A-3"):
        assert f">{number}</a>" in body
