"""The Celery app. Periodic schedules are declared once, here."""

import gc
import os

from celery import Celery
from celery.schedules import crontab
from celery.signals import worker_ready

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("jobcost")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

app.conf.beat_schedule = {
    # docs/conventions.md: idempotency keys older than 24 h are purged.
    "purge-expired-idempotency-keys": {
        "task": "jobcost.tasks.purge_expired_idempotency_keys",
        "schedule": crontab(minute="*/15"),
    },
    # docs/webhooks.md: due webhook retries (and anything a broker outage dropped)
    # every 5 s.
    "sweep-due-webhook-deliveries": {
        "task": "webhooks.tasks.sweep_due_deliveries",
        "schedule": 5.0,
    },
    # Budget imports whose task a broker outage lost, or whose worker died, run again.
    "sweep-stalled-budget-imports": {
        "task": "jobcost.tasks.sweep_stalled_budget_imports",
        "schedule": 60.0,
    },
    # docs/resources.md, event: events are kept 30 days.
    "purge-old-events": {
        "task": "webhooks.tasks.purge_old_events",
        "schedule": crontab(minute=17, hour="*/6"),
    },
}


@worker_ready.connect
def freeze_loaded_objects(**kwargs):
    """Once a worker has loaded Django, the apps and its tasks, what is alive is frozen for
    the garbage collector (`gc.freeze`), as the web workers do (config/gunicorn.conf.py):
    the objects a batch of deliveries keeps alive no longer make full collections scan all
    of Django. It runs in the worker's main process, where the `threads` (or `solo`) pool the
    documented workers use (docs/operations/workers.md) runs the tasks; a `prefork` pool's children
    are not frozen. CELERY_GC_FREEZE=off leaves the collector as Python sets it."""
    if os.environ.get("CELERY_GC_FREEZE", "on").lower() != "off":
        gc.collect()
        gc.freeze()
