"""The job the write benchmarks run on (bench_writes, bench_soak): made through the services,
as a client's would be."""

from __future__ import annotations

import uuid

from jobcost.models import Account, Commitment, CostCode, Project
from jobcost.services.commitments import commitment_create, commitment_execute
from jobcost.services.cost_codes import cost_code_create
from jobcost.services.parties import owner_create, vendor_create
from jobcost.services.projects import project_create

COMMITMENT = 10**11  # cents: room for every invoice of a run


def bench_job(account: Account, *, label: str, prefix: str) -> tuple[Project, Commitment, CostCode]:
    """A fresh active project (number `<prefix>-<8 hex>`, contract 2 × COMMITMENT cents) with
    one cost code carrying the whole contract and an executed subcontract of COMMITMENT cents
    on it, from a new vendor: (project, commitment, cost code). Emits what the services it
    calls emit (project, cost code, commitment created; commitment executed)."""
    tag = uuid.uuid4().hex[:8]
    owner = owner_create(account_id=account.pk, name=f"{label} Owner")
    vendor = vendor_create(account_id=account.pk, name=f"{label} Vendor {tag}")
    project = project_create(
        account_id=account.pk,
        number=f"{prefix}-{tag}",
        name=label,
        owner=owner,
        contract_amount=COMMITMENT * 2,
        status="active",
    )
    code = cost_code_create(
        project=project,
        code="01-000",
        name="General",
        cost_type="subcontract",
        scheduled_value=COMMITMENT * 2,
        budget_amount=COMMITMENT * 2,
    )
    commitment = commitment_create(
        project=project,
        vendor=vendor,
        type="subcontract",
        original_amount=COMMITMENT,
        cost_code=code,
    )
    return project, commitment_execute(commitment_id=commitment.pk), code
