"""The services themselves enforce what an update may write and which account a referenced
object belongs to, so the admin, agent actions and commands cannot write around the API's
rules (DEVELOPERS.md: no rule is checked only in a serializer)."""

import pytest

from audit.models import AuditEntry
from jobcost.errors import InvalidRequest
from jobcost.models import Commitment, CostCode, Project
from jobcost.services import commitments, cost_codes, invoices, parties, projects
from tests.factories import (
    AccountFactory,
    CommitmentFactory,
    OwnerFactory,
    VendorFactory,
    make_invoice,
    make_job,
)
from tests.jobcost.api.state import db_state
from webhooks.models import Event


def refused(call, param: str, code: str) -> None:
    before = db_state()
    with pytest.raises(InvalidRequest) as caught:
        call()
    assert (caught.value.code, caught.value.param) == (code, param)
    assert db_state() == before


@pytest.mark.django_db
def test_updates_refuse_fields_the_contract_does_not_let_them_write(account):
    job = make_job(account)
    draft = CommitmentFactory(project=job.project, vendor=job.vendor, cost_code=job.codes["01-000"])
    other_vendor = VendorFactory(account=account)
    other_owner = OwnerFactory(account=account)
    ro = "parameter_read_only"
    refused(
        lambda: commitments.commitment_update(
            commitment_id=draft.pk, changes={"vendor": other_vendor}
        ),
        "vendor",
        ro,
    )
    refused(
        lambda: commitments.commitment_update(
            commitment_id=draft.pk, changes={"type": "purchase_order"}
        ),
        "type",
        ro,
    )
    refused(
        lambda: projects.project_update(project_id=job.project.pk, changes={"owner": other_owner}),
        "owner",
        ro,
    )
    refused(
        lambda: projects.project_update(project_id=job.project.pk, changes={"currency": "cad"}),
        "currency",
        ro,
    )
    line = job.codes["03-000"].budget_line
    refused(
        lambda: cost_codes.budget_line_update(budget_line_id=line.pk, changes={"actual": 1}),
        "actual",
        ro,
    )
    refused(
        lambda: cost_codes.cost_code_update(
            cost_code_id=job.codes["03-000"].pk, changes={"project": job.project}
        ),
        "project",
        ro,
    )
    refused(
        lambda: parties.vendor_update(vendor_id=job.vendor.pk, changes={"account_id": "acct_x"}),
        "account_id",
        ro,
    )
    invoice = make_invoice(job.commitment, amount=1_000, number="RO-1")
    refused(
        lambda: invoices.invoice_update(invoice_id=invoice.pk, changes={"retainage_amount": 0}),
        "retainage_amount",
        ro,
    )
    assert Commitment.objects.get(pk=draft.pk).vendor_id == job.vendor.pk


@pytest.mark.django_db
def test_creates_refuse_another_accounts_owner_and_vendor(account):
    job = make_job(account)
    stranger = AccountFactory()
    their_owner, their_vendor = OwnerFactory(account=stranger), VendorFactory(account=stranger)
    refused(
        lambda: projects.project_create(
            account_id=account.pk,
            number="X-1",
            name="X",
            owner=their_owner,
            contract_amount=1,
        ),
        "owner",
        "parameter_invalid",
    )
    refused(
        lambda: commitments.commitment_create(
            project=job.project,
            vendor=their_vendor,
            type="subcontract",
            original_amount=1,
        ),
        "vendor",
        "parameter_invalid",
    )
    assert not Project.objects.filter(number="X-1").exists()


@pytest.mark.django_db
def test_a_bulk_create_writes_each_chunks_audit_entries_and_events_before_the_next(account):
    """`cost_codes_create_many` bounds memory and statements by chunk: when it reports a
    chunk's progress, that chunk's audit entries and `cost_code.created` events are written."""
    job = make_job(account)
    rows = [
        {
            "row": n,
            "code": f"90-{n:04d}",
            "name": f"Imported {n}",
            "cost_type": "other",
            "scheduled_value": 0,
            "budget_amount": 1,
        }
        for n in range(cost_codes.BULK_CHUNK + 1)
    ]
    seen = []

    def progress(done: int) -> None:
        seen.append(
            (
                done,
                AuditEntry.objects.filter(target_type="cost_code", action="created")
                .filter(target_id__in=CostCode.objects.filter(code__startswith="90-").values("id"))
                .count(),
                Event.objects.filter(type="cost_code.created")
                .filter(object_id__in=CostCode.objects.filter(code__startswith="90-").values("id"))
                .count(),
            )
        )

    cost_codes.cost_codes_create_many(project=job.project, rows=rows, progress=progress)
    chunk = cost_codes.BULK_CHUNK
    assert seen == [(chunk, chunk, chunk), (chunk + 1, chunk + 1, chunk + 1)]
