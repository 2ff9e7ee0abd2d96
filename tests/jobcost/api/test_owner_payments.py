"""The owner's side of a pay app through the API (docs/resources.md, pay_app, "Certification"
and pay_app_payment): approving certifies an amount on a day, receipts are recorded against the
certificate until it is paid, mark-paid records what remains, and an invoice's mark-paid keeps
the day and the check number.

The job (tests.factories.make_job): contract 10,000,000 cents, retainage 10 %. Pay app #1
bills 1,000,000 of work on item 1, so line 4 = 1,000,000, line 5 = 100,000, line 6 = line 8 =
900,000 ($9,000.00)."""

from __future__ import annotations

import datetime
import threading

import pytest
from django.db import connection, connections
from django.utils import timezone

from audit.ids import new_id
from audit.models import AuditEntry
from jobcost.models import Invoice, PayApp, PayAppPayment
from jobcost.services import pay_apps as pay_app_services
from tests.conftest import Api, error_of
from tests.factories import AccountFactory, make_invoice, make_job, make_key, make_pay_app
from tests.jobcost.api.state import DOMAIN_MODELS, digest
from tests.waiting import backend_pid, until_blocked_by
from webhooks.models import Event

LINE_8 = 900_000


@pytest.fixture
def job(account):
    return make_job(account)


def submitted(job, start="2026-01-01", end="2026-01-31", work=1_000_000) -> PayApp:
    """A submitted pay app that bills `work` cents on item 1."""
    pay_app = make_pay_app(job.project, start, end)
    pay_app_services.pay_app_update(
        pay_app_id=pay_app.pk, lines=[{"item": "1", "this_period": work}]
    )
    return pay_app_services.pay_app_submit(pay_app_id=pay_app.pk, allow_missing_waivers=True)


def approved(api, job, **certificate) -> dict:
    pay_app = submitted(job)
    response = api.post(f"/v1/pay-apps/{pay_app.pk}/approve", certificate)
    assert response.status_code == 200, response.content
    return response.json()


def events(pay_app_id: str) -> list[Event]:
    return list(Event.objects.filter(object_id=pay_app_id).order_by("created_at", "id"))


def trail(api, pay_app_id: str) -> list[dict]:
    return api.get(f"/v1/pay-apps/{pay_app_id}/audit", {"limit": 100}).json()["data"]


def today() -> datetime.date:
    return timezone.localdate()


# --- approve: the certificate ----------------------------------------------------------------


def test_approve_certifies_line_8_today_by_default(api, job):
    body = approved(api, job)
    assert body["current_payment_due"] == LINE_8
    assert (body["status"], body["amount_certified"], body["certified_on"]) == (
        "approved",
        LINE_8,
        today().isoformat(),
    )
    assert (body["certification_note"], body["amount_paid"], body["amount_remaining"]) == (
        "",
        0,
        LINE_8,
    )
    entry = trail(api, body["id"])[-1]
    assert entry["action"] == "approved"
    assert entry["changes"]["amount_certified"] == {"before": None, "after": LINE_8}
    assert entry["changes"]["certified_on"] == {"before": None, "after": today().isoformat()}
    event = events(body["id"])[-1]
    assert event.type == "pay_app.approved"
    assert event.data["object"]["amount_certified"] == LINE_8
    assert event.data["previous_attributes"]["amount_certified"] is None


def test_a_draft_or_submitted_pay_app_shows_nothing_certified(api, job):
    pay_app = submitted(job)
    body = api.get(f"/v1/pay-apps/{pay_app.pk}").json()
    assert (body["amount_certified"], body["certified_on"], body["amount_remaining"]) == (
        None,
        None,
        None,
    )
    assert body["amount_paid"] == 0


