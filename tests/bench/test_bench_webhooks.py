"""`manage.py bench_webhooks`: refuses without Redis, and a tiny real run (one worker process,
a loopback receiver, a slow endpoint beside it) delivers everything, prints each rate over the
ceiling and the fast endpoint's delays, and cleans up after itself. Its timings are printed,
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

    call_command(
        "bench_webhooks",
        events=3,
        endpoints=2,
        workers="1",
        slow_seconds=1.0,
        slow_queued=3,
        stdout=out,
    )

    number = r"\d+(?:\.\d+)?"
    mode = r"(celery workers|POST loop \(ceiling\))"
    row = rf"^{mode}\s+(\d+)\s+(\d+)\s+{number}\s+({number})\s+({number})\s+(\d+|—)$"
    rows = re.findall(row, out.getvalue(), re.M)
    assert [r[:3] for r in rows] == [
        ("celery workers", "1", "6"),
        ("POST loop (ceiling)", "1", "6"),
    ]
    # Each ratio is its rate over the ceiling's rate, as printed (two decimals).
    ceiling = float(rows[-1][3])
    for _mode, _processes, _deliveries, rate, ratio, _cpu in rows:
        assert abs(float(ratio) - float(rate) / ceiling) <= 0.01, rows
    # The workers' CPU per delivery (whole clock ticks, so a run this small may show 0); the
    # loop's column is empty.
    assert rows[0][5].isdigit() and rows[1][5] == "—", rows
    assert re.search(
        rf"in flight\s+{number} s\n\s+once it goes by the slow lane\s+{number} s", out.getvalue()
    )
    assert "load average (1, 5, 15 min): " in out.getvalue()
    assert not Event.objects.exists()
    assert not WebhookDelivery.objects.exists()
    endpoints = WebhookEndpoint.objects.filter(description="bench_webhooks")
    assert sorted(endpoints.values_list("status", flat=True)) == ["disabled"] * 3
