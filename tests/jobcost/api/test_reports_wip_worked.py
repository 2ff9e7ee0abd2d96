"""The WIP schedule over three month-ends, every figure computed by hand (docs/reports.md).

Everything goes through the API with the clock moved to each day (time-machine), 15:00 UTC.
All amounts in cents.

Projects: P (J-100) contract 100,000,000, one cost code A (scheduled value 100,000,000,
budget 80,000,000); Q (J-200) contract 50,000,000, cost code B (budget 40,000,000), no
activity, moved to closeout Oct 15 and closed Oct 20; R (J-300) stays in bid.

  Sep 5   subcontract SC-1 on A, 70,000,000, executed
  Sep 15  invoice V-1 dated Sep 15, 20,000,000 on A; approved Sep 20
  Sep 30  pay app #1 (Sep 1–30): item 1 bills 30,000,000; submitted Oct 3
  Oct 10  owner change order +10,000,000, budget +8,000,000 on A, approved
  Oct 12  invoice V-2 dated Oct 12, 30,000,000; approved Oct 15
  Oct 20  A's cost-to-complete estimate set to 45,000,000
  Oct 30  invoice V-3 dated Oct 30, 5,000,000, received and coded (approved Nov 4)
  Oct 31  pay app #2 (Oct 1–31): item 1 bills 20,000,000; submitted Nov 2
  Nov 3   commitment change order +5,000,000 on SC-1, approved
  Nov 4   V-3 approved (dated in October, approved in November: November's cost)
  Nov 5   A's estimate raised to 70,000,000 (the job now loses money)
  Nov 10  invoice V-4 dated Nov 10, 10,000,000; approved Nov 12
  Nov 30  pay app #3 (Nov 1–30): item 1 bills 10,000,000; submitted Dec 2

Sep 30 — P: revised contract 100,000,000; A: revised 80,000,000, committed 70,000,000,
actual 20,000,000, no estimate → cost to complete max(80M, 70M) − 20M = 60,000,000,
projected 80,000,000. % complete 20/80 = 25.00; earned 100M × 20M / 80M = 25,000,000;
billed (pay app #1, period ended Sep 30) 30,000,000 → over billing 5,000,000; gross profit
to date 25M − 20M = 5,000,000; projected gross profit 100M − 80M = 20,000,000; no loss.
Q (active then): revised 50,000,000, estimated 40,000,000 (budget, nothing spent), earned 0,
projected gross profit 10,000,000. R is in bid: no row.

Oct 31 — P: revised contract 110,000,000; A: revised 88,000,000, committed 70,000,000,
actual 50,000,000 (V-3 is not approved yet), estimate 45,000,000 → projected 95,000,000.
% 50/95 = 52.63; earned 110M × 50M / 95M = 57,894,736.84… → 57,894,737; billed 50,000,000
→ under billing 7,894,737; gross profit to date 7,894,737; projected 15,000,000. Q is closed.

Nov 30 — A: committed 75,000,000, actual 65,000,000, estimate 70,000,000 → projected
135,000,000. % 65/135 = 48.15; earned 110M × 65M / 135M = 52,962,962.96… → 52,962,963;
billed 60,000,000 → over billing 7,037,037; gross profit to date 52,962,963 − 65,000,000 =
−12,037,037; projected −25,000,000; loss provision −12,037,037 − (−25,000,000) = 12,962,963
(so gross profit to date less the provision is the whole projected loss).

Read again on Dec 3, September and October give exactly what they gave when they closed.
"""

import datetime
from decimal import Decimal

import pytest
import time_machine

from tests.jobcost.api.state import body

FIGURES = (
    "revised_contract",
    "estimated_total_cost",
    "cost_to_date",
    "cost_to_complete",
    "percent_complete",
    "earned_revenue",
    "billed_to_date",
    "over_billing",
    "under_billing",
    "gross_profit_to_date",
    "projected_gross_profit",
    "loss_provision",
)


def at(day: str):
    moment = datetime.datetime.fromisoformat(f"{day}T15:00:00+00:00")
    return time_machine.travel(moment, tick=False)


def ok(response, status=200) -> dict:
    assert response.status_code == status, response.content
    return response.json()


def wip(api, as_of: str) -> dict:
    return body(api.get("/v1/reports/wip", {"as_of": as_of}))


