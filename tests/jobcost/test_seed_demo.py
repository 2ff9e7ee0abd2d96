"""`manage.py seed_demo` loads the demo job once, through the services: seeding twice changes
nothing, a database seeded by an older version gets only what it lacks, and the demo
accountant's password depends on the environment. Each test starts from an empty database.
docs/demo-job.md is checked against the demo's data here, and what the API shows of the seeded
job (row by row against the page too) in test_demo_through_the_api.py."""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import transaction

from audit.context import SYSTEM, acting_as
from audit.models import AuditEntry
from jobcost.demo import progress
from jobcost.demo import school_addition as data
from jobcost.demo.loader import demo_setup_load
from jobcost.demo.progress_loader import demo_progress_load
from jobcost.management.commands.seed_demo import dollars
from jobcost.models import (
    Account,
    AgentAction,
    ApiKey,
    BudgetLine,
    ChangeOrder,
    ChangeOrderLine,
    Commitment,
    CostCode,
    DailyLog,
    DailyLogManpower,
    IdempotencyRecord,
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
from webhooks.models import Event

pytestmark = pytest.mark.django_db

PAGE = Path(settings.BASE_DIR) / "docs" / "demo-job.md"
MODELS = [
    Account, Owner, Vendor, Project, CostCode, BudgetLine, Commitment, ChangeOrder,
    ChangeOrderLine, Invoice, InvoiceLine, LienWaiver, PayApp, PayAppLine, ApiKey,
    IdempotencyRecord, Rfi, DailyLog, DailyLogManpower, AgentAction,
]  # fmt: skip
STAMPED = [
    Project, BudgetLine, Commitment, ChangeOrder, Invoice, LienWaiver, PayApp, ApiKey, Rfi,
    DailyLog, AgentAction,
]  # fmt: skip
CHANGE_ORDER_RFIS = {
    "CO-001": "RFI-002", "CCO-001": "RFI-002", "CO-002": "RFI-003", "CCO-002": "RFI-003",
    "CO-003": "RFI-004",
}  # fmt: skip


def seed() -> str:
    out = io.StringIO()
    call_command("seed_demo", stdout=out)
    return out.getvalue()


def row_counts() -> dict[str, int]:
    counts = {model.__name__: model.objects.count() for model in MODELS}
    counts["AuditEntry"] = AuditEntry.objects.count()
    counts["Event"] = Event.objects.count()
    return counts


def stamps() -> dict[str, list]:
    return {m.__name__: sorted(m.objects.values_list("id", "updated_at")) for m in STAMPED}


def usd(cents: int) -> str:
    """Dollars as docs/demo-job.md writes them: `1,413,500.00`, `-12,000.00`."""
    return dollars(cents).replace("$", "")


def test_seeding_twice_changes_nothing():
    first_output = seed()
    after_first, stamped = row_counts(), stamps()

    second_output = seed()

    assert row_counts() == after_first
    assert stamps() == stamped
    assert "Loaded the demo job" in first_output
    assert "already loaded; nothing changed" in second_output
    assert (after_first["Account"], after_first["Project"], after_first["Owner"]) == (1, 1, 1)
    assert after_first["PayApp"] == 3
    assert after_first["IdempotencyRecord"] == 0
    assert (after_first["Rfi"], after_first["DailyLog"], after_first["AgentAction"]) == (6, 14, 4)
    assert after_first["ApiKey"] == 1
    assert "RFIs      2 open, 1 answered, 3 closed" in second_output
    assert "Site      14 daily logs, 2026-11-02 to 2026-11-19" in second_output
    assert "Agent     4 actions proposed by key_" in second_output


def linked_rfis() -> dict[str, str | None]:
    return dict(ChangeOrder.objects.values_list("number", "rfi__number"))


def test_a_demo_seeded_before_the_money_flow_gets_its_billing_periods_once():
    with transaction.atomic(), acting_as(SYSTEM):
        demo_setup_load()
    assert (PayApp.objects.count(), Invoice.objects.count(), Rfi.objects.count()) == (0, 0, 0)
    setup_rows = Commitment.objects.count()

    output = seed()

    assert (
        "Added the billing periods and the RFIs, daily logs and agent proposals to the demo job"
        in output
    )
    assert PayApp.objects.count() == 3
    assert Commitment.objects.count() == setup_rows
    assert (Rfi.objects.count(), DailyLog.objects.count(), AgentAction.objects.count()) == (
        6,
        14,
        4,
    )
    assert linked_rfis() == CHANGE_ORDER_RFIS
    after = row_counts()
    assert "nothing changed" in seed()
    assert row_counts() == after


def test_a_demo_seeded_before_the_field_records_gets_them_once():
    """A database seeded before the demo had field records gets the RFIs, logs and proposals
    added once, and its change orders (past draft by then) are linked to their RFIs through the
    service."""
    with transaction.atomic(), acting_as(SYSTEM):
        demo_progress_load(demo_setup_load())
    before = row_counts()
    assert (before["Rfi"], before["DailyLog"], before["AgentAction"], before["ApiKey"]) == (
        0,
        0,
        0,
        0,
    )

    output = seed()

    assert "Added the RFIs, daily logs and agent proposals to the demo job" in output
    assert "billing periods" not in output.splitlines()[0]
    after = row_counts()
    assert (after["Rfi"], after["DailyLog"], after["AgentAction"], after["ApiKey"]) == (
        6,
        14,
        4,
        1,
    )
    for model in (ChangeOrder, Invoice, PayApp, LienWaiver, Commitment):
        assert after[model.__name__] == before[model.__name__]
    assert linked_rfis() == CHANGE_ORDER_RFIS
    rfis = dict(Rfi.objects.values_list("number", "status"))
    assert Counter(rfis.values()) == {"open": 2, "answered": 1, "closed": 3}

    assert "nothing changed" in seed()
    assert row_counts() == after


def test_demo_data_tables_balance():
    assert sum(row.scheduled_value for row in data.COST_CODES) == data.PROJECT["contract_amount"]
    assert len({row.code for row in data.COST_CODES}) == len(data.COST_CODES)
    assert {row.commitment.vendor for row in data.COST_CODES if row.commitment} <= {
        v.key for v in data.VENDORS
    }
    executed = {row.code: row.commitment.vendor for row in data.COST_CODES if row.commitment
                and row.commitment.executed}  # fmt: skip
    owner_rows = {co.number for p in progress.PAY_APPS for co in p.change_orders
                  if co.kind == "owner" and co.final == "approved"}  # fmt: skip
    numbers = set()
    for earlier, later in zip(progress.PAY_APPS, progress.PAY_APPS[1:], strict=False):
        assert later.period_start > earlier.period_end
    for period in progress.PAY_APPS:
        for invoice in period.invoices:
            assert period.period_start <= invoice.invoice_date <= period.period_end
            assert (invoice.waiver is not None) == (invoice.final in ("approved", "paid"))
            numbers.add((executed[invoice.code], invoice.number))
        assert set(period.this_period) | set(period.stored) <= set(executed) | owner_rows | {
            "01-500",
            "01-540",
        }
    assert len(numbers) == sum(len(p.invoices) for p in progress.PAY_APPS)
    # A paid pay app is paid by the owner's receipt (its whole certificate), and only those.
    paid = {n for n, p in enumerate(progress.PAY_APPS, start=1) if p.final == "paid"}
    assert {receipt.pay_app for receipt in progress.OWNER_RECEIPTS} == paid


def test_demo_job_page_matches_the_data():
    page = PAGE.read_text()
    for vendor in data.VENDORS:
        assert f"| {vendor.name} | {vendor.trade} | {vendor.tax_id_last4} |" in page
    for row in data.COST_CODES:
        sv, budget = usd(row.scheduled_value), usd(row.budget)
        line = f"| {row.code} | {row.name} | {row.cost_type} | {sv} | {budget} |"
        assert line in page, line
        if row.commitment:
            status = "executed" if row.commitment.executed else "draft"
            assert f"| {usd(row.commitment.amount)} | {status} |" in page
    assert dollars(data.PROJECT["contract_amount"]) in page


def progress_rows_of_the_page() -> list[str]:
    """The data rows of every table under "## The job in progress" (no headers, no rules)."""
    lines = PAGE.read_text().split("\n## The job in progress\n", 1)[1].splitlines()
    return [
        line
        for line, following in zip(lines, [*lines[1:], ""], strict=True)
        if line.startswith("| ") and not following.startswith("|---")
    ]


def test_the_demo_accountant_is_a_manager_of_the_demo_account_with_the_documented_password():
    from django.contrib.auth import get_user_model

    from jobcost.demo import accountant

    seed()
    seed()
    user = get_user_model().objects.get(username=accountant.USERNAME)
    assert (user.is_staff, user.is_superuser) == (True, False)
    membership = user.backoffice_membership
    assert (membership.account.name, membership.role) == (data.ACCOUNT_NAME, "manager")
    assert not membership.projects.exists()
    assert user.check_password(accountant.DEVELOPMENT_PASSWORD)
    page = (Path(settings.BASE_DIR) / "docs" / "backoffice" / "index.md").read_text()
    assert accountant.DEVELOPMENT_PASSWORD in page


def test_outside_development_the_demo_accountant_has_no_usable_password(settings):
    from django.contrib.auth import get_user_model

    from jobcost.demo import accountant

    settings.DEVELOPMENT = False
    seed()
    user = get_user_model().objects.get(username=accountant.USERNAME)
    assert not user.has_usable_password()
    assert not user.check_password(accountant.DEVELOPMENT_PASSWORD)
