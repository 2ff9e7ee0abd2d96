"""`manage.py bench_webhooks`: refuses without Redis, and a tiny real run (one worker process,
a loopback receiver) delivers everything and cleans up after itself. Its timings are printed,
never asserted."""

from __future__ import annotations

import io
import re

import pytest
from django.core.management import CommandError, call_command

from webhooks.models import Event, WebhookDelivery, WebhookEndpoint


def test_refuses_without_redis(db, settings):
    settings.REDIS_URL = ""

    with pytest.raises(CommandError, match="needs REDIS_URL"):
        call_command("bench_webhooks", events=1, endpoints=1, workers="1")

    assert not WebhookEndpoint.objects.exists()
    assert not Event.objects.exists()


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_small_run_delivers_everything_and_cleans_up():
    out = io.StringIO()

    call_command("bench_webhooks", events=3, endpoints=2, workers="1", stdout=out)

    row = r"^(celery workers|httpx loop \(ceiling\))\s+(\d+)\s+(\d+)\s"
    rows = re.findall(row, out.getvalue(), re.M)
    assert rows == [("celery workers", "1", "6"), ("httpx loop (ceiling)", "1", "6")]
    assert not Event.objects.exists()
    assert not WebhookDelivery.objects.exists()
    endpoints = WebhookEndpoint.objects.filter(description="bench_webhooks")
    assert sorted(endpoints.values_list("status", flat=True)) == ["disabled", "disabled"]
