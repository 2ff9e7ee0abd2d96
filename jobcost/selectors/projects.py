"""Project rollups for one loaded project."""

from jobcost.models import Project
from jobcost.selectors.rollups import ProjectRollup


def project_rollup(project: Project) -> ProjectRollup:
    """The figures (docs/computations.md) of a project read through `visible.with_rollups`."""
    return ProjectRollup(
        revised_contract=project.contract_amount + project.approved_changes,
        cost_to_date=int(project.rollup_cost_to_date),
        projected_cost=int(project.rollup_projected_cost),
        billed_to_date=int(project.rollup_billed_to_date),
    )
