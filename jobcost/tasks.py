"""Celery tasks of the job-cost app (schedules in config/celery.py)."""

from celery import shared_task

from jobcost.api import idempotency


@shared_task(name="jobcost.tasks.purge_expired_idempotency_keys")
def purge_expired_idempotency_keys() -> int:
    """SPEC §5: delete idempotency records past the 24 h window; returns the count."""
    return idempotency.purge_expired()


@shared_task(name="jobcost.tasks.budget_import_run")
def budget_import_run(import_id: str) -> str:
    """Run a queued budget import (docs/budget-import.md); safe to run twice."""
    from jobcost.services.budget_imports import budget_import_run as run

    return run(import_id=import_id)
