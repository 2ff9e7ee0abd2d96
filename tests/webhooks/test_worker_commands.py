"""The production worker commands in docs/operations/workers.md are the ones the worker tests
and the webhook bench start (`webhooks.lanes.PRODUCTION_WORKERS`), so the isolation the tests
measure is the isolation production gets."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from django.conf import settings

from webhooks.lanes import PRODUCTION_WORKERS

PAGE = Path(settings.BASE_DIR) / "docs" / "operations" / "workers.md"


def _documented_workers() -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    section = PAGE.read_text()
    workers = {}
    for line in re.findall(r"^\.venv/bin/celery -A config worker .*$", section, re.M):
        args = shlex.split(line)
        name = args[args.index("-n") + 1].split("@")[0]
        queues = tuple(args[args.index("-Q") + 1].split(","))
        pool = tuple(args[args.index("--pool") : args.index("--pool") + 4])
        workers[name] = (queues, pool)
    return workers


def test_the_docs_run_the_workers_the_tests_start():
    assert _documented_workers() == PRODUCTION_WORKERS


def test_the_production_queues_are_the_default_settings():
    main_queues, _ = PRODUCTION_WORKERS["main"]
    slow_queues, _ = PRODUCTION_WORKERS["slow"]
    assert main_queues == ("celery", "webhooks") and slow_queues == ("webhooks-slow",)
    assert (settings.WEBHOOKS_QUEUE, settings.WEBHOOKS_SLOW_QUEUE) == ("webhooks", "webhooks-slow")
