"""Draining one endpoint (docs/operations/workers.md): `webhooks.drain.drain` — the body of the
`drain_endpoint` task — called directly against real loopback receivers, and the sweep's
routing checked in real Redis queues. The real-worker path is in test_isolation.py and
test_worker_delivery.py."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.test import override_settings
from django.utils import timezone

from config.celery import app as celery_app
from tests.factories import AccountFactory
from tests.webhooks.receiver import Receiver
from tests.webhooks.support import make_endpoint, owe_delivery
from webhooks import delivery as delivery_module
from webhooks import drain as drain_module
from webhooks.drain import BATCH, _claim_batch, drain, endpoint_slot
from webhooks.lanes import FAST, SLOW
from webhooks.models import Event, WebhookDelivery, WebhookEndpoint
from webhooks.tasks import sweep_due_deliveries

pytestmark = pytest.mark.django_db


@pytest.fixture
def endpoint(receiver):
    return make_endpoint(AccountFactory(), url=receiver.url, events=["project.created"])


def _owe(endpoint, count: int) -> list[WebhookDelivery]:
    return [owe_delivery(endpoint) for _ in range(count)]


def test_a_drain_sends_every_due_delivery_of_its_endpoint_and_nothing_else(endpoint, receiver):
    other = Receiver()
    try:
        neighbour = make_endpoint(endpoint.account, url=other.url, events=["project.created"])
        owed = _owe(endpoint, 3)  # each project is owed to the neighbour too
        later = owe_delivery(endpoint)
        WebhookDelivery.objects.filter(pk=later.pk).update(
            next_attempt_at=timezone.now() + timedelta(minutes=5)
        )
        result = drain(endpoint.pk, FAST)
        assert (result.sent, result.more, result.slot) == (3, False, True)
        assert sorted(r.headers["webhook-id"] for r in receiver.requests) == sorted(
            d.pk for d in owed
        )
        assert other.requests == []
        assert set(
            WebhookDelivery.objects.filter(endpoint=endpoint).values_list("status", "attempts")
        ) == {("succeeded", 1), ("pending", 0)}
        assert set(
            WebhookDelivery.objects.filter(endpoint=neighbour).values_list("status", "attempts")
        ) == {("pending", 0)}
    finally:
        other.close()


class _SlotHolder(threading.Thread):
    """Holds one of the endpoint's slots on a connection of its own until released."""

    def __init__(self, endpoint_id: str):
        super().__init__(daemon=True)
        self.endpoint_id = endpoint_id
        self.slot: int | None = None
        self.held = threading.Event()
        self.release = threading.Event()

    def run(self):
        try:
            with endpoint_slot(self.endpoint_id) as slot:
                self.slot = slot
                self.held.set()
                self.release.wait(30)
        finally:
            connection.close()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_drain_finding_both_slots_taken_sends_nothing_and_one_slot_freed_lets_it_send(
    endpoint, receiver
):
    delivery = owe_delivery(endpoint)
    holders = [_SlotHolder(endpoint.pk), _SlotHolder(endpoint.pk)]
    for holder in holders:
        holder.start()
        assert holder.held.wait(10)
    try:
        assert sorted(h.slot for h in holders) == [0, 1]  # two slots (docs/operations/workers.md)
        result = drain(endpoint.pk, FAST)
        assert (result.sent, result.more, result.slot) == (0, False, False)
        assert receiver.requests == []
        assert WebhookDelivery.objects.get(pk=delivery.pk).attempts == 0
        holders[0].release.set()
        holders[0].join(10)
        assert drain(endpoint.pk, FAST).sent == 1
        assert [r.headers["webhook-id"] for r in receiver.requests] == [delivery.pk]
    finally:
        for holder in holders:
            holder.release.set()
            holder.join(10)


def test_an_endpoint_that_turns_slow_moves_to_the_slow_lane_and_gives_back_the_rest(
    endpoint, receiver, monkeypatch
):
    monkeypatch.setattr(delivery_module, "SLOW_AFTER_MS", 100)
    receiver.delay = 0.15
    first, *rest = _owe(endpoint, 3)
    result = drain(endpoint.pk, FAST)
    assert (result.sent, result.more, result.lane) == (1, True, SLOW)
    assert WebhookEndpoint.objects.get(pk=endpoint.pk).slow_since is not None
    assert WebhookDelivery.objects.get(pk=first.pk).status == "succeeded"
    for waiting in WebhookDelivery.objects.filter(pk__in=[d.pk for d in rest]):
        # Given back: due now, the attempt it did not make not counted.
        assert (waiting.status, waiting.attempts) == ("pending", 0)
        assert waiting.next_attempt_at <= timezone.now()
    assert drain(endpoint.pk, SLOW).sent == 2
    # One quick answer brings it back to the fast lane.
    receiver.delay = 0
    owe_delivery(endpoint)
    result = drain(endpoint.pk, SLOW)
    assert (result.sent, result.more, result.lane) == (1, True, FAST)
    assert WebhookEndpoint.objects.get(pk=endpoint.pk).slow_since is None
    assert len(receiver.requests) == 4


