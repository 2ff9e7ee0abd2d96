"""Job-cost models. Money is BigInteger cents; percentages are Decimal(5, 2)."""

from jobcost.models.accounts import PERSON_ROLES, Account, ApiKey, Membership, Role
from jobcost.models.agent_actions import AgentAction, AgentActionKind, AgentActionStatus
from jobcost.models.budget_imports import BudgetImport, BudgetImportStatus, BudgetImportWarning
from jobcost.models.change_orders import (
    CHANGE_ORDER_UNDECIDED,
    ChangeOrder,
    ChangeOrderKind,
    ChangeOrderLine,
    ChangeOrderStatus,
)
from jobcost.models.commitments import (
    COMMITMENT_BINDING,
    Commitment,
    CommitmentStatus,
    CommitmentType,
)
from jobcost.models.daily_logs import DailyLog, DailyLogManpower
from jobcost.models.idempotency import IdempotencyRecord
from jobcost.models.invoices import (
    INVOICE_EDITABLE,
    INVOICE_POSTED,
    Invoice,
    InvoiceLine,
    InvoiceStatus,
)
from jobcost.models.lien_waivers import LienWaiver, LienWaiverStatus, LienWaiverType
from jobcost.models.parties import Owner, Vendor
from jobcost.models.pay_apps import (
    CERTIFIED_STATUSES,
    OWNER_CERTIFIED,
    PayApp,
    PayAppDocument,
    PayAppDocumentStage,
    PayAppFormat,
    PayAppLine,
    PayAppPayment,
    PayAppStatus,
)
from jobcost.models.projects import (
    PROJECT_IN_PROGRESS,
    PROJECT_INITIAL,
    BudgetLine,
    CostCode,
    CostType,
    Project,
    ProjectStatus,
)
from jobcost.models.rfis import Rfi, RfiStatus

__all__ = [
    "CERTIFIED_STATUSES",
    "CHANGE_ORDER_UNDECIDED",
    "COMMITMENT_BINDING",
    "INVOICE_EDITABLE",
    "INVOICE_POSTED",
    "OWNER_CERTIFIED",
    "PERSON_ROLES",
    "PROJECT_INITIAL",
    "PROJECT_IN_PROGRESS",
    "Account",
    "AgentAction",
    "AgentActionKind",
    "AgentActionStatus",
    "ApiKey",
    "BudgetImport",
    "BudgetImportStatus",
    "BudgetImportWarning",
    "BudgetLine",
    "ChangeOrder",
    "ChangeOrderKind",
    "ChangeOrderLine",
    "ChangeOrderStatus",
    "Commitment",
    "CommitmentStatus",
    "CommitmentType",
    "CostCode",
    "CostType",
    "DailyLog",
    "DailyLogManpower",
    "IdempotencyRecord",
    "Invoice",
    "InvoiceLine",
    "InvoiceStatus",
    "LienWaiver",
    "LienWaiverStatus",
    "LienWaiverType",
    "Membership",
    "Owner",
    "PayApp",
    "PayAppDocument",
    "PayAppDocumentStage",
    "PayAppFormat",
    "PayAppLine",
    "PayAppPayment",
    "PayAppStatus",
    "Project",
    "ProjectStatus",
    "Rfi",
    "RfiStatus",
    "Role",
    "Vendor",
]
