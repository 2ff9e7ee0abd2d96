"""The money cap (docs/operations/limits.md, `jobcost.money.MONEY_MAX` = $100,000,000,000.00): no
sequence of accepted writes carries a computed total past it. Each test drives one total to
the cap through the API, tries to pass it — 422 `amount_out_of_range`, nothing written, the
message in dollars — and then reads every list and every object of the account: all 200, every
number inside the signed 64-bit range."""

from __future__ import annotations

import pytest

from audit.models import AuditEntry
from jobcost.models import BudgetLine, Commitment, Project
from jobcost.money import MONEY_MAX
from tests.conftest import error_of
from tests.factories import OwnerFactory, VendorFactory

INT64 = 2**63 - 1
CAP = "$100,000,000,000.00"
COLLECTIONS = [
    "projects",
    "cost-codes",
    "budgets",
    "commitments",
    "change-orders",
    "invoices",
    "pay-apps",
    "lien-waivers",
]


def _ok(response, status=(200, 201)):
    assert response.status_code in status, response.content[:400]
    return response.json()


def _numbers(value):
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _numbers(item)
    elif isinstance(value, list):
        for item in value:
            yield from _numbers(item)


def read_everything(api) -> int:
    """List every collection and retrieve every object in it; return how many were read."""
    read = 0
    for collection in COLLECTIONS:
        listed = _ok(api.get(f"/v1/{collection}", {"limit": 100}))
        for obj in listed["data"]:
            one = _ok(api.get(f"/v1/{collection}/{obj['id']}"))
            assert all(-INT64 <= n <= INT64 for n in _numbers(one)), one
            read += 1
        assert all(-INT64 <= n <= INT64 for n in _numbers(listed))
    for pay_app in _ok(api.get("/v1/pay-apps"))["data"]:
        _ok(api.get(f"/v1/pay-apps/{pay_app['id']}/lines", {"limit": 100}))
    return read


def _refused(response, param=None):
    assert response.status_code == 422, response.content[:400]
    error = error_of(response)
    assert error["code"] == "amount_out_of_range"
    assert error["param"] == param
    assert CAP in error["message"]
    return error


@pytest.fixture
def owner(account):
    return OwnerFactory(account=account)


def _project(api, owner, contract, status="active", number="CAP-1"):
    return _ok(
        api.post(
            "/v1/projects",
            {
                "number": number,
                "name": "At the cap",
                "owner": owner.pk,
                "contract_amount": contract,
                "status": status,
            },
        )
    )


def _cost_code(api, project, code, *, budget=0, scheduled=0):
    return api.post(
        "/v1/cost-codes",
        {
            "project": project["id"],
            "code": code,
            "name": code,
            "cost_type": "subcontract",
            "budget_amount": budget,
            "scheduled_value": scheduled,
        },
    )


def _change_order(api, project, code, amount, *, budget_amount=None, commitment=None):
    line = {"cost_code": code["id"], "amount": amount}
    if budget_amount is not None:
        line["budget_amount"] = budget_amount
    body = {
        "project": project["id"],
        "kind": "commitment" if commitment else "owner",
        "title": f"{amount} cents",
        "amount": amount,
        "lines": [line],
    }
    if commitment:
        body["commitment"] = commitment["id"]
    return _ok(api.post("/v1/change-orders", body))


def _commitment(api, project, vendor, code, amount):
    return _ok(
        api.post(
            "/v1/commitments",
            {
                "project": project["id"],
                "vendor": vendor.pk,
                "cost_code": code["id"],
                "type": "subcontract",
                "original_amount": amount,
            },
        )
    )


def test_revised_contract_past_the_cap_is_refused_at_approval(api, owner):
    """The issue's case: a contract at the cap plus an approved owner change order."""
    project = _project(api, owner, MONEY_MAX)
    code = _ok(_cost_code(api, project, "01-000", scheduled=MONEY_MAX))
    co = _change_order(api, project, code, 1, budget_amount=0)
    before = AuditEntry.objects.count()

    error = _refused(api.post(f"/v1/change-orders/{co['id']}/approve"))

    assert "$100,000,000,000.01" in error["message"]
    assert error["object"] == project["id"]
    assert AuditEntry.objects.count() == before
    assert _ok(api.get(f"/v1/change-orders/{co['id']}"))["status"] == "draft"
    assert _ok(api.get(f"/v1/projects/{project['id']}"))["revised_contract"] == MONEY_MAX
    assert read_everything(api) >= 4


def test_contract_amount_past_the_cap_with_approved_changes_is_refused(api, owner):
    project = _project(api, owner, 1_000, status="bid")
    code = _ok(_cost_code(api, project, "01-000"))
    co = _change_order(api, project, code, 500, budget_amount=0)
    _ok(api.post(f"/v1/change-orders/{co['id']}/approve"))

    _refused(
        api.patch(f"/v1/projects/{project['id']}", {"contract_amount": MONEY_MAX}),
        param="contract_amount",
    )

    assert Project.objects.get(pk=project["id"]).contract_amount == 1_000
    read_everything(api)