def test_approve_for_less_with_a_note_and_a_date(api, job):
    pay_app = submitted(job)
    response = api.post(
        f"/v1/pay-apps/{pay_app.pk}/approve",
        {
            "amount_certified": 750_000,
            "certified_on": today().isoformat(),
            "certification_note": "  Stored steel not yet verified on site.  ",
        },
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["amount_certified"], body["amount_remaining"]) == (750_000, 750_000)
    assert body["certification_note"] == "Stored steel not yet verified on site."
    assert body["current_payment_due"] == LINE_8  # the application itself is unchanged
    entry = trail(api, pay_app.pk)[-1]
    assert (entry["action"], entry["note"]) == (
        "approved",
        "Stored steel not yet verified on site.",
    )
    assert entry["changes"]["certification_note"]["after"] == (
        "Stored steel not yet verified on site."
    )
    assert events(pay_app.pk)[-1].data["object"]["certification_note"] == (
        "Stored steel not yet verified on site."
    )


def test_approve_may_certify_nothing_with_a_note(api, job):
    body = approved(api, job, amount_certified=0, certification_note="Work rejected.")
    assert (body["amount_certified"], body["amount_remaining"]) == (0, 0)


def _refused(api, pay_app, certificate):
    before = digest(DOMAIN_MODELS)
    response = api.post(f"/v1/pay-apps/{pay_app.pk}/approve", certificate)
    assert digest(DOMAIN_MODELS) == before
    assert PayApp.objects.get(pk=pay_app.pk).status == "submitted"
    return response


def test_approve_refuses_more_than_line_8_in_dollars(api, job):
    pay_app = submitted(job)
    response = _refused(api, pay_app, {"amount_certified": LINE_8 + 1})
    assert response.status_code == 422
    error = error_of(response)
    assert (error["code"], error["param"], error["object"]) == (
        "exceeds_payment_due",
        "amount_certified",
        pay_app.pk,
    )
    assert error["message"] == (
        "The amount certified, $9,000.01, is more than pay app #1's current payment due "
        "(G702 line 8) of $9,000.00; the architect certifies at most the amount applied for."
    )


@pytest.mark.parametrize("note", [None, "", "   "])
def test_approve_for_less_needs_a_note(api, job, note):
    pay_app = submitted(job)
    certificate = {"amount_certified": 500_000}
    if note is not None:
        certificate["certification_note"] = note
    response = _refused(api, pay_app, certificate)
    assert response.status_code == 400
    error = error_of(response)
    assert (error["code"], error["param"]) == ("parameter_missing", "certification_note")
    assert "$5,000.00 of the $9,000.00" in error["message"]


def test_approve_refuses_a_day_before_the_submission_or_after_today(api, job):
    pay_app = submitted(job)
    submitted_on = timezone.localdate(pay_app.submitted_at)
    for day in (submitted_on - datetime.timedelta(days=1), today() + datetime.timedelta(days=1)):
        response = _refused(api, pay_app, {"certified_on": day.isoformat()})
        assert response.status_code == 400, day
        assert (error_of(response)["code"], error_of(response)["param"]) == (
            "parameter_invalid",
            "certified_on",
        )
    for day in ("1969-12-31", "2100-01-01", "2026-02-30"):
        response = _refused(api, pay_app, {"certified_on": day})
        assert response.status_code == 400 and error_of(response)["param"] == "certified_on"
    response = _refused(api, pay_app, {"amount_certified": -1})
    assert response.status_code == 400 and error_of(response)["param"] == "amount_certified"
    response = _refused(api, pay_app, {"certification_note": "x" * 2001})
    assert response.status_code == 400 and error_of(response)["param"] == "certification_note"


# --- receipts --------------------------------------------------------------------------------


def pay(api, pay_app_id, amount, **extra):
    return api.post(f"/v1/pay-apps/{pay_app_id}/payments", {"amount": amount, **extra})


