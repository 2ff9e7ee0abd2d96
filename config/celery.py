"""The Celery app. Periodic schedules are declared once, here (STYLE §9)."""

import os

from celery import Celery
from celery.schedules import crontab

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("jobcost")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

app.conf.beat_schedule = {
    # SPEC §5: idempotency keys older than 24 h are purged.
    "purge-expired-idempotency-keys": {
        "task": "jobcost.tasks.purge_expired_idempotency_keys",
        "schedule": crontab(minute="*/15"),
    },
}
