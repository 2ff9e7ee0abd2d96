"""The production processes freeze what is alive once they have loaded the application, so the
garbage collector never scans Django's objects again: each gunicorn worker
(config/gunicorn.conf.py, `post_worker_init`) and each Celery worker (config/celery.py,
`worker_ready`); GUNICORN_GC_FREEZE=off and CELERY_GC_FREEZE=off leave the collector as it
is."""

from __future__ import annotations

import os
import subprocess
import sys

from django.conf import settings

# In one process: what gunicorn does in a worker (read the config, load the application, call
# the hook), then what a Celery worker does once it is ready (the tasks loaded, `worker_ready`
# sent); the number of frozen objects after each.
HOOKS = (
    "import gc, runpy; "
    "config = runpy.run_path('config/gunicorn.conf.py'); "
    "from config.wsgi import application; "
    "config['post_worker_init'](None); print(gc.get_freeze_count()); gc.unfreeze(); "
    "from config.celery import app; from celery.signals import worker_ready; "
    "app.loader.import_default_modules(); "
    "worker_ready.send(sender=None); print(gc.get_freeze_count())"
)


def _frozen(value: str | None) -> list[int]:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"}
    for variable in ("GUNICORN_GC_FREEZE", "CELERY_GC_FREEZE"):
        env.pop(variable, None)
        if value is not None:
            env[variable] = value
    run = subprocess.run(
        [sys.executable, "-c", HOOKS],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return [int(line) for line in run.stdout.split()[-2:]]


def test_gunicorn_and_celery_workers_freeze_the_loaded_application():
    gunicorn, celery = _frozen(None)
    # Django, the apps and the tasks: far more than a handful of objects.
    assert gunicorn > 50_000
    assert celery > 50_000


def test_off_leaves_the_collector_as_it_is():
    assert _frozen("Off") == [0, 0]  # any case of "off"
