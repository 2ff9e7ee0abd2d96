"""Projects and their status machine (docs/resources.md, project)."""

from __future__ import annotations

import datetime
from decimal import Decimal

from jobcost.error_codes import ProjectErrorCode
from jobcost.errors import Conflict, InvalidRequest
from jobcost.models import PROJECT_INITIAL, Owner, Project, ProjectStatus
from jobcost.services.common import (
    apply_changes,
    check_writable,
    create_unique,
    ensure_project_open,
    ensure_same_account,
    lock,
    not_allowed,
    save_audited,
    service,
)
from jobcost.services.totals import ensure_project_totals

S = ProjectStatus

# docs/resources.md: bid→active, active→closeout, closeout→active, closeout→closed.
TRANSITIONS: dict[str, set[str]] = {
    S.BID: {S.ACTIVE},
    S.ACTIVE: {S.CLOSEOUT},
    S.CLOSEOUT: {S.ACTIVE, S.CLOSED},
    S.CLOSED: set(),
}


# docs/resources.md: what a project PATCH writes (contract_amount only while bid).
WRITABLE = frozenset(
    {
        "name",
        "number",
        "retainage_pct",
        "status",
        "contract_amount",
        "contract_date",
        "architect_name",
    }
)


@service
def project_create(
    *,
    account_id: str,
    number: str,
    name: str,
    owner: Owner,
    contract_amount: int,
    currency: str = "usd",
    retainage_pct: Decimal = Decimal(0),
    status: str = S.BID,
    contract_date: datetime.date | None = None,
    architect_name: str = "",
) -> Project:
    """Create a project in `bid` (or `active`). `contract_date` and `architect_name` are
    what the G702 prints (docs/documents.md). Raises 400 for another initial status and
    409 `resource_already_exists` (param `number`) for a job number already used.

    Emits: audit project.created; events project.created.
    """
    ensure_same_account(owner, account_id, param="owner", noun="owner")
    if status not in PROJECT_INITIAL:
        raise InvalidRequest("A new project starts as 'bid' or 'active'.", param="status")
    project = Project(
        account_id=account_id,
        number=number,
        name=name,
        owner=owner,
        contract_amount=contract_amount,
        currency=currency,
        retainage_pct=retainage_pct,
        status=status,
        contract_date=contract_date,
        architect_name=architect_name,
    )
    return create_unique(
        lambda: save_audited(project),
        param="number",
        message=f"A project numbered '{number}' already exists.",
    )


@service
def project_update(*, project_id: str, changes: dict) -> Project:
    """PATCH a project: `name`, `number`, `retainage_pct`, `status`, `contract_date`,
    `architect_name` (a pay app already submitted keeps the ones it printed), and
    `contract_amount` only while `bid` (else 409 `contract_locked`). A closed project refuses
    everything (409 `project_closed`); an unlisted status move is 409
    `invalid_state_transition`; a contract that would take the revised contract past the
    money cap is 422 `amount_out_of_range` (docs/operations/limits.md).

    Emits: audit project.updated; events project.updated.
    """
    # A status move (a close above all) waits for the codings that hold the project open
    # with `FOR KEY SHARE` (`hold_project_open`); other edits take the usual lock.
    project = lock(Project, project_id, exclusive="status" in changes)
    ensure_project_open(project)
    check_writable(changes, WRITABLE)
    new_status = changes.get("status", project.status)
    if new_status != project.status and new_status not in TRANSITIONS[project.status]:
        raise not_allowed(
            project,
            message=f"A project cannot move from '{project.status}' to '{new_status}'.",
            param="status",
        )
    if (
        "contract_amount" in changes
        and changes["contract_amount"] != project.contract_amount
        and project.status != S.BID
    ):
        raise Conflict(
            "The original contract can only change while the project is in bid; "
            "use an owner change order.",
            code=ProjectErrorCode.CONTRACT_LOCKED,
            param="contract_amount",
            object_id=project.pk,
        )
    if apply_changes(project, changes, WRITABLE):
        create_unique(
            lambda: save_audited(project),
            param="number",
            message=f"A project numbered '{project.number}' already exists.",
        )
        if "contract_amount" in changes:
            ensure_project_totals(project.pk, param="contract_amount")
    return project