def test_a_failing_endpoint_goes_by_the_slow_lane(endpoint, receiver):
    receiver.statuses = [500]
    _failing, waiting = _owe(endpoint, 2)
    result = drain(endpoint.pk, FAST)
    assert (result.sent, result.more, result.lane) == (1, True, SLOW)
    assert WebhookDelivery.objects.get(pk=waiting.pk).attempts == 0
    assert drain(endpoint.pk, SLOW).sent == 1
    assert len(receiver.requests) == 2


def test_a_drain_rechecks_the_endpoint_and_cancels_what_a_disabled_one_was_owed(endpoint, receiver):
    owed = _owe(endpoint, 2)
    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(status="disabled")
    result = drain(endpoint.pk, FAST)
    assert (result.sent, result.more) == (0, False)
    assert set(
        WebhookDelivery.objects.filter(pk__in=[d.pk for d in owed]).values_list(
            "status", "attempts", "next_attempt_at"
        )
    ) == {("cancelled", 0, None)}
    assert receiver.requests == []


def _messages(queue: str) -> list[list]:
    """Take every message off a Redis queue; each one's task arguments."""
    taken = []
    with celery_app.connection_for_write() as conn:
        channel = conn.default_channel
        while (message := channel.basic_get(queue)) is not None:
            taken.append(message.decode()[0])
        channel.queue_delete(queue)
    return taken


@pytest.mark.redis
def test_the_sweep_queues_one_drain_per_endpoint_with_due_rows_on_its_lane(receiver):
    account = AccountFactory()
    healthy, failing, slow, idle = (
        make_endpoint(account, url=f"{receiver.url}/{n}", events=["project.created"])
        for n in range(4)
    )
    _owe(healthy, 1)  # owed to all four
    _owe(healthy, 1)
    WebhookEndpoint.objects.filter(pk=failing.pk).update(failing_since=timezone.now())
    WebhookEndpoint.objects.filter(pk=slow.pk).update(slow_since=timezone.now())
    WebhookDelivery.objects.filter(endpoint=idle).update(
        next_attempt_at=timezone.now() + timedelta(minutes=5)
    )
    fast_queue, slow_queue = "test-sweep.webhooks", "test-sweep.webhooks-slow"
    with override_settings(WEBHOOKS_QUEUE=fast_queue, WEBHOOKS_SLOW_QUEUE=slow_queue):
        with celery_app.connection_for_write() as conn:
            for queue in (fast_queue, slow_queue):
                conn.default_channel.queue_declare(queue)
                conn.default_channel.queue_purge(queue)
        # Counts drains queued: one per endpoint with due rows, not one per delivery.
        assert sweep_due_deliveries() == 3
    assert _messages(fast_queue) == [[healthy.pk, FAST]]
    assert sorted(_messages(slow_queue)) == sorted([[failing.pk, SLOW], [slow.pk, SLOW]])


def test_a_claim_leases_the_oldest_due_up_to_its_size_with_their_events(endpoint):
    owed = _owe(endpoint, 3)
    now = timezone.now()
    for delivery, minutes in zip(owed, (3, 1, 2), strict=True):
        WebhookDelivery.objects.filter(pk=delivery.pk).update(
            next_attempt_at=now - timedelta(minutes=minutes)
        )
    batch, lease_until = _claim_batch(endpoint.pk, 2)
    oldest_due = [owed[0], owed[2]]
    assert [d.pk for d in batch] == [
        d.pk for d in sorted(oldest_due, key=lambda d: (d.created_at, d.pk))
    ]
    for claimed in batch:
        stored = Event.objects.get(pk=claimed.event_id)
        assert (claimed.event.pk, claimed.event.type, claimed.event.data) == (
            stored.pk,
            stored.type,
            stored.data,
        )
        assert isinstance(claimed.event.data, dict)
    rows = dict(
        WebhookDelivery.objects.filter(pk__in=[d.pk for d in owed]).values_list("pk", "attempts")
    )
    assert rows == {owed[0].pk: 1, owed[1].pk: 0, owed[2].pk: 1}
    assert set(
        WebhookDelivery.objects.filter(pk__in=[d.pk for d in oldest_due]).values_list(
            "next_attempt_at", flat=True
        )
    ) == {lease_until}