def test_sum_of_budgets_past_the_cap_is_refused(api, owner):
    project = _project(api, owner, 0)
    _ok(_cost_code(api, project, "01-000", budget=MONEY_MAX))

    _refused(_cost_code(api, project, "02-000", budget=1), param="budget_amount")

    assert BudgetLine.objects.filter(project_id=project["id"]).count() == 1
    read_everything(api)


def test_projected_cost_past_the_cap_is_refused(api, owner):
    project = _project(api, owner, 0)
    first = _ok(_cost_code(api, project, "01-000"))
    second = _ok(_cost_code(api, project, "02-000"))
    _ok(api.patch(f"/v1/budgets/{first['budget_line']}", {"cost_to_complete": MONEY_MAX}))

    _refused(
        api.patch(f"/v1/budgets/{second['budget_line']}", {"cost_to_complete": 1}),
        param="cost_to_complete",
    )

    assert BudgetLine.objects.get(pk=second["budget_line"]).cost_to_complete_estimate is None
    read_everything(api)


def test_committed_past_the_cap_is_refused_at_execution(api, owner, account):
    vendor = VendorFactory(account=account)
    project = _project(api, owner, 0)
    first = _ok(_cost_code(api, project, "01-000"))
    second = _ok(_cost_code(api, project, "02-000"))
    done = _commitment(api, project, vendor, first, MONEY_MAX)
    _ok(api.post(f"/v1/commitments/{done['id']}/execute"))
    pending = _commitment(api, project, vendor, second, 1)

    _refused(api.post(f"/v1/commitments/{pending['id']}/execute"))

    assert Commitment.objects.get(pk=pending["id"]).status == "draft"
    assert BudgetLine.objects.get(pk=second["budget_line"]).committed == 0
    read_everything(api)


def test_commitment_revised_amount_past_the_cap_is_refused(api, owner, account):
    vendor = VendorFactory(account=account)
    project = _project(api, owner, 0)
    code = _ok(_cost_code(api, project, "01-000"))
    commitment = _commitment(api, project, vendor, code, MONEY_MAX)
    _ok(api.post(f"/v1/commitments/{commitment['id']}/execute"))
    cco = _change_order(api, project, code, 1, commitment=commitment)

    error = _refused(api.post(f"/v1/change-orders/{cco['id']}/approve"))

    assert error["object"] in (commitment["id"], project["id"])
    assert _ok(api.get(f"/v1/commitments/{commitment['id']}"))["revised_amount"] == MONEY_MAX
    read_everything(api)


def test_change_order_budget_amounts_summing_past_the_cap_are_refused(api, owner):
    project = _project(api, owner, 0)
    a = _ok(_cost_code(api, project, "01-000"))
    b = _ok(_cost_code(api, project, "02-000"))
    body = {
        "project": project["id"],
        "kind": "owner",
        "title": "Swap",
        "amount": 0,
        "lines": [
            {"cost_code": a["id"], "amount": MONEY_MAX, "budget_amount": MONEY_MAX},
            {"cost_code": b["id"], "amount": -MONEY_MAX, "budget_amount": 1},
        ],
    }

    _refused(api.post("/v1/change-orders", body), param="lines")

    assert _ok(api.get("/v1/change-orders"))["data"] == []
    read_everything(api)


def test_g702_total_completed_past_the_cap_is_refused(api, owner):
    """Contract at the cap on one cost code; owner change orders −X then +X (revised
    contract back at the cap). Billing the code in full and the +X row in full would make
    line 4 (total completed and stored) the cap + X."""
    x = 1_000_00
    project = _project(api, owner, MONEY_MAX)
    code = _ok(_cost_code(api, project, "01-000", scheduled=MONEY_MAX))
    for amount in (-x, x):
        co = _change_order(api, project, code, amount, budget_amount=0)
        _ok(api.post(f"/v1/change-orders/{co['id']}/approve"))
    pay_app = _ok(
        api.post(
            "/v1/pay-apps",
            {"project": project["id"], "period_start": "2026-01-01", "period_end": "2026-01-31"},
        )
    )
    items = [line["item"] for line in pay_app["lines"]] if "lines" in pay_app else None
    items = items or [
        line["item"]
        for line in _ok(api.get(f"/v1/pay-apps/{pay_app['id']}/lines", {"limit": 100}))["data"]
    ]
    assert items == ["1", "CO-001", "CO-002"]

    _refused(
        api.patch(
            f"/v1/pay-apps/{pay_app['id']}",
            {
                "lines": [
                    {"item": "1", "this_period": MONEY_MAX},
                    {"item": "CO-002", "this_period": x},
                ]
            },
        ),
        param="lines",
    )

    after = _ok(api.get(f"/v1/pay-apps/{pay_app['id']}"))
    assert after["total_completed_and_stored"] == 0
    read_everything(api)