def test_receipts_until_the_certificate_is_paid(api, job):
    pay_app = approved(api, job, amount_certified=750_000, certification_note="Short.")
    first = pay(api, pay_app["id"], 500_000, received_on=today().isoformat(), reference="4411")
    assert first.status_code == 201, first.content
    receipt = first.json()
    assert receipt["id"].startswith("pmt_") and receipt["object"] == "pay_app_payment"
    assert {k: receipt[k] for k in ("pay_app", "project", "currency", "amount", "reference")} == {
        "pay_app": pay_app["id"],
        "project": job.project.pk,
        "currency": "usd",
        "amount": 500_000,
        "reference": "4411",
    }
    assert receipt["received_on"] == today().isoformat()
    now = api.get(f"/v1/pay-apps/{pay_app['id']}").json()
    assert (now["status"], now["amount_paid"], now["amount_remaining"]) == (
        "approved",
        500_000,
        250_000,
    )
    assert now["paid_at"] is None
    partial = events(pay_app["id"])[-1]
    assert partial.type == "pay_app.updated"
    assert partial.data["previous_attributes"] == {"amount_paid": 0, "amount_remaining": 750_000}
    assert partial.data["object"]["amount_paid"] == 500_000

    second = pay(api, pay_app["id"], 250_000, reference="4460")
    assert second.status_code == 201, second.content
    assert second.json()["received_on"] == today().isoformat()
    done = api.get(f"/v1/pay-apps/{pay_app['id']}").json()
    assert (done["status"], done["amount_paid"], done["amount_remaining"]) == ("paid", 750_000, 0)
    assert done["paid_at"]
    paid = events(pay_app["id"])[-1]
    assert paid.type == "pay_app.paid"
    assert paid.data["previous_attributes"]["status"] == "approved"
    actions = [(e["action"], e["note"]) for e in trail(api, pay_app["id"])][-2:]
    assert actions == [
        (
            "payment_received",
            f"Received $5,000.00 on {today():%B} {today().day}, {today().year}, reference 4411 "
            f"({receipt['id']}).",
        ),
        (
            "paid",
            f"Received $2,500.00 on {today():%B} {today().day}, {today().year}, reference 4460 "
            f"({second.json()['id']}).",
        ),
    ]
    assert AuditEntry.objects.filter(
        target_type="pay_app_payment", target_id=receipt["id"], action="created"
    ).exists()


def test_a_receipt_over_what_remains_is_refused_in_dollars(api, job):
    pay_app = approved(api, job)
    assert pay(api, pay_app["id"], 600_000).status_code == 201
    before = digest(DOMAIN_MODELS)
    events_before = Event.objects.count()
    response = pay(api, pay_app["id"], 300_001)
    assert response.status_code == 422
    error = error_of(response)
    assert (error["code"], error["param"], error["object"]) == (
        "exceeds_amount_remaining",
        "amount",
        pay_app["id"],
    )
    assert error["message"] == (
        "A receipt of $3,000.01 is more than the $3,000.00 remaining on pay app #1 "
        "($9,000.00 certified, $6,000.00 received)."
    )
    assert digest(DOMAIN_MODELS) == before
    assert Event.objects.count() == events_before


def test_receipts_only_against_an_approved_pay_app(api, job):
    pay_app = submitted(job)
    response = pay(api, pay_app.pk, 100)
    assert response.status_code == 409
    assert (error_of(response)["code"], error_of(response)["object"]) == (
        "invalid_state_transition",
        pay_app.pk,
    )
    assert "approve it before" in error_of(response)["message"]
    api.post(f"/v1/pay-apps/{pay_app.pk}/approve")
    assert pay(api, pay_app.pk, LINE_8).status_code == 201
    again = pay(api, pay_app.pk, 1)
    assert again.status_code == 409
    assert error_of(again)["message"] == ("Pay app #1 is paid in full; nothing remains to receive.")
    assert PayAppPayment.objects.filter(pay_app=pay_app).count() == 1


@pytest.mark.parametrize(
    "body,param",
    [
        ({"amount": 0}, "amount"),
        ({"amount": -5}, "amount"),
        ({"amount": "100"}, "amount"),
        ({}, "amount"),
        ({"amount": 100, "received_on": "2099-13-01"}, "received_on"),
        ({"amount": 100, "received_on": "1969-12-31"}, "received_on"),
        ({"amount": 100, "reference": "x" * 101}, "reference"),
        ({"amount": 100, "reference": 4411}, "reference"),
        ({"amount": 100, "check": "1"}, "check"),
    ],
)
def test_a_malformed_receipt_is_400(api, job, body, param):
    pay_app = approved(api, job)
    response = api.post(f"/v1/pay-apps/{pay_app['id']}/payments", body)
    assert response.status_code == 400, response.content
    assert error_of(response)["param"] == param
    assert PayAppPayment.objects.count() == 0


