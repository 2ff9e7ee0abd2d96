"""Shared helpers of the convention tests (docs/conventions.md–7): row counts that prove a refused
request wrote nothing, and a small job to act on."""

from __future__ import annotations

from dataclasses import dataclass

from audit.models import AuditEntry
from jobcost.models import (
    BudgetLine,
    Commitment,
    CostCode,
    IdempotencyRecord,
    Owner,
    Project,
    Vendor,
)
from tests.factories import CommitmentFactory, CostCodeFactory, ProjectFactory, VendorFactory

DOMAIN_TABLES = (Owner, Vendor, Project, CostCode, BudgetLine, Commitment, AuditEntry)


def row_counts(*, idempotency: bool = False) -> dict[str, int]:
    """Rows per domain table plus audit entries (and idempotency records when asked)."""
    models = DOMAIN_TABLES + ((IdempotencyRecord,) if idempotency else ())
    return {model.__name__: model.objects.count() for model in models}


@dataclass
class Job:
    """One active project of an account with a cost code, a vendor and a draft commitment."""

    project: Project
    cost_code: CostCode
    vendor: Vendor
    commitment: Commitment

    def commitment_body(self, **overrides) -> dict:
        """A valid POST /v1/commitments body for this job."""
        return {
            "project": self.project.pk,
            "vendor": self.vendor.pk,
            "cost_code": self.cost_code.pk,
            "type": "subcontract",
            "original_amount": 1_000_00,
            **overrides,
        }


def make_job(account, **project_fields) -> Job:
    project = ProjectFactory(account=account, **project_fields)
    cost_code = CostCodeFactory(project=project)
    vendor = VendorFactory(account=account)
    commitment = CommitmentFactory(project=project, vendor=vendor, cost_code=cost_code)
    return Job(project, cost_code, vendor, commitment)
