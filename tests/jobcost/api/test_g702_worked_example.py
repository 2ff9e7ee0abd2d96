"""A worked AIA G702/G703 series through the API, every figure computed by hand.

Contract $100,000.00 (10,000,000 cents), retainage 10 %. Schedule of values:
  item 1  01-000 General conditions   2,000,000
  item 2  03-000 Concrete             5,000,000
  item 3  09-000 Finishes             3,000,000
Change order CO-001 (owner, +600,000 on 03-000) is approved while pay app #2 is a draft and
lands on it as item CO-001. Finishes materials (tile, 400,000) are stored in period 2 and
installed, billed as work, in period 3. (cents; G = D + E + F; I = round(G × 10 %))

Pay app #1 (Jan)   D prev     E this      F stored   G total     %      H balance   I ret
  1                0          500,000     0          500,000     25.00  1,500,000   50,000
  2                0          1,000,000   0          1,000,000   20.00  4,000,000   100,000
  3                0          0           0          0           0.00   3,000,000   0
  G702: 1 = 10,000,000; 2 = 0; 3 = 10,000,000; 4 = 1,500,000; 5a = 150,000; 5b = 0;
  5 = 150,000; 6 = 1,350,000; 7 = 0; 8 = 1,350,000; 9 = 8,650,000;
  work this period 1,500,000, its retainage 150,000, net 1,350,000.

Pay app #2 (Feb)
  1                500,000    500,000     0          1,000,000   50.00  1,000,000   100,000
  2                1,000,000  1,500,000   0          2,500,000   50.00  2,500,000   250,000
  3                0          0           400,000    400,000     13.33  2,600,000   40,000
  CO-001 (600,000) 0          200,000     0          200,000     33.33  400,000     20,000
  G702: 1 = 10,000,000; 2 = 600,000; 3 = 10,600,000; 4 = 4,100,000; 5 = 410,000 of which
  5b = 40,000 (on stored materials) and 5a = 370,000; 6 = 3,690,000; 7 = 1,350,000 (line 6
  of #1); 8 = 2,340,000; 9 = 6,910,000; work this period 2,200,000, its retainage 220,000,
  net 1,980,000 (8 − net = 360,000: the stored materials less their retainage).

Pay app #3 (Mar): previous carries work only, so item 3's stored 400,000 is not in D; the
tile is billed as work in E.
  1                1,000,000  500,000     0          1,500,000   75.00  500,000     150,000
  2                2,500,000  1,000,000   0          3,500,000   70.00  1,500,000   350,000
  3                0          1,000,000   0          1,000,000   33.33  2,000,000   100,000
  CO-001 (600,000) 200,000    400,000     0          600,000     100.00 0           60,000
  G702: 1 = 10,000,000; 2 = 600,000; 3 = 10,600,000; 4 = 6,600,000; 5 = 660,000, 5b = 0,
  5a = 660,000; 6 = 5,940,000; 7 = 3,690,000; 8 = 2,250,000; 9 = 4,660,000; work this
  period 2,900,000, its retainage 290,000, net 2,610,000.
The project's billed_to_date then reads 6,600,000 (line 4 of the latest submitted app).
"""

from decimal import Decimal

import pytest

from tests.factories import CostCodeFactory, ProjectFactory

G702_KEYS = [
    "original_contract_sum",
    "net_change_by_change_orders",
    "contract_sum_to_date",
    "total_completed_and_stored",
    "retainage_completed_work",
    "retainage_stored_materials",
    "total_retainage",
    "total_earned_less_retainage",
    "less_previous_certificates",
    "current_payment_due",
    "balance_to_finish_including_retainage",
    "work_this_period",
    "retainage_this_period",
    "net_due_this_period",
]


def g702_of(pay_app: dict) -> list[int]:
    return [pay_app[k] for k in G702_KEYS]


def g703_of(api, pay_app_id: str) -> dict:
    body = api.get(f"/v1/pay-apps/{pay_app_id}/lines").json()
    return {
        line["item"]: (
            line["previous"],
            line["this_period"],
            line["materials_stored"],
            line["total_completed_and_stored"],
            Decimal(str(line["percent_complete"])),
            line["balance_to_finish"],
            line["retainage"],
        )
        for line in body["data"]
    }


@pytest.fixture
def job(account):
    project = ProjectFactory(account=account, contract_amount=10_000_000, retainage_pct=10)
    codes = {
        "01-000": CostCodeFactory(
            project=project,
            code="01-000",
            name="General conditions",
            scheduled_value=2_000_000,
            budget_amount=1_800_000,
        ),
        "03-000": CostCodeFactory(
            project=project,
            code="03-000",
            name="Concrete",
            scheduled_value=5_000_000,
            budget_amount=4_500_000,
        ),
        "09-000": CostCodeFactory(
            project=project,
            code="09-000",
            name="Finishes",
            scheduled_value=3_000_000,
            budget_amount=2_700_000,
        ),
    }
    return project, codes


def create_pay_app(api, project, start, end):
    response = api.post(
        "/v1/pay-apps", {"project": project.pk, "period_start": start, "period_end": end}
    )
    assert response.status_code == 201, response.content
    return response.json()


def enter(api, pay_app_id, lines):
    response = api.patch(f"/v1/pay-apps/{pay_app_id}", {"lines": lines})
    assert response.status_code == 200, response.content
    return response.json()


