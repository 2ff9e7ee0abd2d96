"""What a refused request must leave untouched: every domain row and the audit trail.
Compare `db_state()` (the rows, field by field) or `digest(models)` (the tables' row versions,
one query) before and after the call."""

from __future__ import annotations

import json
from decimal import Decimal

from django.db import connection

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


def digest(models) -> dict:
    """What `db_state()` compares, for `models`, read from PostgreSQL's row versions: each
    table's row count and the newest transaction ID among its rows (`xmin`), plus the audit
    row count. Every INSERT or UPDATE writes a row version stamped with the ID of the
    (sub)transaction that wrote it, and an ID is never smaller than one handed out before,
    so a row written after the first look raises the newest ID, and a DELETE changes the
    count; a write rolled back (a savepoint) leaves neither. One query, reading no row's
    contents, instead of one per table loading every row into Python (a refused request's
    "nothing written" check runs it twice). A failed comparison names the tables that
    changed. That it sees a changed column, a new many-to-many link and new rows:
    tests/jobcost/admin/test_tenancy.py, `test_the_snapshot_sees_any_change`."""
    if connection.vendor != "postgresql":
        state: dict = {m._meta.db_table: list(m.objects.order_by("pk").values()) for m in models}
        state["audit_entries"] = AuditEntry.objects.count()
        return state
    quote = connection.ops.quote_name
    digests = " UNION ALL ".join(
        f"SELECT '{m._meta.db_table}', count(*), coalesce(max(t.xmin::text::bigint), 0) "
        f"FROM {quote(m._meta.db_table)} t"
        for m in models
    )
    audit = f"SELECT 'audit_entries', count(*), 0 FROM {quote(AuditEntry._meta.db_table)}"
    with connection.cursor() as cursor:
        cursor.execute(f"{digests} UNION ALL {audit}")
        return {table: (count, newest) for table, count, newest in cursor.fetchall()}


def body(response) -> dict:
    """The JSON body with numbers that have decimals parsed as exact Decimals."""
    return json.loads(response.content, parse_float=Decimal)
