"""Job-cost models. Money is BigInteger cents; percentages are Decimal(5, 2)."""

from jobcost.models.accounts import Account, ApiKey, Role
from jobcost.models.commitments import Commitment, CommitmentStatus, CommitmentType
from jobcost.models.idempotency import IdempotencyRecord
from jobcost.models.parties import Owner, Vendor
from jobcost.models.projects import BudgetLine, CostCode, CostType, Project, ProjectStatus

__all__ = [
    "Account",
    "ApiKey",
    "BudgetLine",
    "Commitment",
    "CommitmentStatus",
    "CommitmentType",
    "CostCode",
    "CostType",
    "IdempotencyRecord",
    "Owner",
    "Project",
    "ProjectStatus",
    "Role",
    "Vendor",
]
