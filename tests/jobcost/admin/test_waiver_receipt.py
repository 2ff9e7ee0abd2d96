"""Recording a lien waiver's receipt from its page: "Record receipt" → the date received
(today or earlier) and the document's link → "Confirm", through `lien_waiver_update` as
`PATCH /v1/lien-waivers/{id}`; a future date is refused in words and nothing is written."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from audit.models import AuditEntry
from jobcost.models import LienWaiver
from tests.conftest import Api
from tests.factories import AccountFactory, make_invoice, make_job, make_key, make_pay_app
from tests.jobcost.admin.pages import (
    admin_url,
    errors_of,
    form_data,
    member_client,
    messages_of,
    text,
)

DOCUMENT = "https://files.example.com/waivers/acme-a1.pdf"


@pytest.fixture
def money(db):
    """`make_job`'s project; approving invoice A-1 ($3,000.00, dated 2026-11-10) requested a
    conditional progress waiver from Acme Concrete; the November pay app is a draft."""
    account = AccountFactory(name="Harbor Build Co")
    job = make_job(account)
    job.account = account
    job.pay_app = make_pay_app(job.project, "2026-11-01", "2026-11-30")
    invoice = make_invoice(
        job.commitment, amount=300_000, number="A-1", invoice_date="2026-11-10", status="approved"
    )
    job.waiver = LienWaiver.objects.get(invoice=invoice)
    return job


def _receive_url(waiver: LienWaiver) -> str:
    return admin_url(waiver).replace("/change/", "/receive/")


def _api(account) -> Api:
    _key, secret = make_key(account, "admin")
    return Api(secret)


def test_record_receipt_with_yesterdays_date_and_the_document(money):
    accountant = member_client(money.account, "member")
    yesterday = timezone.localdate() - datetime.timedelta(days=1)
    api = _api(money.account)
    assert api.get(f"/v1/pay-apps/{money.pay_app.pk}").json()["lien_waivers_missing"] == [
        money.vendor.pk
    ]
    page = accountant.get(admin_url(money.waiver)).content.decode()
    assert 'data-step="record-receipt"' in page

    confirm = accountant.get(_receive_url(money.waiver))

    assert confirm.status_code == 200
    assert (
        "Record the conditional progress waiver from Acme Concrete for $3,000.00 through "
        "November 10, 2026 as received."
    ) in text(confirm)
    data = form_data(confirm, "step-form")
    assert data["received_on"] == timezone.localdate().isoformat()
    assert '<label for="id_received_on">Date received:</label>' in confirm.content.decode()
    assert '<button type="submit" class="default">Confirm</button>' in confirm.content.decode()

    done = accountant.post(
        _receive_url(money.waiver),
        {**data, "received_on": yesterday.isoformat(), "document_url": DOCUMENT},
        follow=True,
    )

    when = f"{yesterday:%B} {yesterday.day}, {yesterday.year}"
    assert messages_of(done) == [
        ("success", f"Waiver from Acme Concrete recorded as received on {when}.")
    ]
    money.waiver.refresh_from_db()
    assert (money.waiver.status, money.waiver.received_on, money.waiver.document_url) == (
        "received",
        yesterday,
        DOCUMENT,
    )
    shown = api.get(f"/v1/lien-waivers/{money.waiver.pk}").json()
    assert (shown["status"], shown["received_on"]) == ("received", yesterday.isoformat())
    assert api.get(f"/v1/pay-apps/{money.pay_app.pk}").json()["lien_waivers_missing"] == []
    entry = AuditEntry.objects.filter(target_id=money.waiver.pk).latest("created_at")
    assert (entry.action, entry.actor_type) == ("received", "user")
    assert 'data-step="record-receipt"' not in done.content.decode()


def test_a_future_date_is_refused_in_words_and_nothing_is_written(web, money):
    tomorrow = timezone.localdate() + datetime.timedelta(days=1)
    audit_before = AuditEntry.objects.count()

    refused = web.post(
        _receive_url(money.waiver),
        {"received_on": tomorrow.isoformat(), "document_url": DOCUMENT},
    )

    assert refused.status_code == 200
    [error] = errors_of(refused)
    assert error.startswith(
        f"The date received, {tomorrow:%B} {tomorrow.day}, {tomorrow.year}, is in the future"
    )
    assert list(refused.context["form"].errors) == ["received_on"]
    money.waiver.refresh_from_db()
    assert (money.waiver.status, money.waiver.received_on, money.waiver.document_url) == (
        "requested",
        None,
        "",
    )
    assert AuditEntry.objects.count() == audit_before


def test_the_api_refuses_a_future_date_with_the_same_rule(money):
    tomorrow = timezone.localdate() + datetime.timedelta(days=1)
    response = _api(money.account).patch(
        f"/v1/lien-waivers/{money.waiver.pk}",
        {"status": "received", "received_on": tomorrow.isoformat()},
    )
    assert response.status_code == 400
    assert response.json()["error"]["param"] == "received_on"
    money.waiver.refresh_from_db()
    assert money.waiver.status == "requested"


def test_a_requested_waivers_form_asks_no_date_and_a_received_one_is_final(web, money):
    page = web.get(admin_url(money.waiver))
    data = form_data(page, "lienwaiver_form")
    assert "received_on" not in data and "document_url" in data
    web.post(_receive_url(money.waiver), {"received_on": "2026-11-20", "document_url": ""})

    again = web.get(_receive_url(money.waiver))

    assert 'id="step-form"' not in again.content.decode()
    refused = web.post(_receive_url(money.waiver), {"received_on": "2026-11-21"})
    assert errors_of(refused) == [
        "This waiver was already received on November 20, 2026; correct the date on its page."
    ]
    money.waiver.refresh_from_db()
    assert money.waiver.received_on == datetime.date(2026, 11, 20)
    corrected = form_data(web.get(admin_url(money.waiver)), "lienwaiver_form")
    assert corrected["received_on"] == "2026-11-20"


def test_viewer_refused_and_another_account_404(money):
    viewer = member_client(money.account, "viewer")
    stranger = member_client(make_job(AccountFactory()).project.account, "manager")
    before = AuditEntry.objects.count()

    assert viewer.get(_receive_url(money.waiver)).status_code == 403
    assert viewer.post(_receive_url(money.waiver), {"received_on": "2026-11-20"}).status_code == 403
    assert 'data-step="' not in viewer.get(admin_url(money.waiver)).content.decode()
    assert stranger.get(_receive_url(money.waiver)).status_code == 404
    assert (
        stranger.post(_receive_url(money.waiver), {"received_on": "2026-11-20"}).status_code == 404
    )

    money.waiver.refresh_from_db()
    assert money.waiver.status == "requested"
    assert AuditEntry.objects.count() == before


def test_request_a_waiver_by_hand_from_a_commitment_as_amember_client(money):
    accountant = member_client(money.account, "member")
    add = "/admin/jobcost/lienwaiver/add/"
    form = text(accountant.get(add))
    assert "SC-001 · Acme Concrete" in form and "A-1 · $3,000.00 (Approved)" in form

    response = accountant.post(
        add,
        {
            "commitment": money.commitment.pk,
            "type": "unconditional_progress",
            "amount": "2,700.00",
            "through_date": "2026-10-31",
        },
    )

    assert response.status_code == 302, errors_of(response)
    made = LienWaiver.objects.get(type="unconditional_progress")
    assert (made.project_id, made.vendor_id, made.amount, made.status) == (
        money.project.pk,
        money.vendor.pk,
        270_000,
        "requested",
    )
