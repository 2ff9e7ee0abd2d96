"""The AR aging through the API (docs/reports.md, "AR aging"): what owners owe on certified pay
apps, by days since certification, as the books stood at the end of a day; its filters, its
scope and its cost in queries."""

from __future__ import annotations

import datetime

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from jobcost.models import Project
from jobcost.services.pay_app_payments import pay_app_payment_create
from jobcost.services.pay_apps import (
    pay_app_approve,
    pay_app_create,
    pay_app_submit,
    pay_app_update,
)
from tests.factories import OwnerFactory
from tests.factories import make_job as make_any_job
from tests.jobcost.api.state import body

pytestmark = pytest.mark.usefixtures("cold_keys")

BUCKETS = ("current", "days_1_30", "days_31_60", "days_61_90", "days_over_90", "total")


def at(month: int, day: int):
    return time_machine.travel(datetime.datetime(2026, month, day, 12, tzinfo=datetime.UTC))


def certified(project, period, work, submit_on, approve_on, **certificate):
    """A pay app of `period` billing `work` cents on item 2 (10 % retainage, so line 8 is
    0.9 × work), created and submitted on `submit_on`, approved on `approve_on`."""
    with at(*submit_on):
        pay_app = pay_app_create(project=project, period_start=period[0], period_end=period[1])
        pay_app_update(pay_app_id=pay_app.pk, lines=[{"item": "2", "this_period": work}])
        pay_app_submit(pay_app_id=pay_app.pk, allow_missing_waivers=True)
    if approve_on is not None:
        with at(*approve_on):
            pay_app_approve(pay_app_id=pay_app.pk, **certificate)
    return pay_app


def receive(pay_app, amount, on):
    with at(*on):
        pay_app_payment_create(pay_app_id=pay_app.pk, amount=amount, reference=f"CHK-{on}")


D = datetime.date


def make_job(account, *, number=None, owner=None):
    """`tests.factories.make_job` made on July 1, 2026 (so it exists on every day read
    here), with `number` and `owner` when given."""
    with at(7, 1):
        job = make_any_job(account)
    changes = {k: v for k, v in (("number", number), ("owner", owner)) if v is not None}
    if changes:
        Project.objects.filter(pk=job.project.pk).update(**changes)
        job.project.refresh_from_db()
    return job


@pytest.mark.postgres
def test_ar_aging_buckets_by_hand(api, account):
    """As of Nov 20 (cents):
    #1 Jul: line 8 900,000, certified 600,000 on Aug 2 (approved Aug 3), 100,000 received
       Aug 20 → 500,000 owed, 110 days → over 90
    #2 Aug: 450,000 certified Sep 5, paid in full on Nov 22 (after the day) → 450,000 owed,
       76 days → 61–90
    #3 Sep: 450,000 certified Oct 10, paid in full Nov 18 → nothing owed
    #4 Oct: 900,000 certified Nov 5, 300,000 received Nov 19 → 600,000, 15 days → 1–30
    #5 Nov 1–15: 180,000 certified Nov 20 → current
    #6 Nov 16–30: submitted Nov 20, certified Nov 21 (after the day) → not yet owed; it bills
       the day (submitted by then): line 5 = 10 % of 3,300,000 = 330,000 retainage held
    Owed 500,000 + 450,000 + 600,000 + 180,000 = 1,730,000 on four pay apps."""
    job = make_job(account)
    project = job.project
    first = certified(
        project,
        (D(2026, 7, 1), D(2026, 7, 31)),
        1_000_000,
        (8, 1),
        (8, 3),
        amount_certified=600_000,
        certified_on=D(2026, 8, 2),
        certification_note="Stored materials not verified.",
    )
    receive(first, 100_000, (8, 20))
    second = certified(project, (D(2026, 8, 1), D(2026, 8, 31)), 500_000, (9, 1), (9, 5))
    third = certified(project, (D(2026, 9, 1), D(2026, 9, 30)), 500_000, (10, 1), (10, 10))
    receive(third, 450_000, (11, 18))
    fourth = certified(project, (D(2026, 10, 1), D(2026, 10, 31)), 1_000_000, (11, 2), (11, 5))
    receive(fourth, 300_000, (11, 19))
    certified(project, (D(2026, 11, 1), D(2026, 11, 15)), 200_000, (11, 16), (11, 20))
    certified(project, (D(2026, 11, 16), D(2026, 11, 30)), 100_000, (11, 20), (11, 21))
    receive(second, 450_000, (11, 22))

    with at(11, 24):
        report = body(api.get("/v1/reports/ar-aging", {"as_of": "2026-11-20"}))
    (row,) = report["data"]
    assert (row["project"], row["owner"], row["owner_name"]) == (
        project.pk,
        project.owner_id,
        project.owner.name,
    )
    assert {k: row[k] for k in BUCKETS} == {
        "current": 180_000,
        "days_1_30": 600_000,
        "days_31_60": 0,
        "days_61_90": 450_000,
        "days_over_90": 500_000,
        "total": 1_730_000,
    }
    assert (row["retainage_held"], row["pay_apps"], row["currency"]) == (330_000, 4, "usd")
    assert report["totals"]["total"] == 1_730_000

    # The day after: #6 is certified (current); #2 still owed (its check came on the 22nd).
    with at(11, 24):
        later = body(api.get("/v1/reports/ar-aging", {"as_of": "2026-11-21"}))["data"][0]
    assert (later["current"], later["days_61_90"], later["total"]) == (
        90_000,
        450_000,
        1_730_000 + 90_000,
    )
    # Today: #2 paid; the rest aged four more days.
    with at(11, 24):
        today = body(api.get("/v1/reports/ar-aging"))["data"][0]
    assert {k: today[k] for k in BUCKETS} == {
        "current": 0,
        "days_1_30": 600_000 + 180_000 + 90_000,
        "days_31_60": 0,
        "days_61_90": 0,
        "days_over_90": 500_000,
        "total": 1_370_000,
    }


