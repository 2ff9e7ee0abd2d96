"""The services themselves enforce what an update may write and which account a referenced
object belongs to, so the admin, agent actions and commands cannot write around the API's
rules (DEVELOPERS.md: no rule is checked only in a serializer)."""

import pytest

from jobcost.errors import InvalidRequest
from jobcost.models import Commitment, Project
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
