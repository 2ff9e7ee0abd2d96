"""What a refused request must leave untouched: every domain row and the audit trail.
Compare `db_state()` (the rows, field by field) or `digest(models)` (where each table's rows
lie, one query) before and after the call."""

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
    PayAppPayment,
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
    PayAppPayment,
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
    """What `db_state()` compares, for `models`, read from where PostgreSQL keeps the rows:
    each table's row count and an md5 of the physical places (`ctid`) of the rows this
    transaction sees, plus the audit row count. An INSERT adds a place, a DELETE removes
    one, and an UPDATE writes the new version in a new place while the old one stays taken
    until the transaction ends (no vacuum can free a row this transaction changed), so any
    write between two calls changes the set; a write rolled back to its savepoint leaves the
    old version visible where it was. One query that reads no row's contents (hashing every
    row's text cost 9.5 ms over the audit trail of two demo jobs) instead of one per table
    loading every row into Python. A failed comparison names the tables that changed. That
    it sees a changed column, a new many-to-many link, new rows, a write after a released
    savepoint's and a deletion, and not a rolled-back write:
    tests/jobcost/admin/test_tenancy.py, `test_the_snapshot_sees_any_change`."""
    if connection.vendor != "postgresql":
        state: dict = {m._meta.db_table: list(m.objects.order_by("pk").values()) for m in models}
        state["audit_entries"] = AuditEntry.objects.count()
        return state
    quote = connection.ops.quote_name
    digests = " UNION ALL ".join(
        f"SELECT '{m._meta.db_table}', count(*), "
        f"md5(coalesce(string_agg(t.ctid::text, ',' ORDER BY t.ctid), '')) "
        f"FROM {quote(m._meta.db_table)} t"
        for m in models
    )
    audit = f"SELECT 'audit_entries', count(*), '' FROM {quote(AuditEntry._meta.db_table)}"
    with connection.cursor() as cursor:
        cursor.execute(f"{digests} UNION ALL {audit}")
        return {table: (count, places) for table, count, places in cursor.fetchall()}


def body(response) -> dict:
    """The JSON body with numbers that have decimals parsed as exact Decimals."""
    return json.loads(response.content, parse_float=Decimal)
