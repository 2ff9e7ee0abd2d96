"""Reading the money lists costs a bounded number of queries whatever their size
(docs/computations.md): the same count for one row as for 26, with lines, change orders and waivers
around."""

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from jobcost.services.lien_waivers import lien_waiver_create, lien_waiver_update
from jobcost.services.pay_app_payments import pay_app_payment_create
from jobcost.services.pay_apps import pay_app_approve, pay_app_submit, pay_app_update
from tests.factories import (
    CostCodeFactory,
    ProjectFactory,
    make_change_order,
    make_invoice,
    make_job,
    make_pay_app,
)

# Query counts are those of a request that reads its key (the first of a key in a second).
pytestmark = pytest.mark.usefixtures("cold_keys")

MANY = 26
MAX_QUERIES = 8


@pytest.fixture
def job(account):
    return make_job(account, commitment_amount=100_000_000)


def queries(api, path, rows):
    """Read a whole list (limit 100) and return how many queries it took."""
    with CaptureQueriesContext(connection) as ctx:
        response = api.get(path, {"limit": 100})
    assert response.status_code == 200, response.content
    assert len(response.json()["data"]) == rows
    return len(ctx.captured_queries)


def _change_order(job, n):
    make_change_order(
        job.project,
        cost_code=job.codes["03-000" if n % 2 else "09-000"],
        amount=1_000 * (n + 1),
        status="approved" if n % 3 else "draft",
    )


def _invoice(job, n):
    make_invoice(
        job.commitment,
        amount=1_000 + n,
        number=f"Q-{n}",
        invoice_date=datetime.date(2026, 1, 1) + datetime.timedelta(days=n),
        status="approved" if n % 2 else "coded",
    )


@pytest.mark.parametrize(
    "path,add",
    [("/v1/change-orders", _change_order), ("/v1/invoices", _invoice)],
    ids=["change-orders", "invoices"],
)
def test_change_order_and_invoice_lists(api, job, path, add):
    make_pay_app(job.project, "2026-01-01", "2026-01-31")  # invoices get a `pay_app`
    add(job, 0)
    one = queries(api, path, 1)
    for n in range(1, MANY):
        add(job, n)
    assert queries(api, path, MANY) == one
    assert one <= MAX_QUERIES


def test_lien_waiver_list(api, job):
    make_pay_app(job.project, "2026-01-01", "2026-01-31")

    def waiver(n):
        return lien_waiver_create(
            project=job.project,
            vendor=job.vendor,
            commitment=job.commitment,
            type="conditional_progress",
            amount=n,
            through_date=datetime.date(2026, 1, 1 + n),
        )

    make_invoice(job.commitment, amount=5_000, number="W-0", status="approved")  # its waiver
    one = queries(api, "/v1/lien-waivers", 1)
    for n in range(1, MANY):
        waiver(n)
    assert queries(api, "/v1/lien-waivers", MANY) == one
    assert one <= MAX_QUERIES


def test_pay_app_list(api, job):
    """Each pay app has its G703 rows, a change order row from the second on, and waivers
    (some received) in its period, and from the second on the owner's receipts (one or two,
    so `amount_paid` and `amount_remaining` differ from row to row): still one query per
    relation, not per pay app."""
    start = datetime.date(2026, 1, 1)

    def pay_app(n):
        begin = start + datetime.timedelta(days=7 * n)
        make_invoice(
            job.commitment, amount=1_000, number=f"P-{n}", invoice_date=begin, status="approved"
        )
        if n:
            make_change_order(
                job.project, cost_code=job.codes["01-000"], amount=100 * n, status="approved"
            )
        made = make_pay_app(job.project, begin, begin + datetime.timedelta(days=6))
        pay_app_update(pay_app_id=made.pk, lines=[{"item": "1", "this_period": 1_000}])
        pay_app_submit(pay_app_id=made.pk, allow_missing_waivers=True)
        pay_app_approve(pay_app_id=made.pk)
        for receipt in range(min(n, 2)):
            pay_app_payment_create(pay_app_id=made.pk, amount=100 + receipt)

    pay_app(0)
    one = queries(api, "/v1/pay-apps", 1)
    for n in range(1, MANY):
        pay_app(n)
    for waiver in job.project.lien_waivers.order_by("through_date")[: MANY // 2]:
        lien_waiver_update(lien_waiver_id=waiver.pk, changes={"status": "received"})
    assert queries(api, "/v1/pay-apps", MANY) == one
    assert one <= MAX_QUERIES
    rows = api.get("/v1/pay-apps", {"limit": 100}).json()["data"]
    assert sorted({(row["amount_paid"], row["amount_remaining"]) for row in rows}) == [
        (0, 900),
        (100, 800),
        (201, 699),
    ]


def test_pay_app_lines(api, account):
    """One G703 row versus 26 cost-code rows and 4 change-order rows."""
    small = ProjectFactory(account=account, contract_amount=100_000)
    CostCodeFactory(project=small, code="01-000", scheduled_value=100_000)
    one = queries(
        api, f"/v1/pay-apps/{make_pay_app(small, '2026-01-01', '2026-01-31').pk}/lines", 1
    )
    big = ProjectFactory(account=account, contract_amount=MANY * 100_000)
    codes = [
        CostCodeFactory(project=big, code=f"{n:02d}-000", scheduled_value=100_000)
        for n in range(1, MANY + 1)
    ]
    for n in range(4):
        make_change_order(big, cost_code=codes[n], amount=1_000, status="approved")
    pay_app = make_pay_app(big, "2026-01-01", "2026-01-31")
    assert queries(api, f"/v1/pay-apps/{pay_app.pk}/lines", MANY + 4) == one
    assert one <= MAX_QUERIES
