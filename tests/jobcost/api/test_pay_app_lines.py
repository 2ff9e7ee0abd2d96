"""G703 rows through the API: generated from the cost codes and approved owner change
orders, `previous` carried (work only), entered by PATCH within the scheduled value, and
listed in item order with keyset pages (docs/resources.md, pay_app).

The job (tests.factories.make_job): contract 10,000,000 cents at 10 % retainage; items
1 = 01-000 (2,000,000), 2 = 03-000 (5,000,000), 3 = 09-000 (3,000,000)."""

import pytest

from audit.models import AuditEntry
from jobcost.models import PayAppLine
from tests.conftest import error_of
from tests.factories import (
    CostCodeFactory,
    ProjectFactory,
    make_change_order,
    make_job,
    make_pay_app,
)


@pytest.fixture
def job(account):
    return make_job(account)


def rows(api, pay_app_id):
    return api.get(f"/v1/pay-apps/{pay_app_id}/lines", {"limit": 100}).json()["data"]


def enter(api, pay_app_id, *lines):
    return api.patch(f"/v1/pay-apps/{pay_app_id}", {"lines": list(lines)})


def test_rows_come_from_cost_codes_in_code_order(api, account):
    """Codes created out of order; one with no scheduled value gets no row."""
    project = ProjectFactory(account=account, contract_amount=300_000)
    CostCodeFactory(project=project, code="09-000", name="Finishes", scheduled_value=100_000)
    CostCodeFactory(project=project, code="01-000", name="General", scheduled_value=200_000)
    CostCodeFactory(project=project, code="05-000", name="Allowance", scheduled_value=0)
    pay_app = make_pay_app(project, "2026-01-01", "2026-01-31")
    lines = rows(api, pay_app.pk)
    assert [(r["item"], r["description"], r["scheduled_value"]) for r in lines] == [
        ("1", "01-000 General", 200_000),
        ("2", "09-000 Finishes", 100_000),
    ]
    assert lines[0]["object"] == "pay_app_line" and lines[0]["change_order"] is None
    assert (lines[0]["previous"], lines[0]["retainage"], lines[0]["balance_to_finish"]) == (
        0,
        0,
        200_000,
    )


def test_only_approved_owner_change_orders_get_rows(api, job):
    make_change_order(job.project, cost_code=job.codes["03-000"], amount=1_000, status="pending")
    make_change_order(
        job.project,
        cost_code=job.codes["03-000"],
        amount=2_000,
        kind="commitment",
        commitment=job.commitment,
        status="approved",
    )
    owner = make_change_order(
        job.project, cost_code=job.codes["03-000"], amount=3_000, status="approved"
    )
    pay_app = make_pay_app(job.project, "2026-01-01", "2026-01-31")
    lines = rows(api, pay_app.pk)
    assert [r["item"] for r in lines] == ["1", "2", "3", owner.number]
    assert (lines[3]["change_order"], lines[3]["scheduled_value"]) == (owner.pk, 3_000)
    body = api.get(f"/v1/pay-apps/{pay_app.pk}").json()
    assert body["change_orders"] == [owner.pk]
    assert body["net_change_by_change_orders"] == 3_000
    assert body["contract_sum_to_date"] == 10_003_000


def test_change_order_approved_during_a_draft_lands_on_it(api, job):
    draft = make_pay_app(job.project, "2026-01-01", "2026-01-31")
    co = make_change_order(job.project, cost_code=job.codes["03-000"], amount=600_000)
    approved = api.post(f"/v1/change-orders/{co.pk}/approve")
    assert approved.json()["pay_app"] == draft.pk
    assert [r["item"] for r in rows(api, draft.pk)] == ["1", "2", "3", "CO-001"]
    assert api.get(f"/v1/pay-apps/{draft.pk}").json()["change_orders"] == [co.pk]
    listed = api.get("/v1/change-orders", {"pay_app": draft.pk}).json()["data"]
    assert [c["id"] for c in listed] == [co.pk]


def test_change_order_lands_on_the_next_pay_app_and_stays_on_later_ones(api, job):
    """CO-001 (600,000) is approved while #1 is submitted: it lands on #2 (not #1), billed
    200,000 there; on #3 its row is still there with previous 200,000."""
    first = make_pay_app(job.project, "2026-01-01", "2026-01-31", status="submitted")
    co = make_change_order(
        job.project, cost_code=job.codes["03-000"], amount=600_000, status="approved"
    )
    assert api.get(f"/v1/change-orders/{co.pk}").json()["pay_app"] is None
    assert [r["item"] for r in rows(api, first.pk)] == ["1", "2", "3"]
    second = make_pay_app(job.project, "2026-02-01", "2026-02-28")
    assert api.get(f"/v1/change-orders/{co.pk}").json()["pay_app"] == second.pk
    assert api.get(f"/v1/change-orders/{co.pk}/audit").json()["data"][-1]["action"] == "billed"
    enter(api, second.pk, {"item": "CO-001", "this_period": 200_000})
    api.post(f"/v1/pay-apps/{second.pk}/submit")
    third = make_pay_app(job.project, "2026-03-01", "2026-03-31")
    co_row = rows(api, third.pk)[-1]
    assert (co_row["item"], co_row["previous"], co_row["balance_to_finish"]) == (
        "CO-001",
        200_000,
        400_000,
    )
    assert api.get(f"/v1/pay-apps/{third.pk}").json()["change_orders"] == []
    assert api.get(f"/v1/pay-apps/{second.pk}").json()["change_orders"] == [co.pk]


