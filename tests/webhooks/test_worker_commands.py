"""The production worker commands in the README are the ones the worker tests and the webhook
bench start (`webhooks.lanes.PRODUCTION_WORKERS`), so the isolation the tests measure is the
isolation production gets."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from django.conf import settings

from webhooks.lanes import PRODUCTION_WORKERS

README = Path(settings.BASE_DIR) / "README.md"


def _readme_workers() -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    section = README.read_text().split("## Running workers", 1)[1].split("\n## ", 1)[0]
    workers = {}
    for line in re.findall(r"^\.venv/bin/celery -A config worker .*$", section, re.M):
        args = shlex.split(line)
        name = args[args.index("-n") + 1].split("@")[0]
        queues = tuple(args[args.index("-Q") + 1].split(","))
        pool = tuple(args[args.index("--pool") : args.index("--pool") + 4])
        workers[name] = (queues, pool)
    return workers


def test_the_readme_runs_the_workers_the_tests_start():
    assert _readme_workers() == PRODUCTION_WORKERS


def test_the_production_queues_are_the_default_settings():
    main_queues, _ = PRODUCTION_WORKERS["main"]
    slow_queues, _ = PRODUCTION_WORKERS["slow"]
    assert main_queues == ("celery", "webhooks") and slow_queues == ("webhooks-slow",)
    assert (settings.WEBHOOKS_QUEUE, settings.WEBHOOKS_SLOW_QUEUE) == ("webhooks", "webhooks-slow")
