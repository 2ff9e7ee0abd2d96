"""`manage.py bench_soak` (the memory soak, docs/benchmarks.md, "Memory soak"): the RSS
sampler on real processes, the verdict on made-up samples, and a two-second real run (gunicorn,
one Celery worker, a loopback receiver) that samples every process, drives every kind of
request, gets its deliveries to the receiver, prints its table and cleans up. Its figures are
printed, never asserted: a two-second run is all warm-up."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys

import pytest
from django.core.management import CommandError, call_command

from bench.management.commands.bench_soak import verdict
from bench.rss import (
    Growth,
    Sampler,
    Series,
    assess,
    cpu_seconds,
    descendants,
    rss_kib,
)
from jobcost.models import ApiKey, Project
from tests.waiting import until
from webhooks.models import Event, WebhookDelivery, WebhookEndpoint


def test_the_sampler_reads_a_process_tree_from_proc():
    # A child that starts a grandchild, then both sleep.
    sleep = "import time; time.sleep(30)"
    script = f"import subprocess, sys; subprocess.Popen([sys.executable, '-c', {sleep!r}]); {sleep}"
    child = subprocess.Popen([sys.executable, "-c", script])
    try:
        until(lambda: len(descendants(child.pid)) == 1, timeout=10, what="the grandchild")
        (grandchild,) = descendants(child.pid)
        sampler = Sampler([("parent", child.pid, "kid")], interval=0.05)
        sampler.start()
        until(lambda: len(sampler.series[child.pid].samples) >= 3, timeout=5, what="samples")
        sampler.stop()
    finally:
        for pid in descendants(child.pid):
            os.kill(pid, 9)
        child.kill()
        child.wait()

    assert rss_kib(os.getpid()) > 1024  # this interpreter holds more than a MiB
    assert [(s.label, s.pid) for s in sampler.series.values()] == [
        ("parent", child.pid),
        ("kid", grandchild),
    ]
    rows = assess(sampler, warmup=0.0)
    assert all(row.alive and row.base and row.end > 1024 for row in rows)
    assert rss_kib(child.pid) is None  # reaped: gone from /proc


def test_cpu_seconds_counts_a_process_s_work_until_it_is_gone():
    """What the benchmarks read to judge a worker by its own work (`worker_cpu_seconds`,
    `bench_webhooks`' CPU per delivery): a child that computes for a while has used CPU time
    by the ticks of /proc, at most what the wall clock allowed; once reaped, None."""
    spin = "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass"
    child = subprocess.Popen([sys.executable, "-c", spin + "\ntime.sleep(30)"])
    try:
        until(lambda: (cpu_seconds(child.pid) or 0) >= 0.3, timeout=20, what="0.3 s of CPU")
        used = cpu_seconds(child.pid)
    finally:
        child.kill()
        child.wait()
    assert 0.3 <= used < 20
    assert cpu_seconds(child.pid) is None


def _sampler(series: dict[str, list[tuple[float, int]]], last: float) -> Sampler:
    sampler = Sampler([], interval=10.0)
    for pid, (label, samples) in enumerate(series.items(), start=100):
        sampler.series[pid] = Series(label, pid, samples)
    sampler.last = last
    return sampler


def test_growth_is_measured_from_the_first_sample_after_the_warm_up_to_the_last():
    sampler = _sampler(
        {
            "steady": [(0.0, 50_000), (10.0, 100_000), (20.0, 100_000), (30.0, 104_900)],
            "leaky": [(0.0, 100_000), (10.0, 100_000), (20.0, 103_000), (30.0, 105_000)],
            "died": [(0.0, 100_000), (10.0, 100_000), (20.0, 100_000)],
            "replacement": [(20.0, 90_000), (30.0, 90_000)],
        },
        last=30.0,
    )

    rows = {row.label: row for row in assess(sampler, warmup=10.0)}

    assert rows["steady"] == Growth("steady", 100, 50_000, 100_000, 104_900, 104_900, 4.9, True)
    assert rows["leaky"].percent == 5.0
    assert not rows["died"].alive
    assert rows["replacement"].base is None and rows["replacement"].percent is None
    assert [row.passes(5.0) for row in rows.values()] == [True, False, False, False]
    assert verdict(list(rows.values()), 5.0) == [
        "leaky 101 grew +5.00 % (≥ 5 %)",
        "died 102 exited during the soak",
        "replacement 103 started after the warm-up (a replacement?)",
    ]
    assert verdict([], 5.0) == ["no process was sampled"]


def test_refuses_without_redis(db, settings):
    settings.REDIS_URL = ""

    with pytest.raises(CommandError, match="needs PostgreSQL"):
        call_command("bench_soak", seconds=1)

    assert not Project.objects.exists()


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_short_soak_samples_every_process_and_delivers_its_webhooks(settings, tmp_path):
    settings.VAR_DIR = tmp_path  # its samples are this run's, not a file an earlier run left
    samples = tmp_path / "bench_soak" / "rss.csv"
    out = io.StringIO()

    call_command(
        "bench_soak",
        seconds=2,
        interval=0.5,
        readers=1,
        writers=1,
        seed_invoices=3,
        ceiling=1000.0,  # two seconds are all warm-up: the figures are printed, not judged
        stdout=out,
    )

    text = out.getvalue()
    mib, pct = r"\d+\.\d", r"[+-]\d+\.\d\d"
    label = r"(gunicorn master|gunicorn worker|celery worker)"
    row = rf"^{label}\s+(\d+)(?:\s+{mib}){{4}}\s+{pct}\s+1000\.00  ok$"
    rows = re.findall(row, text, re.M)
    labels = sorted(label for label, _ in rows)
    assert labels == ["celery worker", "gunicorn master", "gunicorn worker", "gunicorn worker"]
    assert len({pid for _, pid in rows}) == 4
    done = re.search(
        r"^requests: ([\d,]+) done \(list (\d+), retrieve (\d+), create (\d+), code (\d+), "
        r"approve (\d+)\), 0 failed",
        text,
        re.M,
    )
    # Each client finishes the cycle it began: at least one request of every kind.
    assert done and all(int(n) > 0 for n in done.groups()[1:]), text
    owed, received, distinct, succeeded = map(
        int,
        re.search(
            r"^deliveries: (\d+) owed, \d+ received by the end of the load, (\d+) in all "
            r"\((\d+) distinct webhook-ids\), (\d+) succeeded$",
            re.sub(r"(?<=\d),(?=\d)", "", text),
            re.M,
        ).groups(),
    )
    assert owed > 0 and owed == received == distinct == succeeded
    assert "PASS: each of the 4 processes grew less than 1000 % after the warm-up" in text
    # Every sampled process has rows in the file, several each.
    sampled = [line.split(",")[2] for line in samples.read_text().splitlines()[1:]]
    assert {pid for _, pid in rows} == set(sampled), sampled
    assert all(sampled.count(pid) >= 2 for _, pid in rows)
    # Cleaned up: events (with their deliveries) gone, the endpoint disabled, the key revoked.
    assert not Event.objects.exists()
    assert not WebhookDelivery.objects.exists()
    assert list(WebhookEndpoint.objects.values_list("status", flat=True)) == ["disabled"]
    assert not ApiKey.objects.filter(revoked_at__isnull=True).exists()
