"""Commitments in the back office: create and edit through the services (draft only), and
execute / close / void as actions with the API's rules and budget effects."""

from decimal import Decimal

from audit.models import AuditEntry
from jobcost.models import BudgetLine, Commitment
from tests.factories import CommitmentFactory, VendorFactory
from tests.jobcost.admin.pages import admin_url, errors_of, form_data, messages_of, run_list_action

LIST = "/admin/jobcost/commitment/"


def change_url(commitment) -> str:
    return admin_url(commitment)


def committed(cost_code) -> int:
    return BudgetLine.objects.get(cost_code=cost_code).committed


def _act(web, action, *commitments):
    return run_list_action(web, LIST, action, commitments)


def test_add_commitment_takes_the_service_defaults_and_is_audited(web, job):
    response = web.post(
        "/admin/jobcost/commitment/add/",
        {
            "project": job.project.pk,
            "vendor": job.vendor.pk,
            "type": "subcontract",
            "number": "",
            "cost_code": job.electrical.pk,
            "original_amount": "$1,234,567.89",
            "retainage_pct": "",
            "description": "Electrical rough-in",
        },
    )

    assert response.status_code == 302, errors_of(response)
    made = Commitment.objects.get(description="Electrical rough-in")
    assert (made.number, made.status, made.original_amount, made.retainage_pct) == (
        "SC-002",
        "draft",
        123_456_789,
        Decimal("10.00"),
    )
    entry = AuditEntry.objects.get(target_id=made.pk)
    assert (entry.action, entry.actor_type, entry.actor_id) == ("created", "user", "accountant")


def test_add_commitment_refuses_a_vendor_of_another_account(web, job):
    stranger = VendorFactory()
    audit_before = AuditEntry.objects.count()
    response = web.post(
        "/admin/jobcost/commitment/add/",
        {
            "project": job.project.pk,
            "vendor": stranger.pk,
            "type": "purchase_order",
            "original_amount": "100",
        },
    )
    assert response.status_code == 200
    assert "This vendor belongs to another account." in errors_of(response)
    assert Commitment.objects.count() == 1
    assert AuditEntry.objects.count() == audit_before


def test_execute_moves_the_status_and_the_budget_committed(web, job):
    assert committed(job.concrete) == 0

    response = _act(web, "execute", job.subcontract)

    assert ("success", f"{job.subcontract}: executed.") in messages_of(response)
    job.subcontract.refresh_from_db()
    assert job.subcontract.status == "executed"
    assert job.subcontract.executed_at is not None
    assert committed(job.concrete) == 5_200_000_00
    entry = AuditEntry.objects.filter(target_id=job.subcontract.pk).latest("created_at")
    assert (entry.action, entry.actor_type, entry.actor_id) == ("executed", "user", "accountant")


def test_execute_reports_each_refusal_and_runs_the_others(web, job):
    uncoded = CommitmentFactory(project=job.project, vendor=job.vendor, cost_code=None)

    response = _act(web, "execute", job.subcontract, uncoded)

    shown = messages_of(response)
    assert ("success", f"{job.subcontract}: executed.") in shown
    assert ("error", f"{uncoded}: Set the commitment's cost_code before executing it.") in shown
    uncoded.refresh_from_db()
    assert uncoded.status == "draft"
    assert committed(job.concrete) == 5_200_000_00


def test_close_keeps_the_commitment_in_committed(web, job):
    _act(web, "execute", job.subcontract)

    response = _act(web, "close", job.subcontract)

    assert ("success", f"{job.subcontract}: closed.") in messages_of(response)
    job.subcontract.refresh_from_db()
    assert job.subcontract.status == "closed"
    assert committed(job.concrete) == 5_200_000_00
    again = _act(web, "close", job.subcontract)
    assert ("error", f"{job.subcontract}: Cannot close a commitment that is closed.") in (
        messages_of(again)
    )


def test_void_takes_an_executed_commitment_off_the_budget(web, job):
    _act(web, "execute", job.subcontract)
    draft = CommitmentFactory(project=job.project, vendor=job.vendor, cost_code=job.concrete)

    response = _act(web, "void", job.subcontract, draft)

    shown = messages_of(response)
    assert ("success", f"{job.subcontract}: voided.") in shown
    assert ("success", f"{draft}: voided.") in shown
    assert set(Commitment.objects.values_list("status", flat=True)) == {"void"}
    assert committed(job.concrete) == 0


def test_close_and_void_refuse_a_draft_and_a_closed_commitment(web, job):
    refused = _act(web, "close", job.subcontract)
    assert ("error", f"{job.subcontract}: Cannot close a commitment that is draft.") in (
        messages_of(refused)
    )
    _act(web, "execute", job.subcontract)
    _act(web, "close", job.subcontract)
    audit_before = AuditEntry.objects.count()

    void = _act(web, "void", job.subcontract)

    assert ("error", f"{job.subcontract}: Cannot void a commitment that is closed.") in (
        messages_of(void)
    )
    job.subcontract.refresh_from_db()
    assert job.subcontract.status == "closed"
    assert committed(job.concrete) == 5_200_000_00
    assert AuditEntry.objects.count() == audit_before


def test_a_draft_is_edited_through_the_service(web, job):
    data = form_data(web.get(change_url(job.subcontract)), "commitment_form")
    assert data["original_amount"] == "5200000.00"

    response = web.post(change_url(job.subcontract), {**data, "original_amount": "5,300,000"})

    assert response.status_code == 302, errors_of(response)
    job.subcontract.refresh_from_db()
    assert job.subcontract.original_amount == 5_300_000_00
    entry = AuditEntry.objects.filter(target_id=job.subcontract.pk).latest("created_at")
    assert entry.changes == {"original_amount": {"before": 520_000_000, "after": 530_000_000}}
    assert (entry.actor_type, entry.actor_id) == ("user", "accountant")


def test_an_executed_commitment_cannot_be_edited(web, job):
    _act(web, "execute", job.subcontract)
    data = form_data(web.get(change_url(job.subcontract)), "commitment_form")
    audit_before = AuditEntry.objects.count()

    response = web.post(change_url(job.subcontract), {**data, "original_amount": "1"})

    assert response.status_code == 200
    assert (
        "Only draft commitments can be edited; this one is executed. "
        "Use a commitment change order." in errors_of(response)
    )
    job.subcontract.refresh_from_db()
    assert job.subcontract.original_amount == 5_200_000_00
    assert AuditEntry.objects.count() == audit_before


def test_service_owned_fields_are_read_only(web, job):
    data = form_data(web.get(change_url(job.subcontract)), "commitment_form")
    for owned in ("status", "approved_changes", "billed_to_date", "executed_at", "project"):
        assert owned not in data
    response = web.post(
        change_url(job.subcontract), {**data, "status": "executed", "billed_to_date": "1"}
    )
    assert response.status_code == 302
    job.subcontract.refresh_from_db()
    assert (job.subcontract.status, job.subcontract.billed_to_date) == ("draft", 0)
