"""Agent actions: an agent (or any writer) proposes, a person approves (docs/resources.md,
agent_action).

Nothing changes on proposal. Approval parses the stored `payload` with the real endpoint's
request serializer and calls the real endpoint's service function, in a savepoint of the
approving transaction: the same code and rules, so an approved `change_order.create` is
exactly `POST /v1/change-orders`. A rule failure rolls the savepoint back (nothing of the
change is written) and the action is marked `failed` with the error object.

| action | real endpoint | target | result |
|---|---|---|---|
| `invoice.code` | `PATCH /v1/invoices/{target}` (with `lines`) | `inv_` | the invoice |
| `change_order.create` | `POST /v1/change-orders` | none | the change order |
| `rfi.create` | `POST /v1/rfis` | none | the RFI |
| `daily_log.create` | `POST /v1/daily-logs` | none | the daily log |
| `budget.update` | `PATCH /v1/budgets/{target}` | `bl_` | the budget line |
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from types import SimpleNamespace

from django.db import models, transaction
from django.utils import timezone
from django.utils.module_loading import import_string
from rest_framework import serializers

from audit.context import current_actor
from audit.ids import has_prefix
from jobcost.error_codes import AuthErrorCode, ProjectErrorCode, RequestErrorCode
from jobcost.errors import ApiError, Forbidden, InvalidRequest, NotFound, translate
from jobcost.models import AgentAction, AgentActionStatus, BudgetLine, Invoice, Project, Role
from jobcost.scope import Scope
from jobcost.services.change_orders import change_order_create
from jobcost.services.common import (
    ensure_project_open,
    lock,
    lock_in_state,
    lock_open_project,
    not_allowed,
    save_audited,
    service,
)
from jobcost.services.cost_codes import budget_line_update
from jobcost.services.daily_logs import daily_log_create
from jobcost.services.invoices import invoice_update
from jobcost.services.rfis import rfi_create

S = AgentActionStatus


@dataclass(frozen=True)
class ActionKind:
    """How one `action` runs: the real endpoint's request serializer (dotted path), the
    target model for updates (None for creates; it gives `target_prefix`), the fields the
    payload must hold beyond the serializer's own, and `run(target_id, data) -> the changed
    object`."""

    serializer: str
    run: Callable[[str | None, dict], models.Model]
    target_model: type[models.Model] | None = None
    requires: tuple[str, ...] = ()

    @property
    def target_prefix(self) -> str | None:
        """The ID prefix of the target (`inv`), from its model."""
        return self.target_model.PREFIX if self.target_model is not None else None


KINDS: dict[str, ActionKind] = {
    "invoice.code": ActionKind(
        serializer="jobcost.serializers.invoices.InvoiceUpdateSerializer",
        run=lambda target, data: invoice_update(invoice_id=target, changes=dict(data)),
        target_model=Invoice,
        requires=("lines",),
    ),
    "change_order.create": ActionKind(
        serializer="jobcost.serializers.change_orders.ChangeOrderCreateSerializer",
        run=lambda _target, data: change_order_create(**data),
    ),
    "rfi.create": ActionKind(
        serializer="jobcost.serializers.rfis.RfiCreateSerializer",
        run=lambda _target, data: rfi_create(**data),
    ),
    "daily_log.create": ActionKind(
        serializer="jobcost.serializers.daily_logs.DailyLogCreateSerializer",
        run=lambda _target, data: daily_log_create(**data),
    ),
    "budget.update": ActionKind(
        serializer="jobcost.serializers.budgets.BudgetLineUpdateSerializer",
        run=lambda target, data: budget_line_update(budget_line_id=target, changes=dict(data)),
        target_model=BudgetLine,
    ),
}


def _prefixed(error: ApiError) -> ApiError:
    """Name a payload field as `payload.<param>` so the caller can find it (a 400 about the
    body as a whole names `payload`)."""
    if error.param and not error.param.startswith("payload"):
        error.param = f"payload.{error.param}"
    elif error.param is None and error.status == 400:
        error.param = "payload"
    return error


def parse_payload(kind: ActionKind, payload: dict, scope: Scope) -> dict:
    """Validate `payload` exactly as the real endpoint validates its body, with references
    resolved in `scope`. Raises the endpoint's errors with `param` under `payload.`.

    Emits: none.
    """
    serializer_class = import_string(kind.serializer)
    context = {"view": SimpleNamespace(scope=scope, request=None), "request": None}
    try:
        serializer = serializer_class(data=payload, context=context)
        serializer.is_valid(raise_exception=True)
    except (ApiError, serializers.ValidationError) as exc:
        raise _prefixed(translate(exc)) from exc
    data = dict(serializer.validated_data)
    for name in kind.requires:
        if name not in data:
            raise InvalidRequest(
                f"A proposal of this action names payload.{name}.",
                code=RequestErrorCode.PARAMETER_MISSING,
                param=f"payload.{name}",
            )
    return data


def _storable(payload: dict) -> dict:
    """The validated payload as stored JSON. The API parser reads numbers with a decimal point
    as exact Decimals; once the payload has passed the real endpoint's validation, each such
    number sits in a field that takes at most two decimals, so a float keeps its value."""
    try:
        return json.loads(json.dumps(payload, default=float, allow_nan=False))
    except (TypeError, ValueError, RecursionError) as exc:  # validation refuses these first
        raise InvalidRequest("payload cannot be stored as JSON.", param="payload") from exc


def _as_parsed(payload: dict) -> dict:
    """A stored payload as the API parser would read it again: decimals as exact Decimals."""
    return json.loads(json.dumps(payload), parse_float=Decimal)


def _target(kind: ActionKind, target: str | None, scope: Scope):
    """The visible target object of an update kind (404 `resource_missing`, param `target`);
    creates take none (400 param `target`)."""
    if kind.target_model is None:
        if target:
            raise InvalidRequest(
                "This action creates an object; it takes no target.", param="target"
            )
        return None
    if not target:
        raise InvalidRequest(
            f"This action changes an existing object: name its `{kind.target_prefix}_` ID.",
            code=RequestErrorCode.PARAMETER_MISSING,
            param="target",
        )
    found = None
    if has_prefix(target, kind.target_prefix):
        found = scope.filter(kind.target_model.objects.all()).filter(pk=target).first()
    if found is None:
        raise NotFound(f"No such {kind.target_prefix}_ object: '{target}'.", param="target")
    return found


@service
def agent_action_propose(
    *,
    scope: Scope,
    action: str,
    payload: dict,
    target: str | None = None,
    rationale: str = "",
    project: Project | None = None,
) -> AgentAction:
    """Record a `proposed` action; nothing else changes. The payload is validated now as
    the real endpoint would (400/404 with `param` under `payload.`) and again at approval.
    The project comes from the target or the payload's `project`; a given `project` must
    match it (400 param `project`). Raises 409 `project_closed`. `payload` is the body as the
    API parser read it (decimals as Decimal): it is validated as it came, then stored.

    Emits: audit agent_action.proposed; events agent_action.proposed.
    """
    kind = KINDS[action]
    target_obj = _target(kind, target, scope)
    data = parse_payload(kind, payload, scope)
    stored = _storable(payload)
    derived = target_obj.project if target_obj is not None else data["project"]
    if project is not None and project.pk != derived.pk:
        raise InvalidRequest(
            "project does not match the project of the target or payload.", param="project"
        )
    derived = lock_open_project(derived.pk)
    return save_audited(
        AgentAction(
            account_id=derived.account_id,
            project=derived,
            action=action,
            target=target or "",
            payload=stored,
            rationale=rationale,
            proposed_by=current_actor().as_dict(),
        ),
        action="proposed",
    )


def _refuse_agents() -> None:
    """Agent keys never decide (docs/keys.md, "Who may call what"); the route policy refuses them
    first, and this holds for any other caller of the service."""
    if current_actor().role == Role.AGENT:
        raise Forbidden(
            "Agent keys cannot approve or reject agent actions.",
            code=AuthErrorCode.AGENT_CANNOT_APPROVE,
        )


def _failure(error: ApiError) -> dict:
    """The docs/errors.md error object, with the approving request's `request_id`."""
    return error.payload(current_actor().request_id)["error"]


@service
def agent_action_approve(*, agent_action_id: str, scope: Scope) -> AgentAction:
    """proposed → approved, running the payload (see module docstring), or → failed with
    the error object when a rule refuses it (nothing of the change is written). Raises 409
    `invalid_state_transition` unless proposed, 409 `project_closed`, 403
    `agent_cannot_approve` for an agent actor.

    Locks: only the action row here; the project is checked by a plain read and the real
    service then takes its own locks in its own order (an invoice's coding: the invoice, then
    its project shared; docs/architecture.md, "Row locks"), so an approval never waits in the
    opposite order to an ordinary invoice or budget write.

    Emits: audit agent_action.approved, agent_action.failed, budget_line.updated,
    change_order.created, daily_log.created, invoice.coded, rfi.created; events
    agent_action.approved, agent_action.failed, budget.updated, change_order.created,
    daily_log.created, invoice.coded, rfi.created.
    """
    _refuse_agents()
    agent_action = lock(AgentAction, agent_action_id)
    if agent_action.status != S.PROPOSED:
        raise not_allowed(agent_action, "approve")
    ensure_project_open(Project.objects.get(pk=agent_action.project_id))
    kind = KINDS[agent_action.action]
    try:
        with transaction.atomic():
            _target(kind, agent_action.target or None, scope)
            data = parse_payload(kind, _as_parsed(agent_action.payload), scope)
            result = kind.run(agent_action.target or None, data)
    except Exception as exc:
        error = translate(exc)
        if error is None or error.code == ProjectErrorCode.PROJECT_CLOSED:
            raise  # not the payload's fault: the project closed while this ran
        if error.param != "target":
            error = _prefixed(error)
        agent_action.status = S.FAILED
        agent_action.failure = _failure(error)
        verb = "failed"
    else:
        agent_action.status = S.APPROVED
        agent_action.result = result.pk
        verb = "approved"
    agent_action.decided_by = current_actor().as_dict()
    agent_action.decided_at = timezone.now()
    return save_audited(agent_action, action=verb)


@service
def agent_action_reject(*, agent_action_id: str, reason: str = "") -> AgentAction:
    """proposed → rejected, recording who (`decided_by`) and why (`rejection_reason`).

    Emits: audit agent_action.rejected; events agent_action.rejected.
    """
    _refuse_agents()
    agent_action = lock_in_state(AgentAction, agent_action_id, allowed=(S.PROPOSED,), verb="reject")
    agent_action.status = S.REJECTED
    agent_action.rejection_reason = reason
    agent_action.decided_by = current_actor().as_dict()
    agent_action.decided_at = timezone.now()
    return save_audited(agent_action, action="rejected", note=reason)
