"""A slow or dead endpoint must not hold up another account's webhooks
(docs/operations/workers.md): real Celery worker processes started as production runs them, a
real receiver that answers after 9 s, a socket that never answers, and a fast receiver whose
delivery must arrive within 5 s of its change committing."""

from __future__ import annotations

import json
import time

import pytest

from tests.factories import AccountFactory, ProjectFactory
from tests.waiting import until
from tests.webhooks.receiver import Receiver, Silent
from tests.webhooks.support import make_endpoint
from webhooks.models import WebhookDelivery

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

SLOW_ANSWER_SECONDS = 9.0
QUEUED_EACH = 20
FAST_WITHIN_SECONDS = 5.0
# docs/operations/workers.md: one endpoint has at most two attempts in flight.
SLOTS_PER_ENDPOINT = 2
# Bounded, so that the test fails fast where the fast delivery waits behind the slow ones.
WAIT_AT_MOST = 15.0


@pytest.fixture
def slow():
    server = Receiver(delay=SLOW_ANSWER_SECONDS)
    yield server
    server.close()


@pytest.fixture
def dead():
    server = Silent()
    yield server
    server.close()


def _fast_latency(fast: Receiver, account) -> float:
    """Seconds from a change of `account` (committed on return) to its delivery arriving."""
    already = len(fast.requests)
    started = time.monotonic()
    project = ProjectFactory(account=account)  # autocommit: committed, drains queued
    requests = fast.wait_for(already + 1, timeout=WAIT_AT_MOST)
    latency = time.monotonic() - started
    assert json.loads(requests[already].body)["data"]["object"]["id"] == project.pk
    return latency


def test_a_slow_and_a_dead_endpoint_do_not_hold_up_another_accounts_delivery(
    workers, receiver, slow, dead
):
    workers.start()
    slow_account, dead_account, fast_account = AccountFactory(), AccountFactory(), AccountFactory()
    make_endpoint(slow_account, url=slow.url, events=["project.created"])
    dead_endpoint = make_endpoint(dead_account, url=dead.url, events=["project.created"])
    make_endpoint(fast_account, url=receiver.url, events=["project.created"])
    for _ in range(QUEUED_EACH):
        ProjectFactory(account=slow_account)
        ProjectFactory(account=dead_account)
    # Both bursts are being sent: the slow receiver holds requests, the dead one a claim.
    slow.wait_for(1, timeout=WAIT_AT_MOST)
    until(
        lambda: WebhookDelivery.objects.filter(endpoint=dead_endpoint, attempts__gte=1).exists(),
        timeout=WAIT_AT_MOST,
        what="a first attempt at the dead endpoint",
    )

    first = _fast_latency(receiver, fast_account)

    # Later, once the slow endpoint's first answers came back and its next ones are under way
    # (it now goes by the slow lane), and the dead one has timed out at least once.
    slow.wait_for(SLOTS_PER_ENDPOINT + 1, timeout=2 * SLOW_ANSWER_SECONDS + 5)
    until(
        lambda: dead_endpoint.deliveries.filter(attempt_log__isnull=False).exists(),
        timeout=WAIT_AT_MOST,
        what="the dead endpoint's first timed-out attempt",
    )
    second = _fast_latency(receiver, fast_account)

    print(f"\nfast endpoint beside a 9 s one and a dead one: {first:.3f} s, then {second:.3f} s")
    assert first < FAST_WITHIN_SECONDS
    assert second < FAST_WITHIN_SECONDS
    # One endpoint never had more than its slots' worth of attempts in flight.
    assert slow.max_in_flight <= SLOTS_PER_ENDPOINT
    assert len(slow.requests) < QUEUED_EACH  # the slow burst was still being sent
