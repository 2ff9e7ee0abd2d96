"""Project rollups on retrieve and list, exactly per docs/computations.md.

Invoices (which post `actual`) are a later issue, so these tests set `BudgetLine.actual` and
`Project.approved_changes` with a queryset `.update()` in the setup; everything else goes
through the API.
"""

from decimal import Decimal

from jobcost.models import BudgetLine, Project
from tests.factories import OwnerFactory, ProjectFactory, VendorFactory
from tests.jobcost.api.state import body

ROLLUP_FIELDS = (
    "cost_to_date",
    "projected_cost",
    "percent_complete",
    "projected_margin_pct",
    "billed_to_date",
    "earned_revenue",
    "over_under_billing",
)


def _cost_code(api, project_id, code, budget_amount):
    resp = api.post(
        "/v1/cost-codes",
        {
            "project": project_id,
            "code": code,
            "name": code,
            "cost_type": "subcontract",
            "budget_amount": budget_amount,
        },
    )
    assert resp.status_code == 201, resp.content
    return resp.json()


def _commitment(api, project_id, vendor_id, cost_code_id, amount, *, execute):
    resp = api.post(
        "/v1/commitments",
        {
            "project": project_id,
            "vendor": vendor_id,
            "cost_code": cost_code_id,
            "type": "subcontract",
            "original_amount": amount,
        },
    )
    assert resp.status_code == 201, resp.content
    if execute:
        done = api.post(f"/v1/commitments/{resp.json()['id']}/execute", {})
        assert done.status_code == 200, done.content


def _set_actual(cost_code, cents):
    BudgetLine.objects.filter(pk=cost_code["budget_line"]).update(actual=cents)


def test_empty_project_rollups_read_zero(api, account):
    project = ProjectFactory(account=account, contract_amount=500_000_00)
    data = body(api.get(f"/v1/projects/{project.pk}"))
    assert {f: data[f] for f in ROLLUP_FIELDS} == {
        "cost_to_date": 0,
        "projected_cost": 0,
        "percent_complete": 0,
        # (revised_contract − 0) / revised_contract × 100: nothing is projected yet.
        "projected_margin_pct": 100,
        "billed_to_date": 0,
        "earned_revenue": 0,
        "over_under_billing": 0,
    }
    assert data["revised_contract"] == 500_000_00


def test_zero_contract_project_has_zero_margin(api, account):
    project = ProjectFactory(account=account, contract_amount=0)
    data = body(api.get(f"/v1/projects/{project.pk}"))
    assert (data["projected_margin_pct"], data["percent_complete"]) == (0, 0)


def test_project_rollups_from_budget_lines_and_commitments(api, account):
    """Contract 1,000,000.00 + approved changes 50,000.00 → revised_contract 1,050,000.00.

    | code | budget | executed commitments | actual | cost_to_complete | projected |
    |---|---|---|---|---|---|
    | 03-300 | 400,000 | 450,000 (+ a 20,000 draft, not counted) | 150,000 | max(400k, 450k) − 150k = 300,000 | 450,000 |
    | 05-100 | 300,000 | — | 100,000 | PATCHed 250,000 | 350,000 |
    | 09-900 | 100,000 | — | 0 | 100,000 | 100,000 |
    | 31-000 | 50,000 | — | 80,000 | max(50k − 80k, 0) = 0 | 80,000 |

    cost_to_date = 330,000.00; projected_cost = 980,000.00;
    percent_complete = 330/980 × 100 = 33.673… → 33.67;
    projected_margin_pct = (1,050,000 − 980,000) / 1,050,000 × 100 = 6.666… → 6.67;
    earned_revenue = 1,050,000.00 × 330,000.00 / 980,000.00 = 353,571.428… → 353,571.43
    (exact, not from the rounded percent, which would give 353,535.00);
    billed_to_date = 0 (no pay apps);
    over_under_billing = 0 − 353,571.43 = −353,571.43 (under-billed).
    """  # noqa: E501
    owner = OwnerFactory(account=account)
    vendor = VendorFactory(account=account)
    created = api.post(
        "/v1/projects",
        {
            "number": "J-100",
            "name": "Rollups",
            "owner": owner.pk,
            "contract_amount": 1_000_000_00,
            "status": "active",
        },
    )
    assert created.status_code == 201, created.content
    pid = created.json()["id"]
    Project.objects.filter(pk=pid).update(approved_changes=50_000_00)
    concrete = _cost_code(api, pid, "03-300", 400_000_00)
    steel = _cost_code(api, pid, "05-100", 300_000_00)
    _cost_code(api, pid, "09-900", 100_000_00)
    earthwork = _cost_code(api, pid, "31-000", 50_000_00)
    _commitment(api, pid, vendor.pk, concrete["id"], 450_000_00, execute=True)
    _commitment(api, pid, vendor.pk, concrete["id"], 20_000_00, execute=False)
    patched = api.patch(f"/v1/budgets/{steel['budget_line']}", {"cost_to_complete": 250_000_00})
    assert patched.status_code == 200, patched.content
    _set_actual(concrete, 150_000_00)
    _set_actual(steel, 100_000_00)
    _set_actual(earthwork, 80_000_00)

    data = body(api.get(f"/v1/projects/{pid}"))
    assert data["revised_contract"] == 1_050_000_00
    assert data["approved_changes"] == 50_000_00
    assert {f: data[f] for f in ROLLUP_FIELDS} == {
        "cost_to_date": 330_000_00,
        "projected_cost": 980_000_00,
        "percent_complete": Decimal("33.67"),
        "projected_margin_pct": Decimal("6.67"),
        "billed_to_date": 0,
        "earned_revenue": 353_571_43,
        "over_under_billing": -353_571_43,
    }
    listed = body(api.get("/v1/projects"))["data"]
    assert [{f: p[f] for f in ROLLUP_FIELDS} for p in listed] == [
        {f: data[f] for f in ROLLUP_FIELDS}
    ]


