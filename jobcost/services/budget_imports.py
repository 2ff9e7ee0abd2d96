"""Budgets from a spreadsheet (docs/budget-import.md): read a CSV or XLSX of cost codes and
budgets, then check it (a dry run, writing nothing) or import it through
`cost_codes_create_many` — the rules of `POST /v1/cost-codes`, all rows or none, in one
transaction.

`budget_import_start` reads the file (a file that cannot be read, a wrong header, no rows or
too many is 400 and records nothing), records the `BudgetImport` with the rows as read and the
cells it could not read, then runs it at once when it has at most
`settings.BUDGET_IMPORT_SYNC_MAX_ROWS` rows, else queues `jobcost.tasks.budget_import_run`
after commit. `budget_import_run` (the task's body) is safe to run twice: a PostgreSQL advisory
lock on the import lets one run at a time, and a finished import is left alone. Its writes and
the import's final status commit together; `rows_done` moves during a queued run on a
connection of its own, so the progress bar moves while the import's transaction is open.

Lock order: the import's advisory lock, then the project (inside `cost_codes_create_many`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta

from celery import current_app
from django.conf import settings
from django.db import connection, connections, transaction
from django.db.models import Count, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from audit.context import Actor, acting_as, current_actor
from jobcost.budget_files import COLUMN_OF, MONEY_KEYS, FileRefused, parse_budget_file
from jobcost.errors import ApiError, InvalidRequest
from jobcost.models import BudgetImport, BudgetImportStatus, BudgetImportWarning, CostCode, Project
from jobcost.money import format_dollars
from jobcost.services.common import ensure_project_open, not_allowed, try_advisory_lock
from jobcost.services.cost_codes import RowsRefused, cost_codes_check_many, cost_codes_create_many

logger = logging.getLogger("jobcost.budget_imports")

S = BudgetImportStatus
# The Celery task that runs a queued import (jobcost/tasks.py), sent by name.
RUN_TASK = "jobcost.tasks.budget_import_run"
# An unfinished import whose row has not moved for this long is queued again by the sweep.
STALLED_AFTER = timedelta(minutes=2)
SWEEP_BATCH = 100


class _DryRun(Exception):
    """Raised inside the dry run's savepoint so that everything it wrote rolls back."""


def budget_import_start(
    *,
    project: Project,
    content: bytes,
    file_format: str,
    file_name: str = "",
    dry_run: bool = False,
) -> BudgetImport:
    """Record an import of `content` (`csv` or `xlsx`) into `project` and run it now (at most
    `BUDGET_IMPORT_SYNC_MAX_ROWS` rows: the import returned is finished) or queue it (pending).

    Raises 409 `project_closed`; 400 (param `file`) `file_unreadable`, `header_invalid`,
    `file_empty`, `too_many_rows` (more than `BUDGET_IMPORT_MAX_ROWS`), recording nothing.
    Refusals of rows are not raised: they are the import's `errors`, and it is `failed`.
    A dry run, or an import that fails, emits nothing.

    Emits: audit budget_line.created, cost_code.created; events cost_code.created.
    """
    ensure_project_open(project)
    try:
        parsed = parse_budget_file(content, file_format, max_rows=settings.BUDGET_IMPORT_MAX_ROWS)
    except FileRefused as exc:
        raise InvalidRequest(exc.message, code=exc.code, param="file") from exc
    return _record_and_run(
        project=project,
        rows=parsed.rows,
        errors=parsed.errors,
        file_format=file_format,
        file_name=file_name,
        dry_run=dry_run,
    )


def budget_import_confirm(*, dry_run_id: str) -> BudgetImport:
    """Import the rows a succeeded dry run checked (the back office's "Import" button after
    its dry-run table): a new, real import of the same rows, run now or queued as
    `budget_import_start` does, under every rule again. 409 `invalid_state_transition` when
    the dry run is not a succeeded dry run; 409 `project_closed`.

    Emits: audit budget_line.created, cost_code.created; events cost_code.created.
    """
    checked = BudgetImport.objects.select_related("project").get(pk=dry_run_id)
    if not (checked.dry_run and checked.status == S.SUCCEEDED):
        raise not_allowed(
            checked,
            message="Only a dry run that found no problem can be imported; check the file again.",
        )
    ensure_project_open(checked.project)
    return _record_and_run(
        project=checked.project,
        rows=checked.rows,
        errors=[],
        file_format=checked.file_format,
        file_name=checked.file_name,
        dry_run=False,
    )