@pytest.mark.django_db(transaction=True)
def test_a_url_changed_during_a_drain_is_checked_again_before_the_next_post(receiver):
    endpoint = make_endpoint(AccountFactory(), url=receiver.url, events=["project.created"])
    owed = _owe(endpoint, 2)

    def change_url(number: int) -> None:
        """During the first POST, as another process would: a URL the check refuses."""
        if number == 1:
            try:
                WebhookEndpoint.objects.filter(pk=endpoint.pk).update(
                    url="http://203.0.113.7/hooks"
                )
            finally:
                connection.close()  # the receiver thread's own connection

    receiver.on_request = change_url
    drain(endpoint.pk, FAST)
    assert len(receiver.requests) == 1
    attempts = {
        d.pk: list(d.attempt_log.values_list("succeeded", "error"))
        for d in WebhookDelivery.objects.filter(pk__in=[d.pk for d in owed])
    }
    sent = receiver.requests[0].headers["webhook-id"]
    assert attempts.pop(sent) == [(True, "")]
    [[(succeeded, error)]] = attempts.values()
    assert not succeeded
    assert error.startswith("url_refused: Webhook URLs must use https://")


def test_a_full_first_batch_asks_once_for_another_slot_and_a_short_one_does_not(endpoint, receiver):
    """`on_backlog` (the task queues one more drain) is called once when the first claim comes
    back full — docs/operations/workers.md: a backlog gets both slots working — and not when
    everything due fits in one batch."""
    calls = []
    _owe(endpoint, BATCH[FAST] - 1)
    result = drain(endpoint.pk, FAST, on_backlog=lambda: calls.append(1))
    assert (result.sent, calls) == (BATCH[FAST] - 1, [])
    _owe(endpoint, 2 * BATCH[FAST] + 1)
    result = drain(endpoint.pk, FAST, on_backlog=lambda: calls.append(1))
    assert (result.sent, result.more, calls) == (2 * BATCH[FAST] + 1, False, [1])
    assert len({r.headers["webhook-id"] for r in receiver.requests}) == 3 * BATCH[FAST]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_re_read_follows_django_to_a_new_database_connection(endpoint, receiver, monkeypatch):
    """The endpoint is re-read on the cursor kept with Django's connection; when Django's
    connection is replaced mid-drain (closed, then opened again by the next statement), the
    re-read opens its cursor on the new one instead of failing on the old."""
    owed = _owe(endpoint, 3)
    send = drain_module.post_claimed

    def send_then_close(*args, **kwargs):
        outcome = send(*args, **kwargs)
        connection.close()
        return outcome

    monkeypatch.setattr(drain_module, "post_claimed", send_then_close)
    result = drain(endpoint.pk, FAST)
    assert result.sent == 3
    assert [r.headers["webhook-id"] for r in receiver.requests] == [d.pk for d in owed]


class _Clock:
    """The drain's monotonic clock, moved on by the test."""

    def __init__(self):
        self.now = 1000.0

    def monotonic(self):
        return self.now

    def taking(self, seconds: float, function):
        """`function`, after which this clock has moved on by `seconds`."""

        def timed(*args, **kwargs):
            result = function(*args, **kwargs)
            self.now += seconds
            return result

        return timed


def test_a_batch_stops_while_its_lease_still_covers_a_whole_attempt(
    endpoint, receiver, monkeypatch
):
    """Quick successes wait for the batch's end to be recorded, so a batch must stop sending
    while its lease (60 s) still covers the longest attempt (twice the 10 s timeout) and
    the margin, counted from before the claim: a claim that takes 3.8 s and answers of 1.9 s
    each (quick, so the endpoint stays in the fast lane) let 17 POSTs start (the 17th with
    60 - 3.8 - 16 × 1.9 = 25.8 s of lease left, the 18th would have 23.9 s), and the rest are
    given back uncounted."""
    clock = _Clock()
    monkeypatch.setattr(drain_module, "time", clock)
    monkeypatch.setattr(drain_module, "post_claimed", clock.taking(1.9, drain_module.post_claimed))
    monkeypatch.setattr(drain_module, "_claim_batch", clock.taking(3.8, drain_module._claim_batch))
    owed = _owe(endpoint, BATCH[FAST])
    assert drain_module.ATTEMPT_SECONDS + drain_module.LEASE_MARGIN_SECONDS == 25.0
    result = drain(endpoint.pk, FAST, budget=10_000)
    assert (result.sent, result.more, result.lane) == (17, True, FAST)
    assert [r.headers["webhook-id"] for r in receiver.requests] == [d.pk for d in owed[:17]]
    rows = dict(WebhookDelivery.objects.filter(endpoint=endpoint).values_list("pk", "status"))
    assert [rows[d.pk] for d in owed] == ["succeeded"] * 17 + ["pending"] * (BATCH[FAST] - 17)
    assert set(
        WebhookDelivery.objects.filter(endpoint=endpoint, status="pending").values_list(
            "attempts", flat=True
        )
    ) == {0}
