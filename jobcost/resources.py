"""The resource table: every API object declared once (docs/resources.md, "Adding a resource").

A model says what its rows are (`OBJECT`, the ID `PREFIX`, the `COLLECTION` path, whether it
is `Audited`); its entry here says how the API serves it: the selector that gives the rows a
scope may see, the output serializer, the ID fields `expand[]` may replace (field → object
name), the reference fields' project path, and the event prefix of its webhook events. The
output serializers (`ResourceSerializer`), the viewsets (ID prefix, not-found wording), body
references (`ref`), `expand[]`, the webhook catalogue and the OpenAPI event schema all read
it. Apps above `jobcost` add their own entries with `register` (webhooks: `webhook_endpoint`).

The serializer is named by its dotted path: serializers read this table, so it cannot import
them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from django.db import models
from django.db.models import QuerySet
from django.utils.module_loading import import_string

from jobcost.models import (
    AgentAction,
    BudgetImport,
    BudgetLine,
    ChangeOrder,
    Commitment,
    CostCode,
    DailyLog,
    Invoice,
    LienWaiver,
    Owner,
    PayApp,
    Project,
    Rfi,
    Vendor,
)
from jobcost.scope import Scope
from jobcost.selectors import visible
from jobcost.selectors.budget_imports import budget_import_list


@dataclass(frozen=True, eq=False)
class Resource:
    """One API object. `project_field` is the path from the model to its project (`"id"` for
    projects, None for account-level objects), as `Scope.filter` takes it; `event_prefix` is
    None for objects that are never an event's `data.object`."""

    model: type[models.Model]
    selector: Callable[[Scope], QuerySet]
    serializer: str
    project_field: str | None = "project"
    expandable: dict[str, str] = field(default_factory=dict)
    event_prefix: str | None = None

    @property
    def object(self) -> str:
        return self.model.OBJECT

    @property
    def prefix(self) -> str:
        return self.model.PREFIX

    @property
    def collection(self) -> str:
        return self.model.COLLECTION

    @cached_property
    def serializer_class(self):
        """The output serializer class (imported on first use)."""
        return import_string(self.serializer)


RESOURCES: dict[str, Resource] = {}


def register(*resources: Resource) -> None:
    """Add entries to the table (each object once)."""
    for resource in resources:
        if resource.object in RESOURCES:
            raise ValueError(f"Resource {resource.object!r} is declared twice.")
        RESOURCES[resource.object] = resource


S = "jobcost.serializers."

register(
    Resource(Owner, visible.owner_list, S + "parties.OwnerSerializer", project_field=None),
    Resource(Vendor, visible.vendor_list, S + "parties.VendorSerializer", project_field=None),
    Resource(
        Project,
        visible.project_list,
        S + "projects.ProjectSerializer",
        project_field="id",
        expandable={"owner": "owner"},
        event_prefix="project",
    ),
    Resource(
        CostCode,
        visible.cost_code_list,
        S + "budgets.CostCodeSerializer",
        expandable={"project": "project", "budget_line": "budget_line"},
        event_prefix="cost_code",
    ),
    Resource(
        BudgetLine,
        visible.budget_line_list,
        S + "budgets.BudgetLineSerializer",
        expandable={"project": "project", "cost_code": "cost_code"},
        event_prefix="budget",
    ),
    Resource(BudgetImport, budget_import_list, S + "budget_imports.BudgetImportSerializer"),
    Resource(
        Commitment,
        visible.commitment_list,
        S + "commitments.CommitmentSerializer",
        expandable={"project": "project", "vendor": "vendor", "cost_code": "cost_code"},
        event_prefix="commitment",
    ),
    Resource(
        ChangeOrder,
        visible.change_order_list,
        S + "change_orders.ChangeOrderSerializer",
        expandable={
            "project": "project",
            "commitment": "commitment",
            "pay_app": "pay_app",
            "rfi": "rfi",
        },
        event_prefix="change_order",
    ),
    Resource(
        Invoice,
        visible.invoice_list,
        S + "invoices.InvoiceSerializer",
        expandable={
            "project": "project",
            "commitment": "commitment",
            "vendor": "vendor",
            "pay_app": "pay_app",
        },
        event_prefix="invoice",
    ),
    Resource(
        LienWaiver,
        visible.lien_waiver_list,
        S + "invoices.LienWaiverSerializer",
        expandable={
            "project": "project",
            "vendor": "vendor",
            "commitment": "commitment",
            "invoice": "invoice",
            "pay_app": "pay_app",
        },
        event_prefix="lien_waiver",
    ),
    Resource(
        PayApp,
        visible.pay_app_list,
        S + "pay_apps.PayAppSerializer",
        expandable={"project": "project"},
        event_prefix="pay_app",
    ),
    Resource(
        Rfi,
        visible.rfi_list,
        S + "rfis.RfiSerializer",
        expandable={"project": "project", "change_orders": "change_order"},
        event_prefix="rfi",
    ),
    Resource(
        DailyLog,
        visible.daily_log_list,
        S + "daily_logs.DailyLogSerializer",
        expandable={"project": "project"},
        event_prefix="daily_log",
    ),
    Resource(
        AgentAction,
        visible.agent_action_list,
        S + "agent_actions.AgentActionSerializer",
        expandable={"project": "project"},
        event_prefix="agent_action",
    ),
)
