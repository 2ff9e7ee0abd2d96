"""What a refused request must leave untouched: every domain row, field by field, and the
audit trail. Compare `db_state()` before and after the call."""

from __future__ import annotations

import json
from decimal import Decimal

from audit.models import AuditEntry
from jobcost.models import (
    AgentAction,
    BudgetLine,
    ChangeOrder,
    ChangeOrderLine,
    Commitment,
    CostCode,
    DailyLog,
    DailyLogManpower,
    Invoice,
    InvoiceLine,
    LienWaiver,
    Owner,
    PayApp,
    PayAppLine,
    Project,
    Rfi,
    Vendor,
)

DOMAIN_MODELS = (
    Owner,
    Vendor,
    Project,
    CostCode,
    BudgetLine,
    Commitment,
    ChangeOrder,
    ChangeOrderLine,
    Invoice,
    InvoiceLine,
    LienWaiver,
    PayApp,
    PayAppLine,
    Rfi,
    DailyLog,
    DailyLogManpower,
    AgentAction,
)


def db_state() -> dict:
    """Every domain row as a dict (so F() counter updates count too) and the audit row count."""
    state: dict = {m.__name__: list(m.objects.order_by("pk").values()) for m in DOMAIN_MODELS}
    state["audit_entries"] = AuditEntry.objects.count()
    return state


def body(response) -> dict:
    """The JSON body with numbers that have decimals parsed as exact Decimals."""
    return json.loads(response.content, parse_float=Decimal)
