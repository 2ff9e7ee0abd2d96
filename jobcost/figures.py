"""A budget line's computed figures in Python (docs/reports.md, "Computations"): pure
arithmetic on its stored counters, imported by the model and by the reports' lines of a past
day. The same formula as SQL, for sums over many lines, is `selectors.rollups`."""

from __future__ import annotations


class BudgetFigures:
    """Mixin for anything with a budget line's stored figures (cents): `original_amount`,
    `approved_changes`, `committed`, `actual` and `cost_to_complete_estimate` (None while
    never set). Adds, in cents:

    - `revised_amount = original_amount + approved_changes`;
    - `cost_to_complete`: the estimate, or while never set max(revised_amount, committed) −
      actual, floored at 0;
    - `projected_cost = actual + cost_to_complete`;
    - `variance = revised_amount − projected_cost` (negative: over budget).
    """

    original_amount: int
    approved_changes: int
    committed: int
    actual: int
    cost_to_complete_estimate: int | None

    @property
    def revised_amount(self) -> int:
        return self.original_amount + self.approved_changes

    @property
    def cost_to_complete(self) -> int:
        if self.cost_to_complete_estimate is not None:
            return self.cost_to_complete_estimate
        return max(max(self.revised_amount, self.committed) - self.actual, 0)

    @property
    def projected_cost(self) -> int:
        return self.actual + self.cost_to_complete

    @property
    def variance(self) -> int:
        return self.revised_amount - self.projected_cost
