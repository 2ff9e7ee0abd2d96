"""The computations (docs/computations.md): budget-line and project rollups.

Per budget line (all cents): `revised_amount = original_amount + approved_changes`;
`cost_to_complete` = the PATCHed estimate, or while never set
max(revised_amount, committed) − actual floored at 0; `projected_cost = actual +
cost_to_complete`; `variance = revised_amount − projected_cost`. The same formula is written
once as SQL expressions here (for project sums in one query) and once in Python
(`jobcost.figures.BudgetFigures`, for one line).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.db.models import BigIntegerField, F, Value
from django.db.models.functions import Coalesce, Greatest

from jobcost.money import HUNDRED, divide_cents, ratio_pct

BIG = BigIntegerField()
ZERO = Value(0, output_field=BIG)


def revised_expr(prefix: str = ""):
    return F(f"{prefix}original_amount") + F(f"{prefix}approved_changes")


def cost_to_complete_expr(prefix: str = ""):
    """SQL for a budget line's cost_to_complete (docs/computations.md)."""
    derived = Greatest(
        Greatest(revised_expr(prefix), F(f"{prefix}committed"), output_field=BIG)
        - F(f"{prefix}actual"),
        ZERO,
        output_field=BIG,
    )
    return Coalesce(F(f"{prefix}cost_to_complete_estimate"), derived, output_field=BIG)


def projected_cost_expr(prefix: str = ""):
    """SQL for a budget line's projected_cost = actual + cost_to_complete."""
    return F(f"{prefix}actual") + cost_to_complete_expr(prefix)


@dataclass(frozen=True)
class ProjectRollup:
    """A project's computed figures (cents, percents to two decimals). docs/computations.md:
    `percent_complete` is cost-to-cost (cost_to_date / projected_cost × 100, capped at 100);
    `projected_margin_pct = (revised_contract − projected_cost) / revised_contract × 100`;
    `earned_revenue = revised_contract × cost_to_date / projected_cost`, computed exactly in
    integers and rounded once to the cent, half away from zero (0 when projected_cost is 0, at
    most revised_contract; not from the rounded `percent_complete`, which is a display figure —
    docs/decisions.md); `over_under_billing = billed_to_date − earned_revenue` (positive:
    over-billed)."""

    revised_contract: int
    cost_to_date: int
    projected_cost: int
    billed_to_date: int

    @property
    def percent_complete(self) -> Decimal:
        return min(ratio_pct(self.cost_to_date, self.projected_cost), HUNDRED)

    @property
    def projected_margin_pct(self) -> Decimal:
        return ratio_pct(self.revised_contract - self.projected_cost, self.revised_contract)

    @property
    def earned_revenue(self) -> int:
        if self.projected_cost == 0:
            return 0
        if self.cost_to_date >= self.projected_cost:
            return self.revised_contract
        return divide_cents(self.revised_contract * self.cost_to_date, self.projected_cost)

    @property
    def over_under_billing(self) -> int:
        return self.billed_to_date - self.earned_revenue