def certify(api, pay_app_id):
    for step in ("submit", "approve"):
        response = api.post(f"/v1/pay-apps/{pay_app_id}/{step}")
        assert response.status_code == 200, response.content
    return response.json()


def test_three_period_series_matches_hand_figures(api, job):
    project, codes = job

    # Pay app #1
    pa1 = create_pay_app(api, project, "2026-01-01", "2026-01-31")
    assert pa1["number"] == 1 and pa1["status"] == "draft"
    enter(
        api,
        pa1["id"],
        [
            {"item": "1", "this_period": 500_000},
            {"item": "2", "this_period": 1_000_000},
        ],
    )
    assert g703_of(api, pa1["id"]) == {
        "1": (0, 500_000, 0, 500_000, Decimal("25.00"), 1_500_000, 50_000),
        "2": (0, 1_000_000, 0, 1_000_000, Decimal("20.00"), 4_000_000, 100_000),
        "3": (0, 0, 0, 0, Decimal("0.00"), 3_000_000, 0),
    }
    pa1 = certify(api, pa1["id"])
    assert pa1["status"] == "approved"
    assert g702_of(pa1) == [
        10_000_000,
        0,
        10_000_000,
        1_500_000,
        150_000,
        0,
        150_000,
        1_350_000,
        0,
        1_350_000,
        8_650_000,
        1_500_000,
        150_000,
        1_350_000,
    ]

    # Pay app #2, with CO-001 approved while it is the draft
    pa2 = create_pay_app(api, project, "2026-02-01", "2026-02-28")
    co = api.post(
        "/v1/change-orders",
        {
            "project": project.pk,
            "kind": "owner",
            "title": "Added footing at grid C",
            "amount": 600_000,
            "lines": [
                {"cost_code": codes["03-000"].pk, "amount": 600_000, "budget_amount": 540_000}
            ],
        },
    ).json()
    approved = api.post(f"/v1/change-orders/{co['id']}/approve")
    assert approved.status_code == 200, approved.content
    assert approved.json()["pay_app"] == pa2["id"]
    enter(
        api,
        pa2["id"],
        [
            {"item": "1", "this_period": 500_000},
            {"item": "2", "this_period": 1_500_000},
            {"item": "3", "materials_stored": 400_000},
            {"item": co["number"], "this_period": 200_000},
        ],
    )
    assert g703_of(api, pa2["id"]) == {
        "1": (500_000, 500_000, 0, 1_000_000, Decimal("50.00"), 1_000_000, 100_000),
        "2": (1_000_000, 1_500_000, 0, 2_500_000, Decimal("50.00"), 2_500_000, 250_000),
        "3": (0, 0, 400_000, 400_000, Decimal("13.33"), 2_600_000, 40_000),
        "CO-001": (0, 200_000, 0, 200_000, Decimal("33.33"), 400_000, 20_000),
    }
    pa2 = certify(api, pa2["id"])
    assert pa2["change_orders"] == [co["id"]]
    assert g702_of(pa2) == [
        10_000_000,
        600_000,
        10_600_000,
        4_100_000,
        370_000,
        40_000,
        410_000,
        3_690_000,
        1_350_000,
        2_340_000,
        6_910_000,
        2_200_000,
        220_000,
        1_980_000,
    ]

    # Pay app #3: the stored tile is installed and billed as work
    pa3 = create_pay_app(api, project, "2026-03-01", "2026-03-31")
    enter(
        api,
        pa3["id"],
        [
            {"item": "1", "this_period": 500_000},
            {"item": "2", "this_period": 1_000_000},
            {"item": "3", "this_period": 1_000_000, "materials_stored": 0},
            {"item": "CO-001", "this_period": 400_000},
        ],
    )
    assert g703_of(api, pa3["id"]) == {
        "1": (1_000_000, 500_000, 0, 1_500_000, Decimal("75.00"), 500_000, 150_000),
        "2": (2_500_000, 1_000_000, 0, 3_500_000, Decimal("70.00"), 1_500_000, 350_000),
        "3": (0, 1_000_000, 0, 1_000_000, Decimal("33.33"), 2_000_000, 100_000),
        "CO-001": (200_000, 400_000, 0, 600_000, Decimal("100.00"), 0, 60_000),
    }
    submitted = api.post(f"/v1/pay-apps/{pa3['id']}/submit")
    assert submitted.status_code == 200, submitted.content
    pa3 = submitted.json()
    assert pa3["change_orders"] == []
    assert g702_of(pa3) == [
        10_000_000,
        600_000,
        10_600_000,
        6_600_000,
        660_000,
        0,
        660_000,
        5_940_000,
        3_690_000,
        2_250_000,
        4_660_000,
        2_900_000,
        290_000,
        2_610_000,
    ]

    prj = api.get(f"/v1/projects/{project.pk}").json()
    assert prj["billed_to_date"] == 6_600_000
    assert prj["approved_changes"] == 600_000
    assert prj["revised_contract"] == 10_600_000
    budget = api.get("/v1/budgets", {"cost_code": codes["03-000"].pk}).json()["data"][0]
    assert budget["approved_changes"] == 540_000
    assert budget["revised_amount"] == 5_040_000
