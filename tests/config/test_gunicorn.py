"""The production server's config (config/gunicorn.conf.py, README "Serving the API"): each
worker freezes what is alive once it has loaded the application, so the garbage collector
never scans Django's objects again; GUNICORN_GC_FREEZE=off leaves the collector as it is."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.conf import settings

# What gunicorn does in a worker: read the config, load the application, call the hook.
HOOK = (
    "import gc, runpy, django; from django.conf import settings; "
    "config = runpy.run_path('config/gunicorn.conf.py'); "
    "from config.wsgi import application; "
    "config['post_worker_init'](None); print(gc.get_freeze_count())"
)


def _frozen_after_the_hook(freeze: str | None) -> int:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"}
    env.pop("GUNICORN_GC_FREEZE", None)
    if freeze is not None:
        env["GUNICORN_GC_FREEZE"] = freeze
    run = subprocess.run(
        [sys.executable, "-c", HOOK],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return int(run.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(("freeze", "frozen"), [(None, True), ("Off", False)])
def test_a_worker_freezes_the_loaded_application_unless_told_not_to(freeze, frozen):
    count = _frozen_after_the_hook(freeze)
    if frozen:
        assert count > 50_000  # Django and the apps: far more than a handful of objects
    else:
        assert count == 0
