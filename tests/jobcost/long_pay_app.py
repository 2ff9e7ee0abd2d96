"""A 60-line G703 with 90-character names (docs/documents.md), built through the services: a
project, owner and architect named with 90 characters, 45 cost codes whose names run to 90
characters, and 15 owner change orders (10 additions, 5 deductions) titled with 90 characters.
Pay app #1 bills every cost code and is certified for less than it applied for, with a note;
the change orders are approved after it, so they land on pay app #2, which bills them too and
is submitted. Used by the layout tests and to render docs/img/ (docs/documents.md)."""

from __future__ import annotations

import datetime
from types import SimpleNamespace

from jobcost.services.change_orders import change_order_approve, change_order_create
from jobcost.services.pay_apps import (
    pay_app_approve,
    pay_app_create,
    pay_app_submit,
    pay_app_update,
)
from tests.factories import CostCodeFactory, OwnerFactory, ProjectFactory

NAME_LENGTH = 90
COST_CODES = 45
ADDITIONS, DEDUCTIONS = 10, 5
SCHEDULED = 19_876_543_21  # cents per cost code: $19,876,543.21
FILLER = (
    " — furnish, install, test and commission per the drawings, specifications, addenda and "
    "approved submittals of the prime contract"
)


def named(prefix: str) -> str:
    """`prefix` run on to exactly 90 characters."""
    return (prefix + FILLER)[:NAME_LENGTH]


def long_pay_apps(account) -> SimpleNamespace:
    """Build the job (in the caller's transaction); returns project, first and second."""
    owner = OwnerFactory(account=account, name=named("Riverside Unified School District"))
    project = ProjectFactory(
        account=account,
        owner=owner,
        number="2026-090",
        name=named("Riverside High School science wing and gymnasium modernization"),
        contract_amount=SCHEDULED * COST_CODES,
        retainage_pct=10,
        contract_date=datetime.date(2026, 3, 16),
        architect_name=named("Hartley Okafor Architects LLP"),
    )
    codes = [
        CostCodeFactory(
            project=project,
            code=f"{10 + i:02d}-{100 + i * 7:03d}",
            name=named(f"Scope package {i + 1}"),
            scheduled_value=SCHEDULED,
            budget_amount=SCHEDULED - 1_000_00,
        )
        for i in range(COST_CODES)
    ]
    first = pay_app_create(
        project=project,
        period_start=datetime.date(2026, 9, 1),
        period_end=datetime.date(2026, 9, 30),
    )
    work = [{"item": str(i + 1), "this_period": SCHEDULED * (i % 7) // 10} for i in range(45)]
    pay_app_update(pay_app_id=first.pk, lines=work)
    first = pay_app_submit(pay_app_id=first.pk, allow_missing_waivers=True)
    first = pay_app_approve(
        pay_app_id=first.pk,
        amount_certified=3_000_000_00,
        certified_on=datetime.date.today(),
        certification_note=(
            "Site observation on the last day of the period found the work of packages 3 and 6 "
            "short of the stated percentages; certified the balance of the application."
        ),
    )
    for i in range(ADDITIONS + DEDUCTIONS):
        sign = 1 if i < ADDITIONS else -1
        amount = sign * (125_000_00 + i * 1_111_11)
        order = change_order_create(
            project=project,
            kind="owner",
            title=named(f"Owner request {i + 1}"),
            amount=amount,
            lines=[{"cost_code": codes[i], "amount": amount}],
        )
        change_order_approve(change_order_id=order.pk)
    second = pay_app_create(
        project=project,
        period_start=datetime.date(2026, 10, 1),
        period_end=datetime.date(2026, 10, 31),
    )
    rows = {line.item: line for line in second.lines.all()}
    entries = [{"item": str(i + 1), "this_period": SCHEDULED // 10} for i in range(0, 45, 3)]
    entries += [
        {"item": item, "this_period": line.scheduled_value}
        for item, line in rows.items()
        if line.change_order_id and line.scheduled_value > 0
    ]
    pay_app_update(pay_app_id=second.pk, lines=entries)
    second = pay_app_submit(pay_app_id=second.pk, allow_missing_waivers=True)
    return SimpleNamespace(project=project, first=first, second=second)