def _record_and_run(
    *,
    project: Project,
    rows: list[dict],
    errors: list[dict],
    file_format: str,
    file_name: str,
    dry_run: bool,
) -> BudgetImport:
    actor = current_actor()
    budget_import = BudgetImport.objects.create(
        account_id=project.account_id,
        project=project,
        actor_type=actor.type,
        actor_id=actor.id or "",
        actor_role=actor.role or "",
        request_id=actor.request_id or "",
        idempotency_key=actor.idempotency_key or "",
        dry_run=dry_run,
        file_name=file_name[:255],
        file_format=file_format,
        rows_total=len(rows),
        rows=rows,
        errors=errors,
    )
    if len(rows) <= settings.BUDGET_IMPORT_SYNC_MAX_ROWS:
        _run(budget_import, progress=None)
        return budget_import
    import_id = budget_import.pk
    transaction.on_commit(lambda: _queue(import_id))
    return budget_import


def _queue(import_id: str) -> None:
    """Send the run task by name (the tasks module imports this one, not the reverse)."""
    try:
        current_app.send_task(RUN_TASK, args=[import_id])
    except Exception:  # a broker outage: the sweep queues it again (docs/budget-import.md)
        logger.warning("could not queue budget import %s; the sweep will", import_id)


def budget_imports_stalled() -> list[str]:
    """IDs of the imports still pending or running whose row has not moved for
    `STALLED_AFTER`: a broker outage lost their task, or their worker died mid-run (its
    transaction rolled back). The beat job `sweep_stalled_budget_imports` queues them again;
    a run that is still going holds the import's lock, so the extra task returns at once.

    Emits: none.
    """
    quiet_since = timezone.now() - STALLED_AFTER
    return list(
        BudgetImport.objects.filter(status__in=(S.PENDING, S.RUNNING), updated_at__lt=quiet_since)
        .order_by("updated_at")
        .values_list("pk", flat=True)[:SWEEP_BATCH]
    )


def budget_import_run(*, import_id: str) -> str:
    """Run a queued import (the Celery task): returns its status. Safe to run twice and
    concurrently: a second run while one holds the import's lock, or after it finished,
    does nothing.

    Emits: audit budget_line.created, cost_code.created; events cost_code.created.
    """
    with transaction.atomic():
        if not try_advisory_lock("budget_import", import_id):
            return "locked"
        budget_import = BudgetImport.objects.get(pk=import_id)
        if budget_import.finished:
            return budget_import.status
        progress = _ProgressWriter(import_id)
        try:
            progress.running()
            actor = Actor(
                type=budget_import.actor_type,
                id=budget_import.actor_id or None,
                role=budget_import.actor_role or None,
                request_id=budget_import.request_id or None,
                idempotency_key=budget_import.idempotency_key or None,
            )
            with acting_as(actor):
                _run(budget_import, progress=progress)
        finally:
            progress.close()
    return budget_import.status


class _ProgressWriter:
    """Writes `status = running` and `rows_done` of a queued import on a database connection
    of its own, in autocommit, so pollers see them while the import's transaction is open.
    PostgreSQL only (SQLite has one writer: there the bar jumps at the end)."""

    def __init__(self, import_id: str) -> None:
        self.import_id = import_id
        self.connection = (
            connections.create_connection("default") if connection.vendor == "postgresql" else None
        )

    def _write(self, sql: str, params: list) -> None:
        if self.connection is None:
            return
        with self.connection.cursor() as cursor:
            cursor.execute(sql, params)

    def running(self) -> None:
        self._write(
            "UPDATE jobcost_budgetimport SET status = %s, rows_done = 0, updated_at = %s "
            "WHERE id = %s AND status = %s",
            [S.RUNNING, timezone.now(), self.import_id, S.PENDING],
        )

    def __call__(self, rows_done: int) -> None:
        self._write(
            "UPDATE jobcost_budgetimport SET rows_done = LEAST(%s, rows_total), updated_at = %s "
            "WHERE id = %s",
            [rows_done, timezone.now(), self.import_id],
        )

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()


def _service_rows(rows: list[dict]) -> list[dict]:
    """The rows as `cost_codes_create_many` takes them: a money cell that could not be read
    (already an error of its own) counts as $0.00 so the other rules still check the row."""
    return [{**row, **{key: row[key] or 0 for key in MONEY_KEYS}} for row in rows]