def test_percentages_round_half_away_from_zero(api, account):
    """Contract 2,048.00; one code budgeted 8,000.00 with 10.00 actual.

    cost_to_complete = 8,000.00 − 10.00 = 7,990.00 → projected_cost 8,000.00;
    percent_complete = 10/8,000 × 100 = 0.125 → 0.13 (banker's rounding would give 0.12);
    projected_margin_pct = (2,048 − 8,000) / 2,048 × 100 = −290.625 → −290.63 (half away
    from zero; half-even would give −290.62); earned_revenue = 2,048.00 × 10.00 / 8,000.00 =
    2.56 exactly (not 2,048.00 × 0.13 / 100 = 2.66 from the rounded percent);
    over_under_billing = −2.56.
    """
    project = ProjectFactory(account=account, contract_amount=2_048_00)
    code = _cost_code(api, project.pk, "01-000", 8_000_00)
    _set_actual(code, 10_00)
    data = body(api.get(f"/v1/projects/{project.pk}"))
    assert data["cost_to_date"] == 10_00
    assert data["projected_cost"] == 8_000_00
    assert data["percent_complete"] == Decimal("0.13")
    assert data["projected_margin_pct"] == Decimal("-290.63")
    assert data["earned_revenue"] == 2_56
    assert data["over_under_billing"] == -2_56


def test_earned_revenue_is_exact_and_rounds_half_away_from_zero(api, account):
    """Contract 2,052.00; one code budgeted 8,000.00 with 10.00 actual: earned_revenue =
    205,200 × 1,000 / 800,000 = 256.5 cents → 257 (half away from zero; half-even gives 256,
    and the rounded 0.13 % gives 266.76 → 267). Then actual 8,000.00 of a projected 8,000.00:
    earned is the whole revised contract, 2,052.00; and with 9,000.00 actual (projected 9,000.00)
    it stays at most the revised contract."""
    project = ProjectFactory(account=account, contract_amount=2_052_00)
    code = _cost_code(api, project.pk, "01-000", 8_000_00)
    _set_actual(code, 10_00)
    data = body(api.get(f"/v1/projects/{project.pk}"))
    assert (data["percent_complete"], data["earned_revenue"]) == (Decimal("0.13"), 2_57)
    _set_actual(code, 8_000_00)
    data = body(api.get(f"/v1/projects/{project.pk}"))
    assert (data["projected_cost"], data["earned_revenue"]) == (8_000_00, 2_052_00)
    _set_actual(code, 9_000_00)
    data = body(api.get(f"/v1/projects/{project.pk}"))
    assert (data["projected_cost"], data["earned_revenue"]) == (9_000_00, 2_052_00)


def test_rollups_follow_every_write_at_once(api, account):
    """Budget 1,000.00, then a 1,500.00 commitment executed (projected 1,500.00), then voided
    (back to 1,000.00), then cost_to_complete PATCHed to 400.00 and reset to null."""
    project = ProjectFactory(account=account, contract_amount=3_000_00)
    vendor = VendorFactory(account=account)
    code = _cost_code(api, project.pk, "02-000", 1_000_00)

    def projected():
        return api.get(f"/v1/projects/{project.pk}").json()["projected_cost"]

    assert projected() == 1_000_00
    _commitment(api, project.pk, vendor.pk, code["id"], 1_500_00, execute=True)
    assert projected() == 1_500_00
    commitment_id = api.get("/v1/commitments").json()["data"][0]["id"]
    assert api.post(f"/v1/commitments/{commitment_id}/void", {}).status_code == 200
    assert projected() == 1_000_00
    api.patch(f"/v1/budgets/{code['budget_line']}", {"cost_to_complete": 400_00})
    assert projected() == 400_00
    api.patch(f"/v1/budgets/{code['budget_line']}", {"cost_to_complete": None})
    assert projected() == 1_000_00
