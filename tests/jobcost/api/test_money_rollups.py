"""docs/computations.md rollups after money moves, every figure computed by hand (cents).

`earned_revenue` is revised_contract × cost_to_date / projected_cost, exact, rounded once to
the cent half away from zero (docs/decisions.md), not from the two-decimal `percent_complete`."""

from decimal import Decimal

import pytest

from tests.factories import CommitmentFactory, VendorFactory, make_job


@pytest.fixture
def job(account):
    """make_job with SC-001 (Acme, 03-000) of 4,000,000 plus PO-001 (Beta, 09-000) of
    3,000,000 — 300,000 more than 09-000's budget of 2,700,000."""
    job = make_job(account, commitment_amount=4_000_000)
    job.supplier = VendorFactory(account=account, name="Beta Tile")
    job.po = CommitmentFactory(
        project=job.project,
        vendor=job.supplier,
        cost_code=job.codes["09-000"],
        type="purchase_order",
        original_amount=3_000_000,
        executed=True,
    )
    return job


def post_ok(api, path, body=None):
    response = api.post(path, body or {})
    assert response.status_code in (200, 201), response.content
    return response.json()


def approved_invoice(api, commitment, cost_code, amount, number, day="2026-01-20"):
    invoice = post_ok(
        api,
        "/v1/invoices",
        {"commitment": commitment.pk, "number": number, "invoice_date": day, "amount": amount},
    )
    coded = api.patch(
        f"/v1/invoices/{invoice['id']}", {"lines": [{"cost_code": cost_code.pk, "amount": amount}]}
    )
    assert coded.status_code == 200, coded.content
    return post_ok(api, f"/v1/invoices/{invoice['id']}/approve")


def budgets(api, job):
    rows = api.get("/v1/budgets", {"project": job.project.pk}).json()["data"]
    by_id = {row["cost_code"]: row for row in rows}
    keys = ("revised_amount", "committed", "actual", "cost_to_complete", "projected_cost")
    return {
        code: tuple(by_id[cc.pk][k] for k in (*keys, "variance")) for code, cc in job.codes.items()
    }


def project_figures(api, job):
    body = api.get(f"/v1/projects/{job.project.pk}").json()
    return {
        "revised_contract": body["revised_contract"],
        "cost_to_date": body["cost_to_date"],
        "projected_cost": body["projected_cost"],
        "percent_complete": Decimal(str(body["percent_complete"])),
        "projected_margin_pct": Decimal(str(body["projected_margin_pct"])),
        "earned_revenue": body["earned_revenue"],
        "billed_to_date": body["billed_to_date"],
        "over_under_billing": body["over_under_billing"],
    }


def balances(api, commitment):
    body = api.get(f"/v1/commitments/{commitment.pk}").json()
    return body["revised_amount"], body["billed_to_date"], body["remaining"]