def _as_import_errors(errors: list[dict]) -> list[dict]:
    """Service refusals (`field`) as the import lists them (`column`, the file's header)."""
    return [
        {
            "row": e["row"],
            "column": COLUMN_OF.get(e["field"], e["field"]),
            "code": e["code"],
            "message": e["message"],
        }
        for e in errors
    ]


def _whole_file_error(error: ApiError) -> dict:
    """A refusal of the whole import (closed project, money cap) as an import error."""
    column = COLUMN_OF.get(error.param) if error.param else None
    return {"row": None, "column": column, "code": error.code, "message": error.message}


def _merge(first: list[dict], second: list[dict]) -> list[dict]:
    """The file's refusals (`first`) and the rules' (`second`), by row and column; a cell the
    file already refused (a formula with no value) is not refused again as blank."""
    columns = list(COLUMN_OF.values())
    refused = {(e["row"], e["column"]) for e in first if e["column"] is not None}
    merged = first + [
        e for e in second if e not in first and (e["row"], e["column"]) not in refused
    ]
    return sorted(
        merged,
        key=lambda e: (
            e["row"] if e["row"] is not None else 0,
            columns.index(e["column"]) if e["column"] in columns else len(columns),
        ),
    )


def scheduled_value_warnings(project: Project, rows: list[dict]) -> list[dict]:
    """`[{"code": "scheduled_values_off_contract", "message"}]` when the project's scheduled
    values (its cost codes' now, plus the file's rows that could be read) do not sum to its
    original contract (G702 line 1, which the schedule of values divides); else `[]`. The
    message is in dollars: "Scheduled values total $1,234,567.00; the contract is
    $1,300,000.00 ($65,433.00 short)." (docs/budget-import.md, "Warnings").

    Emits: none (a read).
    """
    existing = CostCode.objects.filter(project=project).aggregate(
        total=Coalesce(Sum("scheduled_value"), 0), count=Count("id")
    )
    in_file = sum(row.get("scheduled_value") or 0 for row in rows)
    total = existing["total"] + in_file
    contract = project.contract_amount
    if total == contract:
        return []
    gap = contract - total
    side = "short" if gap > 0 else "over"
    message = (
        f"Scheduled values total {format_dollars(total)}; the contract is "
        f"{format_dollars(contract)} ({format_dollars(abs(gap))} {side})."
    )
    if existing["count"]:
        codes = "cost code" if existing["count"] == 1 else "cost codes"
        message += (
            f" That is {format_dollars(in_file)} in this file and "
            f"{format_dollars(existing['total'])} on the project's {existing['count']:,} "
            f"{codes} already."
        )
    return [{"code": str(BudgetImportWarning.SCHEDULED_VALUES_OFF_CONTRACT), "message": message}]


def _run(budget_import: BudgetImport, *, progress: Callable[[int], None] | None) -> None:
    """Check (dry run) or import the recorded rows; set the final status, errors, rows_done.
    Runs in the caller's transaction; the dry run's writes roll back in a savepoint."""
    project = budget_import.project
    rows = _service_rows(budget_import.rows)
    errors = list(budget_import.errors)
    # Read before the write: the project's scheduled values without this file's rows.
    budget_import.warnings = scheduled_value_warnings(project, budget_import.rows)
    if errors:
        # Some cells could not be read: list every other refusal too, write nothing.
        errors = _merge(
            errors, _as_import_errors(cost_codes_check_many(project=project, rows=rows))
        )
        try:
            ensure_project_open(Project.objects.get(pk=project.pk))
        except ApiError as exc:
            errors.insert(0, _whole_file_error(exc))
    else:
        try:
            with transaction.atomic():
                cost_codes_create_many(project=project, rows=rows, progress=progress)
                if budget_import.dry_run:
                    raise _DryRun
        except _DryRun:
            pass
        except RowsRefused as exc:
            errors = _as_import_errors(exc.errors)
        except ApiError as exc:  # 409 project_closed, 422 amount_out_of_range
            errors = [_whole_file_error(exc)]
    budget_import.errors = errors
    budget_import.status = S.FAILED if errors else S.SUCCEEDED
    budget_import.rows_done = budget_import.rows_total
    budget_import.finished_at = timezone.now()
    budget_import.save(
        update_fields=["errors", "warnings", "status", "rows_done", "finished_at", "updated_at"]
    )