def figures(report: dict) -> dict[str, tuple]:
    return {row["project_number"]: tuple(row[name] for name in FIGURES) for row in report["data"]}


class Job:
    """The calls of the scenario, each at its day."""

    def __init__(self, api):
        self.api = api

    def post(self, path, data=None, status=200):
        return ok(self.api.post(path, data or {}), status)

    def project(self, number, contract, code, budget, status="active"):
        owner = self.post("/v1/owners", {"name": f"Owner of {number}"}, 201)
        project = self.post(
            "/v1/projects",
            {
                "number": number,
                "name": f"Job {number}",
                "owner": owner["id"],
                "contract_amount": contract,
                "retainage_pct": 10,
                "status": status,
            },
            201,
        )
        cost_code = self.post(
            "/v1/cost-codes",
            {
                "project": project["id"],
                "code": code,
                "name": code,
                "cost_type": "subcontract",
                "scheduled_value": contract,
                "budget_amount": budget,
            },
            201,
        )
        return project, cost_code

    def invoice(self, commitment, number, date, amount, cost_code):
        invoice = self.post(
            "/v1/invoices",
            {"commitment": commitment, "number": number, "invoice_date": date, "amount": amount},
            201,
        )
        lines = {"lines": [{"cost_code": cost_code, "amount": amount}]}
        ok(self.api.patch(f"/v1/invoices/{invoice['id']}", lines))
        return invoice["id"]

    def pay_app(self, project, start, end, billed):
        pay_app = self.post(
            "/v1/pay-apps", {"project": project, "period_start": start, "period_end": end}, 201
        )
        ok(
            self.api.patch(
                f"/v1/pay-apps/{pay_app['id']}", {"lines": [{"item": "1", "this_period": billed}]}
            )
        )
        return pay_app["id"]

    def submit(self, pay_app):
        self.post(f"/v1/pay-apps/{pay_app}/submit", {"allow_missing_waivers": True})


SEP = {
    "J-100": (
        100_000_000,
        80_000_000,
        20_000_000,
        60_000_000,
        Decimal("25"),
        25_000_000,
        30_000_000,
        5_000_000,
        0,
        5_000_000,
        20_000_000,
        0,
    ),
    "J-200": (50_000_000, 40_000_000, 0, 40_000_000, 0, 0, 0, 0, 0, 0, 10_000_000, 0),
}
OCT = {
    "J-100": (
        110_000_000,
        95_000_000,
        50_000_000,
        45_000_000,
        Decimal("52.63"),
        57_894_737,
        50_000_000,
        0,
        7_894_737,
        7_894_737,
        15_000_000,
        0,
    )
}
NOV = {
    "J-100": (
        110_000_000,
        135_000_000,
        65_000_000,
        70_000_000,
        Decimal("48.15"),
        52_962_963,
        60_000_000,
        7_037_037,
        0,
        -12_037_037,
        -25_000_000,
        12_962_963,
    )
}


def _as_numbers(expected: dict) -> dict:
    """JSON reads 25.00 back as 25 and 52.63 as 52.63: compare as Decimals."""
    return {
        number: tuple(Decimal(str(v)) if isinstance(v, Decimal) else v for v in row)
        for number, row in expected.items()
    }


def _normalise(actual: dict) -> dict:
    return {
        number: tuple(
            Decimal(str(v)) if name == "percent_complete" else v
            for name, v in zip(FIGURES, row, strict=True)
        )
        for number, row in actual.items()
    }


