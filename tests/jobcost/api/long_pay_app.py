"""A draft pay app with a long G703, for the PDF-rendering bounds (docs/operations/limits.md)."""

from __future__ import annotations

from jobcost.models import Account, PayApp
from tests.factories import CostCodeFactory, ProjectFactory, make_pay_app


def make_long_draft(account: Account, lines: int = 1_000) -> PayApp:
    """A project of `lines` cost codes (each $1,000.00 scheduled, the contract their sum,
    names of 60 characters) and its first pay app, a draft with `lines` G703 rows."""
    project = ProjectFactory(account=account, contract_amount=lines * 1_000_00)
    for n in range(lines):
        CostCodeFactory(
            project=project,
            code=f"{n // 100 + 10:02d}-{n % 100:02d}0",
            name=f"Line {n:04d} " + "concrete formwork and finishes " * 2,
            scheduled_value=1_000_00,
            budget_amount=900_00,
        )
    return make_pay_app(project, "2026-11-01", "2026-11-30")