def test_previous_carries_work_not_stored_materials(api, job):
    """#1: item 3 work 300,000 + stored 200,000. #2: previous 300,000 (work only), stored
    re-entered as 0, so its total is 300,000 until more is entered."""
    first = make_pay_app(job.project, "2026-01-01", "2026-01-31")
    enter(api, first.pk, {"item": "3", "this_period": 300_000, "materials_stored": 200_000})
    api.post(f"/v1/pay-apps/{first.pk}/submit")
    second = make_pay_app(job.project, "2026-02-01", "2026-02-28")
    item3 = rows(api, second.pk)[2]
    assert (item3["previous"], item3["this_period"], item3["materials_stored"]) == (300_000, 0, 0)
    assert item3["total_completed_and_stored"] == 300_000


def test_entry_past_the_scheduled_value_is_refused(api, job):
    """Item 1 (2,000,000): 1,500,000 work + 500,001 stored = 2,000,001 → 422 param
    lines[1]; nothing of the request is written (item 2's entry before it neither)."""
    pay_app = make_pay_app(job.project, "2026-01-01", "2026-01-31")
    audit_before = AuditEntry.objects.count()
    response = enter(
        api,
        pay_app.pk,
        {"item": "2", "this_period": 10_000},
        {"item": "1", "this_period": 1_500_000, "materials_stored": 500_001},
    )
    assert response.status_code == 422
    assert (error_of(response)["code"], error_of(response)["param"]) == (
        "exceeds_scheduled_value",
        "lines[1]",
    )
    assert set(PayAppLine.objects.values_list("this_period", flat=True)) == {0}
    assert AuditEntry.objects.count() == audit_before
    exact = enter(
        api, pay_app.pk, {"item": "1", "this_period": 1_500_000, "materials_stored": 500_000}
    )
    assert exact.status_code == 200 and exact.json()["total_completed_and_stored"] == 2_000_000
    below = enter(api, pay_app.pk, {"item": "2", "this_period": -1})
    assert below.status_code == 422 and error_of(below)["code"] == "exceeds_scheduled_value"


def test_unknown_item_is_refused(api, job):
    pay_app = make_pay_app(job.project, "2026-01-01", "2026-01-31")
    response = enter(api, pay_app.pk, {"item": "CO-009", "this_period": 1})
    assert response.status_code == 400 and error_of(response)["param"] == "lines[0].item"


def test_line_entries_are_audited(api, job):
    pay_app = make_pay_app(job.project, "2026-01-01", "2026-01-31")
    enter(api, pay_app.pk, {"item": "2", "this_period": 250_000})
    last = api.get(f"/v1/pay-apps/{pay_app.pk}/audit").json()["data"][-1]
    assert last["action"] == "lines_updated"
    assert last["changes"] == {
        "lines.2": {
            "before": {"this_period": 0, "materials_stored": 0},
            "after": {"this_period": 250_000, "materials_stored": 0},
        }
    }


def test_deductive_change_order_row(api, job):
    """CO-001 −300,000: its row runs from 0 down to −300,000. Billing −100,000 gives
    total −100,000, 33.33 %, balance −200,000, retainage −10,000; G702 line 2 −300,000,
    line 3 9,700,000. −300,001 or +1 are outside the row."""
    co = make_change_order(
        job.project, cost_code=job.codes["09-000"], amount=-300_000, status="approved"
    )
    pay_app = make_pay_app(job.project, "2026-01-01", "2026-01-31")
    for bad in (-300_001, 1):
        refused = enter(api, pay_app.pk, {"item": co.number, "this_period": bad})
        assert refused.status_code == 422, bad
    body = enter(api, pay_app.pk, {"item": co.number, "this_period": -100_000}).json()
    row = rows(api, pay_app.pk)[-1]
    assert (row["scheduled_value"], row["total_completed_and_stored"]) == (-300_000, -100_000)
    assert (row["percent_complete"], row["balance_to_finish"], row["retainage"]) == (
        33.33,
        -200_000,
        -10_000,
    )
    assert (body["net_change_by_change_orders"], body["contract_sum_to_date"]) == (
        -300_000,
        9_700_000,
    )
    assert (body["total_completed_and_stored"], body["total_retainage"]) == (-100_000, -10_000)


def test_lines_paginate_in_item_order(api, account):
    """26 codes of 100,000 (contract 2,600,000) and one change order: 27 rows, read 10 at a
    time, in item order 1 … 26 then CO-001, none repeated or skipped."""
    project = ProjectFactory(account=account, contract_amount=2_600_000)
    codes = [
        CostCodeFactory(project=project, code=f"{n:02d}-000", scheduled_value=100_000)
        for n in range(26, 0, -1)
    ]
    make_change_order(project, cost_code=codes[0], amount=5_000, status="approved")
    pay_app = make_pay_app(project, "2026-01-01", "2026-01-31")
    items, cursor, pages = [], None, 0
    while True:
        params = {"limit": 10, **({"cursor": cursor} if cursor else {})}
        page = api.get(f"/v1/pay-apps/{pay_app.pk}/lines", params).json()
        items += [r["item"] for r in page["data"]]
        pages += 1
        if not page["has_more"]:
            break
        cursor = page["next_cursor"]
    assert items == [str(n) for n in range(1, 27)] + ["CO-001"]
    assert pages == 3
    assert api.get(f"/v1/pay-apps/{pay_app.pk}/lines", {"limit": 101}).status_code == 400