def test_rollups_after_change_orders_invoices_and_a_submitted_pay_app(api, job):
    """Moves: owner CO-001 +600,000 on 03-000 (budget +540,000); CCO-001 +500,000 on SC-001;
    invoices approved: 1,500,000 on SC-001 → 03-000, 1,200,000 on PO-001 → 09-000; one of
    250,000 only coded (counts nowhere); 01-000's cost_to_complete PATCHed to 1,900,000.

    Budget  revised    committed  actual     ctc                            projected  var
    01-000  1,800,000  0          0          1,900,000 (estimate)           1,900,000  −100,000
    03-000  5,040,000  4,500,000  1,500,000  max(5,040,000; 4,500,000) − a  5,040,000  0
                                             = 3,540,000
    09-000  2,700,000  3,000,000  1,200,000  max(2,700,000; 3,000,000) − a  3,000,000  −300,000
                                             = 1,800,000
    Project: revised_contract 10,600,000; cost_to_date 2,700,000; projected_cost 9,940,000;
    percent_complete 2,700,000 / 9,940,000 = 27.16 %; margin 660,000 / 10,600,000 = 6.23 %;
    earned 10,600,000 × 2,700,000 / 9,940,000 = 2,879,275.65… → 2,879,276 (the rounded 27.16 %
    would give 2,878,960).
    Commitments: SC-001 4,500,000 revised, 1,500,000 billed, 3,000,000 remaining; PO-001
    3,000,000, 1,200,000, 1,800,000.
    Pay app #1 (Jan, CO-001 lands on it): 500,000 + 1,500,000 + (1,000,000 work + 200,000
    stored) + 200,000 = 3,400,000. Draft: billed 0, under-billed −2,879,276. Submitted:
    billed 3,400,000, over-billed 3,400,000 − 2,879,276 = 520,724."""
    codes = job.codes
    co = post_ok(
        api,
        "/v1/change-orders",
        {
            "project": job.project.pk,
            "kind": "owner",
            "title": "Added footing",
            "amount": 600_000,
            "lines": [
                {"cost_code": codes["03-000"].pk, "amount": 600_000, "budget_amount": 540_000}
            ],
        },
    )
    post_ok(api, f"/v1/change-orders/{co['id']}/approve")
    cco = post_ok(
        api,
        "/v1/change-orders",
        {
            "project": job.project.pk,
            "kind": "commitment",
            "commitment": job.commitment.pk,
            "title": "Extra pour",
            "amount": 500_000,
            "lines": [{"cost_code": codes["03-000"].pk, "amount": 500_000}],
        },
    )
    post_ok(api, f"/v1/change-orders/{cco['id']}/approve")
    approved_invoice(api, job.commitment, codes["03-000"], 1_500_000, "A-1")
    approved_invoice(api, job.po, codes["09-000"], 1_200_000, "B-1")
    coded_only = post_ok(
        api,
        "/v1/invoices",
        {
            "commitment": job.commitment.pk,
            "number": "A-2",
            "invoice_date": "2026-01-25",
            "amount": 250_000,
        },
    )
    api.patch(
        f"/v1/invoices/{coded_only['id']}",
        {"lines": [{"cost_code": codes["03-000"].pk, "amount": 250_000}]},
    )
    budget_01 = api.get("/v1/budgets", {"cost_code": codes["01-000"].pk}).json()["data"][0]
    assert (
        api.patch(f"/v1/budgets/{budget_01['id']}", {"cost_to_complete": 1_900_000}).status_code
        == 200
    )

    assert budgets(api, job) == {
        "01-000": (1_800_000, 0, 0, 1_900_000, 1_900_000, -100_000),
        "03-000": (5_040_000, 4_500_000, 1_500_000, 3_540_000, 5_040_000, 0),
        "09-000": (2_700_000, 3_000_000, 1_200_000, 1_800_000, 3_000_000, -300_000),
    }
    assert balances(api, job.commitment) == (4_500_000, 1_500_000, 3_000_000)
    assert balances(api, job.po) == (3_000_000, 1_200_000, 1_800_000)
    expected = {
        "revised_contract": 10_600_000,
        "cost_to_date": 2_700_000,
        "projected_cost": 9_940_000,
        "percent_complete": Decimal("27.16"),
        "projected_margin_pct": Decimal("6.23"),
        "earned_revenue": 2_879_276,
        "billed_to_date": 0,
        "over_under_billing": -2_879_276,
    }

    pay_app = post_ok(
        api,
        "/v1/pay-apps",
        {"project": job.project.pk, "period_start": "2026-01-01", "period_end": "2026-01-31"},
    )
    entered = api.patch(
        f"/v1/pay-apps/{pay_app['id']}",
        {
            "lines": [
                {"item": "1", "this_period": 500_000},
                {"item": "2", "this_period": 1_500_000},
                {"item": "3", "this_period": 1_000_000, "materials_stored": 200_000},
                {"item": "CO-001", "this_period": 200_000},
            ]
        },
    )
    assert entered.json()["total_completed_and_stored"] == 3_400_000
    assert project_figures(api, job) == expected  # a draft bills nothing yet
    for waiver in api.get("/v1/lien-waivers", {"project": job.project.pk}).json()["data"]:
        api.patch(f"/v1/lien-waivers/{waiver['id']}", {"status": "received"})
    post_ok(api, f"/v1/pay-apps/{pay_app['id']}/submit")
    billed = {**expected, "billed_to_date": 3_400_000, "over_under_billing": 520_724}
    assert project_figures(api, job) == billed

    # Paying an invoice and certifying the pay app move none of these figures.
    first_invoice = api.get("/v1/invoices", {"commitment": job.commitment.pk, "status": "approved"})
    post_ok(api, f"/v1/invoices/{first_invoice.json()['data'][0]['id']}/mark-paid")
    post_ok(api, f"/v1/pay-apps/{pay_app['id']}/approve")
    assert project_figures(api, job) == billed
    assert balances(api, job.commitment) == (4_500_000, 1_500_000, 3_000_000)


