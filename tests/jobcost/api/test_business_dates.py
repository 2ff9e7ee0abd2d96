"""Every date the API takes is a business date from 1970-01-01 to 2099-12-31
(docs/operations/limits.md, `jobcost.limits`): outside it, 400 `parameter_invalid` naming the field
and the range, and nothing is written. An invoice's due date is not before its invoice date (400,
param `due_date`, or `invoice_date` when only that was sent)."""

from __future__ import annotations

import pytest

from jobcost.models import DailyLog, Invoice, LienWaiver, PayApp, Rfi
from tests.conftest import error_of
from tests.factories import make_invoice, make_job

OUTSIDE = ["1969-12-31", "1900-01-01", "2100-01-01", "9999-12-31"]


@pytest.fixture
def job(account):
    return make_job(account)


def _refused(response, param: str) -> None:
    assert response.status_code == 400, response.content
    error = error_of(response)
    assert (error["code"], error["param"]) == ("parameter_invalid", param), error
    assert "1970-01-01" in error["message"] and "2099-12-31" in error["message"], error


def _bodies(job) -> dict[str, tuple[str, dict, str]]:
    """name → (path, a valid create body, the date field under test)."""
    project, vendor = job.project.pk, job.vendor.pk
    return {
        "invoice_date": (
            "/v1/invoices",
            {
                "commitment": job.commitment.pk,
                "number": "D-1",
                "invoice_date": "2026-11-03",
                "amount": 100,
            },
            "invoice_date",
        ),
        "due_date": (
            "/v1/invoices",
            {
                "commitment": job.commitment.pk,
                "number": "D-2",
                "invoice_date": "2026-11-03",
                "due_date": "2026-12-03",
                "amount": 100,
            },
            "due_date",
        ),
        "period_start": (
            "/v1/pay-apps",
            {"project": project, "period_start": "2026-11-01", "period_end": "2026-11-30"},
            "period_start",
        ),
        "period_end": (
            "/v1/pay-apps",
            {"project": project, "period_start": "2026-11-01", "period_end": "2026-11-30"},
            "period_end",
        ),
        "through_date": (
            "/v1/lien-waivers",
            {
                "project": project,
                "vendor": vendor,
                "type": "conditional_progress",
                "amount": 100,
                "through_date": "2026-11-30",
            },
            "through_date",
        ),
        "daily_log_date": ("/v1/daily-logs", {"project": project, "date": "2026-11-03"}, "date"),
        "rfi_due_date": (
            "/v1/rfis",
            {
                "project": project,
                "subject": "Depth",
                "question": "Which?",
                "due_date": "2026-12-01",
            },
            "due_date",
        ),
    }


MODELS = (Invoice, PayApp, LienWaiver, DailyLog, Rfi)


def _counts():
    return [model.objects.count() for model in MODELS]


NAMES = [
    "invoice_date",
    "due_date",
    "period_start",
    "period_end",
    "through_date",
    "daily_log_date",
    "rfi_due_date",
]


@pytest.mark.parametrize("name", NAMES)
def test_a_body_date_outside_the_range_is_400_naming_the_range(api, job, name):
    path, body, field = _bodies(job)[name]
    before = _counts()
    for day in OUTSIDE:
        _refused(api.post(path, {**body, field: day}), field)
    assert _counts() == before
    assert api.post(path, body).status_code == 201  # the same body with its day is taken


def test_the_range_ends_are_taken(api, job):
    for number, day in (("E-1", "1970-01-01"), ("E-2", "2099-12-31")):
        body = {
            "commitment": job.commitment.pk,
            "number": number,
            "invoice_date": day,
            "amount": 100,
        }
        response = api.post("/v1/invoices", {**body, "due_date": day})
        assert response.status_code == 201, response.content
        assert (response.json()["invoice_date"], response.json()["due_date"]) == (day, day)


def test_edits_are_bounded_too(api, job):
    invoice = make_invoice(job.commitment, amount=100, number="P-1")
    for field in ("invoice_date", "due_date"):
        _refused(api.patch(f"/v1/invoices/{invoice.pk}", {field: "2100-01-01"}), field)
    log = api.post("/v1/daily-logs", {"project": job.project.pk, "date": "2026-11-03"}).json()
    _refused(api.patch(f"/v1/daily-logs/{log['id']}", {"date": "1969-12-31"}), "date")


def test_a_due_date_before_the_invoice_date_is_400(api, job):
    body = {
        "commitment": job.commitment.pk,
        "number": "Q-1",
        "invoice_date": "2026-11-10",
        "amount": 100,
    }
    before = _counts()
    response = api.post("/v1/invoices", {**body, "due_date": "2026-11-09"})
    assert response.status_code == 400, response.content
    error = error_of(response)
    assert (error["code"], error["param"]) == ("parameter_invalid", "due_date")
    assert "November 9, 2026" in error["message"] and "November 10, 2026" in error["message"]
    assert _counts() == before
    # The same day is fine.
    created = api.post("/v1/invoices", {**body, "due_date": "2026-11-10"})
    assert created.status_code == 201, created.content
    invoice = created.json()["id"]
    moved = api.patch(f"/v1/invoices/{invoice}", {"due_date": "2026-11-01"})
    assert error_of(moved)["param"] == "due_date"
    # Moving the invoice date past the due date names the field that was sent.
    later = api.patch(f"/v1/invoices/{invoice}", {"invoice_date": "2026-11-20"})
    assert later.status_code == 400 and error_of(later)["param"] == "invoice_date"
    both = api.patch(
        f"/v1/invoices/{invoice}", {"invoice_date": "2026-11-20", "due_date": "2026-12-20"}
    )
    assert both.status_code == 200, both.content
    assert Invoice.objects.get(pk=invoice).due_date.isoformat() == "2026-12-20"


@pytest.mark.parametrize("param", ["date[gte]", "date[lte]"])
def test_a_date_filter_outside_the_range_is_400_naming_the_range(api, job, param):
    for day in OUTSIDE:
        _refused(api.get("/v1/daily-logs", {param: day}), param)
    assert api.get("/v1/daily-logs", {param: "1970-01-01"}).status_code == 200


def test_a_reports_as_of_outside_the_range_is_400_naming_the_range(api, job):
    for day in OUTSIDE:
        _refused(api.get("/v1/reports/wip", {"as_of": day}), "as_of")
    assert api.get("/v1/reports/wip", {"as_of": "1970-01-01"}).status_code == 200
