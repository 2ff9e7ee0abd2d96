"""RFIs: open → answered → closed; an open RFI may be closed unanswered (docs/resources.md, rfi).

Numbered per project (`RFI-001`, …) unless a number is given. Recording an answer on an
open RFI moves it to `answered` (event `rfi.answered`); a closed RFI is final.
"""

from __future__ import annotations

from django.utils import timezone

from jobcost.models import Project, Rfi, RfiStatus
from jobcost.services.common import (
    apply_changes,
    ensure_free,
    lock_in_state,
    lock_open_project,
    next_number,
    not_allowed,
    save_audited,
    service,
    transition,
)

S = RfiStatus
WRITABLE = frozenset({"subject", "question", "answer", "due_date", "cost_impact", "number"})


def _ensure_number_free(project_id: str, number: str, exclude_pk: str | None = None) -> None:
    ensure_free(
        Rfi.objects.filter(project_id=project_id, number=number),
        param="number",
        message=f"An RFI numbered '{number}' already exists on this project.",
        exclude_pk=exclude_pk,
    )


@service
def rfi_create(
    *,
    project: Project,
    subject: str,
    question: str,
    number: str | None = None,
    due_date=None,
    cost_impact: bool = False,
) -> Rfi:
    """Create an `open` RFI (`due_date` a date or None). Raises 409
    `project_closed` and 409 `resource_already_exists` (param `number`).

    Emits: audit rfi.created; events rfi.created.
    """
    project = lock_open_project(project.pk)
    if number:
        _ensure_number_free(project.pk, number)
    else:
        taken = set(Rfi.objects.filter(project=project).values_list("number", flat=True))
        number = next_number(taken, "RFI")
    rfi = Rfi(
        account_id=project.account_id,
        project=project,
        number=number,
        subject=subject,
        question=question,
        due_date=due_date,
        cost_impact=cost_impact,
    )
    return save_audited(rfi)


@service
def rfi_update(*, rfi_id: str, changes: dict) -> Rfi:
    """Edit an open or answered RFI. A non-blank `answer` on an open RFI moves it to
    `answered` (audit action `answered`). Raises 409 `invalid_state_transition` on a closed
    RFI, and for clearing an answered RFI's answer (param `answer`: it would move the RFI back
    to open, which is not a transition; the schema cannot say so, the state decides).

    Emits: audit rfi.answered, rfi.updated; events rfi.answered.
    """
    rfi = lock_in_state(Rfi, rfi_id, allowed=(S.OPEN, S.ANSWERED), verb="edit")
    if "number" in changes and changes["number"] != rfi.number:
        _ensure_number_free(rfi.project_id, changes["number"], exclude_pk=rfi.pk)
    if rfi.status == S.ANSWERED and changes.get("answer", rfi.answer) == "":
        raise not_allowed(
            rfi,
            message="An answered RFI's answer cannot be cleared.",
            param="answer",
        )
    apply_changes(rfi, changes, WRITABLE)
    action = None
    if rfi.status == S.OPEN and rfi.answer:
        rfi.status, rfi.answered_at, action = S.ANSWERED, timezone.now(), "answered"
    return save_audited(rfi, action=action)


@service
def rfi_close(*, rfi_id: str) -> Rfi:
    """open | answered → closed (an unanswered RFI closes as withdrawn).

    Emits: audit rfi.closed; events rfi.closed.
    """
    return transition(
        Rfi,
        rfi_id,
        allowed=(S.OPEN, S.ANSWERED),
        to=S.CLOSED,
        verb="close",
        action="closed",
        stamp="closed_at",
    )
