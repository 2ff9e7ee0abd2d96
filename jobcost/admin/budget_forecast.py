"""The project's budget as the month's forecast (docs/backoffice/budget.md): every budget line
with its original budget, approved changes, revised budget, committed, cost to date, cost to
complete, projected cost and variance, a totals row, and the cost to complete typed per line.

The figures are the budget line's own (`BudgetLine.revised_amount`, `cost_to_complete`,
`projected_cost`, `variance`: the rollup formulas of `selectors.rollups`, as the API gives
them). Saving sends every changed cost to complete to `services.cost_codes.budget_line_update`
(the service behind `PATCH /v1/budgets/{id}`), all in one transaction: one refused line
refuses the save, nothing is written, and the refusal is shown on its line.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import transaction

from jobcost.admin.base import REFUSALS
from jobcost.admin.display import accounting, plain_dollars
from jobcost.admin.fields import DollarsField
from jobcost.errors import translate
from jobcost.models import BudgetLine, Project
from jobcost.services.cost_codes import budget_line_update

COLUMNS = (
    ("original_amount", "Original budget"),
    ("approved_changes", "Approved changes"),
    ("revised_amount", "Revised budget"),
    ("committed", "Committed"),
    ("actual", "Cost to date"),
    ("cost_to_complete", "Cost to complete"),
    ("projected_cost", "Projected cost"),
    ("variance", "Variance"),
)


@dataclass
class ForecastRow:
    """One budget line on the page: its figures in dollars, the typed cost to complete and
    the refusal of that line, if any."""

    line: BudgetLine
    figures: dict[str, str]
    typed: str
    estimated: bool
    error: str | None = None
    # The first refused line's box takes the focus, which scrolls it into view.
    first_refusal: bool = False


def budget_lines(project: Project) -> list[BudgetLine]:
    """The project's budget lines by cost code, with their cost codes (one query)."""
    return list(
        BudgetLine.objects.filter(project=project)
        .select_related("cost_code")
        .order_by("cost_code__code")
    )


class Forecast:
    """The forecast of one project: rows, totals and the save of typed costs to complete."""

    field = DollarsField(required=False)

    def __init__(self, project: Project, *, data=None) -> None:
        self.project = project
        self.lines = budget_lines(project)
        self.data = data
        self.errors: dict[str, str] = {}

    def input_name(self, line: BudgetLine) -> str:
        return f"ctc-{line.pk}"

    def save(self) -> int:
        """Write every changed cost to complete; returns how many lines changed. A box left
        empty returns the line to its computed cost to complete. Raises nothing: refusals
        land in `errors` (then nothing is written)."""
        changes: list[tuple[BudgetLine, int | None]] = []
        for line in self.lines:
            raw = (self.data or {}).get(self.input_name(line))
            if raw is None:
                continue
            try:
                typed = self.field.clean(raw)
            except ValidationError as exc:
                self.errors[line.pk] = " ".join(exc.messages)
                continue
            if typed is None:
                if line.cost_to_complete_estimate is not None:
                    changes.append((line, None))
            elif typed != line.cost_to_complete:
                changes.append((line, typed))
        if self.errors or not changes:
            return 0
        with transaction.atomic():
            for line, estimate in changes:
                try:
                    with transaction.atomic():
                        budget_line_update(
                            budget_line_id=line.pk, changes={"cost_to_complete": estimate}
                        )
                except REFUSALS as exc:
                    self.errors[line.pk] = translate(exc).message
            if self.errors:
                transaction.set_rollback(True)
                return 0
        self.lines = budget_lines(self.project)
        return len(changes)

    def rows(self) -> list[ForecastRow]:
        """The lines as shown: stored figures; the boxes keep what was typed after a refusal."""
        rows = []
        first_refused = next((line.pk for line in self.lines if line.pk in self.errors), None)
        for line in self.lines:
            typed = None
            if self.errors and self.data is not None:
                typed = self.data.get(self.input_name(line))
            rows.append(
                ForecastRow(
                    line=line,
                    figures={name: accounting(getattr(line, name)) for name, _ in COLUMNS},
                    typed=typed if typed is not None else plain_dollars(line.cost_to_complete),
                    estimated=line.cost_to_complete_estimate is not None,
                    error=self.errors.get(line.pk),
                    first_refusal=line.pk == first_refused,
                )
            )
        return rows

    def totals(self) -> dict[str, str]:
        """Each column summed over the lines, in dollars."""
        return {
            name: accounting(sum(getattr(line, name) for line in self.lines)) for name, _ in COLUMNS
        }
