"""The back office's home page: the job's dashboard (docs/backoffice/dashboard.md).

Per visible open project the contract, revised contract, cost to date, percent complete,
billed to date, over/(under) billing and projected margin — the API's figures, from
`selectors.dashboard` — and what waits for someone, each a count linking to the list that
shows exactly those rows: the count is taken on the same admin's `get_queryset` (so scoped as
the list is) with the same rule as the list's filter. A queue whose list the user's role may
not open is not shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from django.contrib.admin.utils import quote
from django.db.models import Q
from django.urls import reverse

from jobcost.admin.base import EVERY_ACCOUNT, request_scope
from jobcost.admin.display import accounting, percent
from jobcost.admin.queue_filters import (
    YES,
    EndpointAttentionFilter,
    MissingForPayAppFilter,
    OverdueRfiFilter,
)
from jobcost.selectors.dashboard import draft_pay_apps, project_figures


@dataclass(frozen=True)
class QueueSpec:
    """A work queue: its name (`data-queue`), label, the model (app label, model name) whose
    list it opens, the list's query parameters and the same rule as a Q for the count."""

    name: str
    label: str
    model: tuple[str, str]
    params: dict[str, str]
    rule: Q


QUEUES = (
    QueueSpec(
        "invoices_to_code",
        "Invoices to code",
        ("jobcost", "invoice"),
        {"status__exact": "received"},
        Q(status="received"),
    ),
    QueueSpec(
        "invoices_to_approve",
        "Invoices to approve",
        ("jobcost", "invoice"),
        {"status__exact": "coded"},
        Q(status="coded"),
    ),
    QueueSpec(
        "pending_change_orders",
        "Change orders awaiting approval",
        ("jobcost", "changeorder"),
        {"status__exact": "pending"},
        Q(status="pending"),
    ),
    QueueSpec(
        "overdue_rfis",
        "RFIs past due",
        ("jobcost", "rfi"),
        {OverdueRfiFilter.parameter_name: YES},
        OverdueRfiFilter.matching(),
    ),
    QueueSpec(
        "agent_proposals",
        "Agent proposals to decide",
        ("jobcost", "agentaction"),
        {"status__exact": "proposed"},
        Q(status="proposed"),
    ),
    QueueSpec(
        "failing_webhooks",
        "Webhook endpoints failing or disabled",
        ("webhooks", "webhookendpoint"),
        {EndpointAttentionFilter.parameter_name: YES},
        EndpointAttentionFilter.matching(),
    ),
)


def _admin_for(site, app_label: str, model_name: str):
    for model, model_admin in site._registry.items():
        if (model._meta.app_label, model._meta.model_name) == (app_label, model_name):
            return model_admin
    return None


def _queues(site, request) -> list[dict]:
    shown = []
    for spec in QUEUES:
        model_admin = _admin_for(site, *spec.model)
        if model_admin is None or not model_admin.has_view_permission(request):
            continue
        count = model_admin.get_queryset(request).filter(spec.rule).order_by().count()
        url = reverse(f"admin:{spec.model[0]}_{spec.model[1]}_changelist")
        shown.append(
            {
                "name": spec.name,
                "label": spec.label,
                "count": count,
                "url": f"{url}?{urlencode(spec.params)}",
            }
        )
    return shown


def _pay_apps(site, request, scope) -> list[dict]:
    pay_app_admin = _admin_for(site, "jobcost", "payapp")
    if pay_app_admin is None or not pay_app_admin.has_view_permission(request):
        return []
    waivers = reverse("admin:jobcost_lienwaiver_changelist")
    rows = []
    for pay_app in draft_pay_apps(scope):
        params = {MissingForPayAppFilter.parameter_name: pay_app.pk}
        rows.append(
            {
                "pay_app": pay_app,
                "url": reverse("admin:jobcost_payapp_change", args=[quote(pay_app.pk)]),
                "waivers_missing": pay_app.waivers_missing,
                "waivers_url": f"{waivers}?{urlencode(params)}",
            }
        )
    return rows


def dashboard_context(site, request) -> dict:
    """The template context of the home page for the signed-in user (see module docstring):
    `projects` (rows of figures in dollars), `queues` and `draft_pay_apps`."""
    scope = request_scope(request)
    scope = EVERY_ACCOUNT if scope is None else scope
    project_admin = _admin_for(site, "jobcost", "project")
    projects = []
    if project_admin is not None and project_admin.has_view_permission(request):
        for row in project_figures(scope):
            rollup = row.rollup
            projects.append(
                {
                    "project": row.project,
                    "url": reverse("admin:jobcost_project_change", args=[quote(row.project.pk)]),
                    "figures": [
                        ("contract", "Contract", accounting(row.contract)),
                        ("revised_contract", "Revised contract", accounting(row.revised_contract)),
                        ("cost_to_date", "Cost to date", accounting(rollup.cost_to_date)),
                        ("percent_complete", "% complete", percent(rollup.percent_complete)),
                        ("billed_to_date", "Billed to date", accounting(rollup.billed_to_date)),
                        (
                            "over_under_billing",
                            "Over/(under) billed",
                            accounting(rollup.over_under_billing),
                        ),
                        ("margin", "Projected margin", accounting(row.margin)),
                        (
                            "margin_pct",
                            "Margin %",
                            percent(rollup.projected_margin_pct),
                        ),
                    ],
                }
            )
    return {
        "projects": projects,
        "queues": _queues(site, request),
        "draft_pay_apps": _pay_apps(site, request, scope),
    }