def test_a_past_day_never_moves_when_a_late_receipt_is_entered(api, account):
    """A receipt recorded on Dec 3 for a check that came on Nov 28 leaves Nov 30's report as
    it was: the books of Nov 30 did not hold it."""
    job = make_job(account)
    pay_app = certified(job.project, (D(2026, 10, 1), D(2026, 10, 31)), 1_000_000, (11, 2), (11, 4))
    with at(12, 1):
        before = body(api.get("/v1/reports/ar-aging", {"as_of": "2026-11-30"}))
    with at(12, 3):
        pay_app_payment_create(
            pay_app_id=pay_app.pk, amount=900_000, received_on=D(2026, 11, 28), reference="late"
        )
        after = body(api.get("/v1/reports/ar-aging", {"as_of": "2026-11-30"}))
        today = body(api.get("/v1/reports/ar-aging"))
    assert before == after
    assert after["data"][0]["days_1_30"] == 900_000
    assert today["data"][0]["total"] == 0 and today["data"][0]["retainage_held"] == 100_000


def test_filters_by_project_and_owner_and_scope(api, account, make_api):
    one = make_job(account, number="A-1")
    other_owner = OwnerFactory(account=account, name="Harbor Port Authority")
    two = make_job(account, number="B-2", owner=other_owner)
    for job in (one, two):
        certified(job.project, (D(2026, 10, 1), D(2026, 10, 31)), 1_000_000, (11, 2), (11, 4))
    with at(11, 24):
        both = body(api.get("/v1/reports/ar-aging"))
        assert [r["project_number"] for r in both["data"]] == ["A-1", "B-2"]
        assert both["totals"]["total"] == 1_800_000
        by_owner = body(api.get("/v1/reports/ar-aging", {"owner": other_owner.pk}))
        assert [r["owner_name"] for r in by_owner["data"]] == ["Harbor Port Authority"]
        by_project = body(api.get("/v1/reports/ar-aging", {"project": one.project.pk}))
        assert [r["project"] for r in by_project["data"]] == [one.project.pk]
        restricted = make_api(account, "viewer", projects=[two.project])
        seen = body(restricted.get("/v1/reports/ar-aging"))
        assert [r["project"] for r in seen["data"]] == [two.project.pk]
        unknown = api.get("/v1/reports/ar-aging", {"vendor": "vnd_x"})
        assert unknown.status_code == 400
        assert body(unknown)["error"]["code"] == "parameter_unknown"


def test_ar_aging_queries_do_not_grow_with_the_certificates(api, account):
    def count():
        with CaptureQueriesContext(connection) as queries, at(11, 24):
            response = api.get("/v1/reports/ar-aging")
        assert response.status_code == 200
        return len(queries), len(body(response)["data"])

    job = make_job(account, number="Q-0")
    certified(job.project, (D(2026, 10, 1), D(2026, 10, 31)), 1_000_000, (11, 2), (11, 4))
    one, rows = count()
    assert rows == 1
    for n in range(1, 5):
        job = make_job(account, number=f"Q-{n}")
        pay_app = certified(
            job.project, (D(2026, 10, 1), D(2026, 10, 31)), 1_000_000, (11, 2), (11, 4)
        )
        receive(pay_app, 100_000, (11, 5))
        certified(job.project, (D(2026, 11, 1), D(2026, 11, 15)), 500_000, (11, 16), (11, 17))
    assert count() == (one, 5)
