"""Concurrent invoice approvals can never bill a commitment past its revised amount, and
codings running beside them never leave a budget line's actual off its approved lines."""

import threading

import pytest
from django.db import connection

from jobcost.models import BudgetLine, Commitment, Invoice, InvoiceLine, LienWaiver
from tests.conftest import Api
from tests.factories import (
    AccountFactory,
    CommitmentFactory,
    ProjectFactory,
    VendorFactory,
    make_invoice,
    make_job,
    make_key,
)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_twenty_concurrent_approvals_never_exceed_the_commitment():
    """Commitment of 1,000,000 cents; 20 coded invoices of 100,000 each (each fits at
    creation, since nothing is billed yet). Approved at once from 20 threads, each on its
    own database connection: exactly 10 succeed, 10 get 422 exceeds_commitment, and
    billed_to_date, remaining and the budget's actual land exactly on the commitment."""
    account = AccountFactory()
    project = ProjectFactory(account=account)
    commitment = CommitmentFactory(project=project, original_amount=1_000_000, executed=True)
    _, secret = make_key(account, "manager")
    setup = Api(secret)
    invoice_ids = []
    for n in range(20):
        created = setup.post(
            "/v1/invoices",
            {
                "commitment": commitment.pk,
                "number": f"INV-{n:03d}",
                "invoice_date": "2026-11-02",
                "amount": 100_000,
            },
        )
        assert created.status_code == 201, created.content
        coded = setup.patch(
            f"/v1/invoices/{created.json()['id']}",
            {
                "lines": [{"cost_code": commitment.cost_code_id, "amount": 100_000}],
            },
        )
        assert coded.json()["status"] == "coded"
        invoice_ids.append(created.json()["id"])

    barrier = threading.Barrier(len(invoice_ids))
    results: dict[str, tuple[int, dict]] = {}

    def approve(invoice_id: str) -> None:
        try:
            client = Api(secret)
            barrier.wait(timeout=30)
            response = client.post(f"/v1/invoices/{invoice_id}/approve")
            results[invoice_id] = (response.status_code, response.json())
        finally:
            connection.close()

    threads = [threading.Thread(target=approve, args=(i,)) for i in invoice_ids]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    statuses = sorted(status for status, _ in results.values())
    assert len(results) == 20
    assert statuses == [200] * 10 + [422] * 10
    for status, body in results.values():
        if status == 422:
            assert body["error"]["code"] == "exceeds_commitment"
            assert body["error"]["param"] == "amount"
    commitment.refresh_from_db()
    assert commitment.billed_to_date == 1_000_000
    assert commitment.remaining == 0
    assert Invoice.objects.filter(status="approved").count() == 10
    assert Invoice.objects.filter(status="coded").count() == 10
    assert BudgetLine.objects.get(cost_code_id=commitment.cost_code_id).actual == 1_000_000
    assert LienWaiver.objects.filter(commitment=commitment).count() == 10
    api_view = setup.get(f"/v1/commitments/{commitment.pk}").json()
    assert (api_view["billed_to_date"], api_view["remaining"]) == (1_000_000, 0)
    assert Commitment.objects.get(pk=commitment.pk).billed_to_date == 1_000_000


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_one_invoice_number_sent_to_a_vendors_commitments_on_eight_projects_at_once():
    """Invoice numbers are unique per vendor across projects. Eight simultaneous receipts of
    number "7781" on eight commitments of one vendor (eight projects, so no shared project or
    commitment lock): one 201, seven 409 `duplicate_invoice`, never a 500."""
    account = AccountFactory()
    vendor = VendorFactory(account=account)
    commitments = [
        CommitmentFactory(project=ProjectFactory(account=account), vendor=vendor, executed=True)
        for _ in range(8)
    ]
    _, secret = make_key(account, "member")
    barrier = threading.Barrier(len(commitments))
    results: list[tuple[int, dict]] = []

    def receive(commitment) -> None:
        try:
            client = Api(secret)
            body = {
                "commitment": commitment.pk,
                "number": "7781",
                "invoice_date": "2026-11-02",
                "amount": 1_000,
            }
            barrier.wait(timeout=30)
            response = client.post("/v1/invoices", body)
            results.append((response.status_code, response.json()))
        finally:
            connection.close()

    threads = [threading.Thread(target=receive, args=(c,)) for c in commitments]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    assert sorted(status for status, _ in results) == [201] + [409] * 7
    codes = {body["error"]["code"] for status, body in results if status == 409}
    assert codes == {"duplicate_invoice"}
    assert Invoice.objects.filter(vendor=vendor, number="7781").count() == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_codings_beside_approvals_on_one_commitment_keep_the_budget_exact():
    """A coding locks the invoice alone, so it runs beside the approvals queued on the
    commitment. Twenty-two calls at once on one commitment of 1,000,000 cents: ten coded
    invoices approved, ten received ones coded, and one more invoice approved and recoded to
    another cost code at the same moment. Every call is answered (the race's recoding either
    lands before the approval or finds it approved: 409), never a deadlock or a 500; and each
    cost code's `actual` is exactly the lines of the invoices approved on it."""
    account = AccountFactory()
    job = make_job(account)
    concrete, finishes = job.codes["03-000"], job.codes["09-000"]
    _, secret = make_key(account, "manager")
    to_approve = [
        make_invoice(job.commitment, amount=50_000, number=f"A-{n}", status="coded").pk
        for n in range(10)
    ]
    to_code = [make_invoice(job.commitment, amount=50_000, number=f"C-{n}").pk for n in range(10)]
    race = make_invoice(job.commitment, amount=30_000, number="RACE", status="coded").pk

    def lines(code, amount):
        return {"lines": [{"cost_code": code.pk, "amount": amount}]}

    calls = [("approve", pk, f"/v1/invoices/{pk}/approve", None) for pk in to_approve]
    calls += [("code", pk, f"/v1/invoices/{pk}", lines(concrete, 50_000)) for pk in to_code]
    calls += [
        ("approve", race, f"/v1/invoices/{race}/approve", None),
        ("recode", race, f"/v1/invoices/{race}", lines(finishes, 30_000)),
    ]
    barrier = threading.Barrier(len(calls))
    results: dict[tuple[str, str], int] = {}

    def send(step: str, pk: str, path: str, body) -> None:
        try:
            client = Api(secret)
            barrier.wait(timeout=30)
            response = client.post(path) if body is None else client.patch(path, body)
            results[(step, pk)] = response.status_code
        finally:
            connection.close()

    threads = [threading.Thread(target=send, args=call) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    assert len(results) == len(calls)
    assert results.pop(("recode", race)) in (200, 409)
    assert set(results.values()) == {200}
    assert Invoice.objects.filter(pk__in=to_code, status="coded").count() == 10
    approved = Invoice.objects.filter(status="approved")
    assert approved.count() == 11
    posted = {concrete.pk: 0, finishes.pk: 0}
    for code_id, amount in InvoiceLine.objects.filter(invoice__in=approved).values_list(
        "cost_code_id", "amount"
    ):
        posted[code_id] += amount
    actual = dict(
        BudgetLine.objects.filter(cost_code_id__in=posted).values_list("cost_code_id", "actual")
    )
    assert actual == posted
    assert sum(posted.values()) == 530_000
    job.commitment.refresh_from_db()
    assert job.commitment.billed_to_date == 530_000