def test_a_receipt_dated_after_today_is_refused(api, job):
    pay_app = approved(api, job)
    tomorrow = today() + datetime.timedelta(days=1)
    response = pay(api, pay_app["id"], 100, received_on=tomorrow.isoformat())
    assert response.status_code == 400
    assert error_of(response)["param"] == "received_on"
    assert "is in the future" in error_of(response)["message"]
    assert PayAppPayment.objects.count() == 0


def test_receipts_list_newest_first_in_pages(api, job):
    pay_app = approved(api, job)
    ids = [pay(api, pay_app["id"], 100_000 * n, reference=f"C-{n}").json()["id"] for n in (1, 2, 3)]
    first = api.get(f"/v1/pay-apps/{pay_app['id']}/payments", {"limit": 2}).json()
    assert [p["id"] for p in first["data"]] == [ids[2], ids[1]] and first["has_more"]
    rest = api.get(
        f"/v1/pay-apps/{pay_app['id']}/payments", {"limit": 2, "cursor": first["next_cursor"]}
    ).json()
    assert [p["id"] for p in rest["data"]] == [ids[0]] and not rest["has_more"]
    unknown = api.get(f"/v1/pay-apps/{pay_app['id']}/payments", {"status": "paid"})
    assert unknown.status_code == 400 and error_of(unknown)["code"] == "parameter_unknown"


def test_a_replayed_receipt_records_one(api, job):
    pay_app = approved(api, job)
    first = api.post(f"/v1/pay-apps/{pay_app['id']}/payments", {"amount": 100}, idem="rcpt-1")
    again = api.post(f"/v1/pay-apps/{pay_app['id']}/payments", {"amount": 100}, idem="rcpt-1")
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert PayAppPayment.objects.count() == 1


@pytest.mark.parametrize(
    "role,code",
    [("member", "role_forbidden"), ("agent", "agent_cannot_approve"), ("viewer", "role_forbidden")],
)
def test_who_may_record_a_receipt(api, job, make_api, role, code):
    pay_app = approved(api, job)
    response = make_api(job.project.account, role).post(
        f"/v1/pay-apps/{pay_app['id']}/payments", {"amount": 100}
    )
    assert response.status_code == 403 and error_of(response)["code"] == code
    assert PayAppPayment.objects.count() == 0
    listed = make_api(job.project.account, role).get(f"/v1/pay-apps/{pay_app['id']}/payments")
    assert listed.status_code == 200


# --- mark paid -------------------------------------------------------------------------------


def test_mark_paid_records_what_remains_as_one_receipt(api, job):
    pay_app = approved(api, job)
    pay(api, pay_app["id"], 100_000, reference="first")
    response = api.post(
        f"/v1/pay-apps/{pay_app['id']}/mark-paid",
        {"received_on": today().isoformat(), "reference": "wire 88"},
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["status"], body["amount_paid"], body["amount_remaining"]) == ("paid", LINE_8, 0)
    receipts = api.get(f"/v1/pay-apps/{pay_app['id']}/payments").json()["data"]
    assert [(r["amount"], r["reference"]) for r in receipts] == [
        (LINE_8 - 100_000, "wire 88"),
        (100_000, "first"),
    ]
    assert events(pay_app["id"])[-1].type == "pay_app.paid"


def test_mark_paid_with_nothing_certified_records_no_receipt(api, job):
    pay_app = approved(api, job, amount_certified=0, certification_note="Nothing certified.")
    refused = api.post(f"/v1/pay-apps/{pay_app['id']}/mark-paid", {"reference": "1"})
    assert refused.status_code == 400 and error_of(refused)["param"] == "reference"
    response = api.post(f"/v1/pay-apps/{pay_app['id']}/mark-paid")
    assert response.status_code == 200 and response.json()["status"] == "paid"
    assert PayAppPayment.objects.count() == 0


# --- invoices --------------------------------------------------------------------------------


