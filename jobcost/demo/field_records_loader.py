"""Load the demo job's field records (`jobcost.demo.field_records`) through the services.

In two steps around the billing periods, so that each change order is created naming the RFI
that led to it: `demo_rfis_load` asks the six RFIs and records the answers; after the periods,
`demo_field_records_load` closes the RFIs whose change orders are settled, enters the daily
logs, and has the demo's agent key propose the pending agent actions.
"""

from __future__ import annotations

from decimal import Decimal

from audit.context import Actor, acting_as
from jobcost.demo import field_records as data
from jobcost.demo import progress
from jobcost.demo import school_addition as setup
from jobcost.models import (
    AgentActionKind,
    ApiKey,
    BudgetLine,
    ChangeOrder,
    Invoice,
    Project,
    Rfi,
    RfiStatus,
    Role,
    Vendor,
)
from jobcost.scope import Scope
from jobcost.services.agent_actions import agent_action_propose
from jobcost.services.api_keys import api_key_create
from jobcost.services.change_orders import change_order_update
from jobcost.services.daily_logs import daily_log_create
from jobcost.services.rfis import rfi_close, rfi_create, rfi_update

CHANGE_ORDER_RFIS = {
    row.number: row.rfi for period in progress.PAY_APPS for row in period.change_orders if row.rfi
}


def field_records_are_blank(project: Project) -> bool:
    """True when the project has no RFI, daily log or agent action yet."""
    return not (
        project.rfis.exists() or project.daily_logs.exists() or project.agent_actions.exists()
    )


def demo_rfis_load(project: Project) -> None:
    """Ask each RFI and record its answer (closing comes later). In the caller's transaction,
    as the caller's actor."""
    for row in data.RFIS:
        rfi = rfi_create(
            project=project,
            number=row.number,
            subject=row.subject,
            question=row.question,
            due_date=row.due_date,
            cost_impact=row.cost_impact,
        )
        if row.answer:
            rfi_update(rfi_id=rfi.pk, changes={"answer": row.answer})


def demo_field_records_load(project: Project) -> None:
    """Close, log and propose (see the module docstring), as the caller's actor except the
    proposals, which the demo's agent key makes. Change orders loaded before RFIs existed
    are linked to theirs now (the `rfi` link may be set past draft)."""
    rfis = {rfi.number: rfi for rfi in Rfi.objects.filter(project=project)}
    _link_change_orders(project, rfis)
    for row in data.RFIS:
        if row.final == RfiStatus.CLOSED:
            rfi_close(rfi_id=rfis[row.number].pk)
    account_vendors = Vendor.objects.filter(account_id=project.account_id).order_by("created_at")
    vendors = {row.key: account_vendors.filter(name=row.name).first() for row in setup.VENDORS}
    for row in data.DAILY_LOGS:
        daily_log_create(
            project=project,
            date=row.date,
            weather=row.weather,
            notes=row.notes,
            delays=row.delays,
            manpower=[
                {
                    "trade": c.trade,
                    "vendor": vendors[c.vendor] if c.vendor else None,
                    "headcount": c.headcount,
                    "hours": Decimal(c.hours),
                }
                for c in row.crews
            ],
        )
    _propose(project, vendors)


def _link_change_orders(project: Project, rfis: dict[str, Rfi]) -> None:
    """Link the demo's change orders that name an RFI in the data but have none (a database
    seeded before RFIs existed), through the change-order service."""
    unlinked = ChangeOrder.objects.filter(
        project=project, number__in=CHANGE_ORDER_RFIS, rfi__isnull=True
    ).order_by("number")
    for change_order in unlinked:
        change_order_update(
            change_order_id=change_order.pk,
            changes={"rfi": rfis[CHANGE_ORDER_RFIS[change_order.number]]},
        )


def demo_agent_key(project: Project) -> ApiKey:
    """The demo's agent key (role `agent`, restricted to the demo project), created through
    the API-key service the first time; its secret is dropped unseen."""
    found = ApiKey.objects.filter(
        account_id=project.account_id,
        name=data.AGENT_KEY_NAME,
        role=Role.AGENT,
        revoked_at__isnull=True,
    ).first()
    if found is None:
        found, _secret = api_key_create(
            account=project.account, role=Role.AGENT, name=data.AGENT_KEY_NAME, projects=[project]
        )
    return found


def _manpower_payload(row: data.DailyLogRow, vendors: dict[str, Vendor]) -> list[dict]:
    return [
        {
            "trade": c.trade,
            "vendor": vendors[c.vendor].pk if c.vendor else None,
            "headcount": c.headcount,
            "hours": c.hours,
        }
        for c in row.crews
    ]


def _propose(project: Project, vendors: dict[str, Vendor]) -> None:
    """The agent's four pending proposals, each validated now as its real endpoint would."""
    key = demo_agent_key(project)
    scope = Scope.for_key(key)
    codes = {
        line.cost_code.code: line
        for line in BudgetLine.objects.filter(project=project).select_related("cost_code")
    }
    coding = data.INVOICE_CODING
    invoice = Invoice.objects.get(
        project=project, vendor=vendors[coding.vendor], number=coding.number
    )
    log = data.PROPOSED_LOG
    forecast = data.HVAC_FORECAST
    with acting_as(Actor(type="api_key", id=key.pk, role=Role.AGENT)):
        agent_action_propose(
            scope=scope,
            action=AgentActionKind.INVOICE_CODE,
            target=invoice.pk,
            payload={
                "lines": [
                    {"cost_code": codes[code].cost_code_id, "amount": amount}
                    for code, amount in coding.lines
                ]
            },
            rationale=coding.rationale,
        )
        agent_action_propose(
            scope=scope,
            action=AgentActionKind.RFI_CREATE,
            payload={"project": project.pk, **data.PROPOSED_RFI},
            rationale=data.PROPOSED_RFI_RATIONALE,
        )
        agent_action_propose(
            scope=scope,
            action=AgentActionKind.DAILY_LOG_CREATE,
            payload={
                "project": project.pk,
                "date": log.date.isoformat(),
                "weather": log.weather,
                "manpower": _manpower_payload(log, vendors),
                "notes": log.notes,
                "delays": log.delays,
            },
            rationale=data.PROPOSED_LOG_RATIONALE,
        )
        agent_action_propose(
            scope=scope,
            action=AgentActionKind.BUDGET_UPDATE,
            target=codes[forecast.code].pk,
            payload={"cost_to_complete": forecast.cost_to_complete},
            rationale=forecast.rationale,
        )
