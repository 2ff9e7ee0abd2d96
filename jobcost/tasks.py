"""Celery tasks of the job-cost app (schedules in config/celery.py)."""

from celery import shared_task

from jobcost.api import idempotency
from jobcost.services.budget_imports import RUN_TASK, budget_imports_stalled
from jobcost.services.budget_imports import budget_import_run as run_import


@shared_task(name="jobcost.tasks.purge_expired_idempotency_keys")
def purge_expired_idempotency_keys() -> int:
    """docs/conventions.md: delete idempotency records past the 24 h window; returns the count."""
    return idempotency.purge_expired()


@shared_task(name=RUN_TASK)
def budget_import_run(import_id: str) -> str:
    """Run a queued budget import (docs/budget-import.md); safe to run twice."""
    return run_import(import_id=import_id)


@shared_task(name="jobcost.tasks.sweep_stalled_budget_imports", ignore_result=True)
def sweep_stalled_budget_imports() -> int:
    """Queue again every stalled budget import (`budget_imports_stalled`); returns how many."""
    stalled = budget_imports_stalled()
    for import_id in stalled:
        budget_import_run.delay(import_id)
    return len(stalled)