def test_invoice_mark_paid_keeps_the_day_and_the_check_number(api, job):
    invoice = make_invoice(
        job.commitment, amount=10_000, number="P-1", invoice_date="2026-01-10", status="approved"
    )
    response = api.post(
        f"/v1/invoices/{invoice.pk}/mark-paid", {"paid_on": "2026-01-20", "reference": "7781"}
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["status"], body["paid_on"], body["payment_reference"]) == (
        "paid",
        "2026-01-20",
        "7781",
    )
    entry = api.get(f"/v1/invoices/{invoice.pk}/audit").json()["data"][-1]
    assert entry["action"] == "paid"
    assert entry["changes"]["paid_on"] == {"before": None, "after": "2026-01-20"}
    assert entry["changes"]["payment_reference"] == {"before": "", "after": "7781"}


def test_invoice_mark_paid_defaults_to_today(api, job):
    invoice = make_invoice(job.commitment, amount=10_000, number="P-2", status="approved")
    body = api.post(f"/v1/invoices/{invoice.pk}/mark-paid").json()
    assert (body["paid_on"], body["payment_reference"]) == (today().isoformat(), "")


@pytest.mark.parametrize("day", ["2026-01-09", "2099-12-31", "1900-01-01", "tomorrow"], ids=str)
def test_invoice_mark_paid_refuses_a_day_before_the_invoice_or_after_today(api, job, day):
    invoice = make_invoice(
        job.commitment, amount=10_000, number="P-3", invoice_date="2026-01-10", status="approved"
    )
    before = digest(DOMAIN_MODELS)
    response = api.post(f"/v1/invoices/{invoice.pk}/mark-paid", {"paid_on": day})
    assert response.status_code == 400
    assert (error_of(response)["code"], error_of(response)["param"]) == (
        "parameter_invalid",
        "paid_on",
    )
    assert digest(DOMAIN_MODELS) == before
    assert Invoice.objects.get(pk=invoice.pk).status == "approved"


# --- the row lock ----------------------------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_receipt_waits_for_one_in_flight_and_reads_what_it_left():
    """Another transaction holds the pay app (as a receipt does) and has inserted a receipt of
    everything that remains, not yet committed. A second receipt must queue on the pay app's
    row and, once the first commits, find nothing remaining: 422, never a receipt past the
    certificate (without the lock it would read the uncommitted first as absent and pass)."""
    account = AccountFactory()
    job = make_job(account)
    _, secret = make_key(account, "admin")
    pay_app = submitted(job)
    pay_app_services.pay_app_approve(pay_app_id=pay_app.pk)
    holder = connections.create_connection("default")
    probe = connections.create_connection("default")
    results = {}

    def second():
        try:
            results["response"] = Api(secret).post(
                f"/v1/pay-apps/{pay_app.pk}/payments", {"amount": 1}
            )
        finally:
            connection.close()

    thread = threading.Thread(target=second)
    try:
        holder.set_autocommit(False)
        with holder.cursor() as cursor:
            table = connection.ops.quote_name(PayApp._meta.db_table)
            cursor.execute(f"SELECT 1 FROM {table} WHERE id = %s FOR NO KEY UPDATE", [pay_app.pk])
            cursor.execute(
                f"INSERT INTO {connection.ops.quote_name(PayAppPayment._meta.db_table)} "
                "(id, created_at, updated_at, account_id, project_id, pay_app_id, amount, "
                "received_on, reference) VALUES (%s, now(), now(), %s, %s, %s, %s, %s, '')",
                [
                    new_id("pmt"),
                    account.pk,
                    job.project.pk,
                    pay_app.pk,
                    LINE_8,
                    today(),
                ],
            )
        thread.start()
        until_blocked_by(probe, backend_pid(holder), alive=thread.is_alive)
        holder.commit()
    finally:
        probe.close()
        holder.close()
        if thread.ident is not None:
            thread.join(timeout=60)
    assert not thread.is_alive()
    response = results["response"]
    assert response.status_code == 422, response.content
    assert error_of(response)["code"] == "exceeds_amount_remaining"
    assert "the $0.00 remaining" in error_of(response)["message"]
    assert PayAppPayment.objects.filter(pay_app=pay_app).count() == 1
