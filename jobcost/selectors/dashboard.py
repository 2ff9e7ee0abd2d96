"""The back office's home: each visible project's figures and what waits for someone
(docs/backoffice/dashboard.md).

Each is one query whatever the number of projects: the projects with their rollups
(`visible.with_rollups`, the API's figures) and the draft pay apps with their missing lien
waivers. Rows are limited by the caller's `scope` (a member's account and projects, as an API
key's). The other queues are counted by the back office on the lists they link to.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import BigIntegerField, Count, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce

from jobcost.models import (
    LienWaiver,
    PayApp,
    PayAppStatus,
    Project,
    ProjectStatus,
)
from jobcost.selectors.lien_waivers import missing_in_period
from jobcost.selectors.projects import project_rollup
from jobcost.selectors.rollups import ProjectRollup
from jobcost.selectors.visible import with_rollups

# Projects the dashboard lists: every one not yet closed.
OPEN_PROJECT_STATUSES = (ProjectStatus.BID, ProjectStatus.ACTIVE, ProjectStatus.CLOSEOUT)


@dataclass(frozen=True)
class ProjectFigures:
    """One dashboard row: the project, its rollup (cents; `ProjectRollup` gives percent
    complete, earned revenue and over/(under) billing) and its contract amounts (cents)."""

    project: Project
    rollup: ProjectRollup

    @property
    def contract(self) -> int:
        return self.project.contract_amount

    @property
    def revised_contract(self) -> int:
        return self.rollup.revised_contract

    @property
    def margin(self) -> int:
        """Projected gross margin: revised contract − projected cost (cents)."""
        return self.rollup.revised_contract - self.rollup.projected_cost


def project_figures(scope) -> list[ProjectFigures]:
    """The scope's open projects by number, each with the API's rollup figures (1 query)."""
    projects = with_rollups(
        scope.filter(Project.objects.filter(status__in=OPEN_PROJECT_STATUSES), "id")
    ).order_by("number")
    return [ProjectFigures(project=p, rollup=project_rollup(p)) for p in projects]


def draft_pay_apps(scope) -> list[PayApp]:
    """The scope's draft pay apps by project number (1 query), each with `waivers_missing`:
    the number of lien waivers dated in its period and not received (the rule of
    `selectors.lien_waivers.missing_in_period`, as a subquery)."""
    missing = (
        LienWaiver.objects.filter(
            missing_in_period(
                OuterRef("project_id"), OuterRef("period_start"), OuterRef("period_end")
            )
        )
        .order_by()
        .values("project_id")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return list(
        scope.filter(PayApp.objects.filter(status=PayAppStatus.DRAFT))
        .select_related("project")
        .annotate(
            waivers_missing=Coalesce(
                Subquery(missing, output_field=BigIntegerField()),
                Value(0, output_field=BigIntegerField()),
            )
        )
        .order_by("project__number", "number")
    )