@pytest.mark.postgres
def test_three_month_ends_by_hand_and_closed_months_never_move(api):
    job = Job(api)
    with at("2026-09-01"):
        p, a = job.project("J-100", 100_000_000, "03-000", 80_000_000)
        q, _b = job.project("J-200", 50_000_000, "09-000", 40_000_000)
        job.project("J-300", 30_000_000, "01-000", 25_000_000, status="bid")
        vendor = job.post("/v1/vendors", {"name": "Granite Ridge Concrete"}, 201)
    with at("2026-09-05"):
        sc1 = job.post(
            "/v1/commitments",
            {
                "project": p["id"],
                "vendor": vendor["id"],
                "cost_code": a["id"],
                "type": "subcontract",
                "original_amount": 70_000_000,
            },
            201,
        )["id"]
        job.post(f"/v1/commitments/{sc1}/execute")
    with at("2026-09-15"):
        v1 = job.invoice(sc1, "V-1", "2026-09-15", 20_000_000, a["id"])
    with at("2026-09-20"):
        job.post(f"/v1/invoices/{v1}/approve")
    with at("2026-09-30"):
        pa1 = job.pay_app(p["id"], "2026-09-01", "2026-09-30", 30_000_000)
    with at("2026-10-03"):
        job.submit(pa1)
    with at("2026-10-05"):
        september_then = wip(api, "2026-09-30")
        assert _normalise(figures(september_then)) == _as_numbers(SEP)
    with at("2026-10-10"):
        co = job.post(
            "/v1/change-orders",
            {
                "project": p["id"],
                "kind": "owner",
                "title": "Added footing",
                "amount": 10_000_000,
                "lines": [{"cost_code": a["id"], "amount": 10_000_000, "budget_amount": 8_000_000}],
            },
            201,
        )
        job.post(f"/v1/change-orders/{co['id']}/approve")
    with at("2026-10-12"):
        v2 = job.invoice(sc1, "V-2", "2026-10-12", 30_000_000, a["id"])
    with at("2026-10-15"):
        job.post(f"/v1/invoices/{v2}/approve")
        ok(api.patch(f"/v1/projects/{q['id']}", {"status": "closeout"}))
    with at("2026-10-20"):
        ok(api.patch(f"/v1/projects/{q['id']}", {"status": "closed"}))
        ok(api.patch(f"/v1/budgets/{a['budget_line']}", {"cost_to_complete": 45_000_000}))
    with at("2026-10-30"):
        v3 = job.invoice(sc1, "V-3", "2026-10-30", 5_000_000, a["id"])
    with at("2026-10-31"):
        pa2 = job.pay_app(p["id"], "2026-10-01", "2026-10-31", 20_000_000)
    with at("2026-11-02"):
        job.submit(pa2)
        october_then = wip(api, "2026-10-31")
        october_costs_then = body(
            api.get("/v1/reports/job-cost", {"project": p["id"], "as_of": "2026-10-31"})
        )
        assert _normalise(figures(october_then)) == _as_numbers(OCT)
    with at("2026-11-03"):
        cco = job.post(
            "/v1/change-orders",
            {
                "project": p["id"],
                "kind": "commitment",
                "commitment": sc1,
                "title": "Extra pour",
                "amount": 5_000_000,
                "lines": [{"cost_code": a["id"], "amount": 5_000_000}],
            },
            201,
        )
        job.post(f"/v1/change-orders/{cco['id']}/approve")
    with at("2026-11-04"):
        job.post(f"/v1/invoices/{v3}/approve")
    with at("2026-11-05"):
        ok(api.patch(f"/v1/budgets/{a['budget_line']}", {"cost_to_complete": 70_000_000}))
    with at("2026-11-10"):
        v4 = job.invoice(sc1, "V-4", "2026-11-10", 10_000_000, a["id"])
    with at("2026-11-12"):
        job.post(f"/v1/invoices/{v4}/approve")
    with at("2026-11-30"):
        pa3 = job.pay_app(p["id"], "2026-11-01", "2026-11-30", 10_000_000)
    with at("2026-12-02"):
        job.submit(pa3)
    with at("2026-12-03"):
        assert _normalise(figures(wip(api, "2026-11-30"))) == _as_numbers(NOV)
        # The closed months read exactly as they did when they closed.
        assert wip(api, "2026-09-30") == september_then
        assert wip(api, "2026-10-31") == october_then
        assert (
            body(api.get("/v1/reports/job-cost", {"project": p["id"], "as_of": "2026-10-31"}))
            == october_costs_then
        )
        # Today the schedule agrees with the project's own figures (GET /v1/projects/{id}).
        today = wip(api, "2026-12-03")["data"][0]
        project = body(api.get(f"/v1/projects/{p['id']}"))
        assert today["revised_contract"] == project["revised_contract"]
        assert today["estimated_total_cost"] == project["projected_cost"]
        assert today["cost_to_date"] == project["cost_to_date"]
        assert today["earned_revenue"] == project["earned_revenue"]
        assert today["billed_to_date"] == project["billed_to_date"]
        assert today["over_billing"] - today["under_billing"] == project["over_under_billing"]
        assert Decimal(str(today["percent_complete"])) == Decimal(str(project["percent_complete"]))