def test_rollups_after_deductive_change_orders(api, account):
    """SC-001 1,000,000 on 03-000. Owner CO −500,000 (budget −450,000): revised_contract
    9,500,000; 03-000 revised 4,050,000. CCO −200,000 on SC-001: revised 800,000, committed
    800,000. Invoice 300,000 approved: SC-001 billed 300,000, remaining 500,000.
    03-000 ctc max(4,050,000; 800,000) − 300,000 = 3,750,000, projected 4,050,000.
    projected_cost 1,800,000 + 4,050,000 + 2,700,000 = 8,550,000; percent 300,000 /
    8,550,000 = 3.51 %; margin 950,000 / 9,500,000 = 10.00 %; earned 9,500,000 × 300,000 /
    8,550,000 = 333,333.33… → 333,333 (the rounded 3.51 % would give 333,450); nothing billed:
    −333,333."""
    job = make_job(account)
    concrete = job.codes["03-000"].pk
    co = post_ok(
        api,
        "/v1/change-orders",
        {
            "project": job.project.pk,
            "kind": "owner",
            "title": "Delete slab",
            "amount": -500_000,
            "lines": [{"cost_code": concrete, "amount": -500_000, "budget_amount": -450_000}],
        },
    )
    post_ok(api, f"/v1/change-orders/{co['id']}/approve")
    cco = post_ok(
        api,
        "/v1/change-orders",
        {
            "project": job.project.pk,
            "kind": "commitment",
            "commitment": job.commitment.pk,
            "title": "Slab credit",
            "amount": -200_000,
            "lines": [{"cost_code": concrete, "amount": -200_000}],
        },
    )
    post_ok(api, f"/v1/change-orders/{cco['id']}/approve")
    approved_invoice(api, job.commitment, job.codes["03-000"], 300_000, "D-1")
    assert balances(api, job.commitment) == (800_000, 300_000, 500_000)
    assert budgets(api, job)["03-000"] == (4_050_000, 800_000, 300_000, 3_750_000, 4_050_000, 0)
    assert project_figures(api, job) == {
        "revised_contract": 9_500_000,
        "cost_to_date": 300_000,
        "projected_cost": 8_550_000,
        "percent_complete": Decimal("3.51"),
        "projected_margin_pct": Decimal("10.00"),
        "earned_revenue": 333_333,
        "billed_to_date": 0,
        "over_under_billing": -333_333,
    }


def test_cost_coded_past_a_budget_floors_cost_to_complete(api, account):
    """SC-001 (2,500,000, on 03-000) bills two invoices of 1,000,000 coded to 01-000
    (revised 1,800,000, nothing committed there): actual 2,000,000, so cost_to_complete
    max(1,800,000; 0) − 2,000,000 is floored at 0; projected 2,000,000; variance −200,000.
    03-000 (revised 4,500,000, committed 2,500,000, no actual) keeps ctc 4,500,000.
    projected_cost 2,000,000 + 4,500,000 + 2,700,000 = 9,200,000."""
    job = make_job(account, commitment_amount=2_500_000)
    for number in ("G-1", "G-2"):
        approved_invoice(api, job.commitment, job.codes["01-000"], 1_000_000, number)
    figures = budgets(api, job)
    assert figures["01-000"] == (1_800_000, 0, 2_000_000, 0, 2_000_000, -200_000)
    assert figures["03-000"] == (4_500_000, 2_500_000, 0, 4_500_000, 4_500_000, 0)
    project = project_figures(api, job)
    assert (project["cost_to_date"], project["projected_cost"]) == (2_000_000, 9_200_000)
