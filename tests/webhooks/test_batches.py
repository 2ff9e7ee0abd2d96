"""Batched sending keeps the delivery guarantees (docs/webhooks.md, "Delivery, retries and
disabling"): a drain sends a claimed batch with the endpoint re-checked before every POST and
records a run of quick successes together (`webhooks.delivery.record_outcomes`). Changes made while
a POST of the batch is in flight are made from the receiver's thread (`Receiver.on_request`), so the
drain meets them at its next re-check; the worker is killed while it holds a POST open."""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from tests.factories import AccountFactory, ProjectFactory
from tests.waiting import until
from tests.webhooks.support import make_endpoint, owe_delivery
from webhooks import services
from webhooks.delivery import LEASE, Outcome, attempt, record_outcomes
from webhooks.drain import drain
from webhooks.lanes import FAST
from webhooks.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from webhooks.tasks import sweep_due_deliveries

OWED = 5
# The POST during which the endpoint changes (1 is the first).
CHANGED_DURING = 2


def _log(delivery_id: str) -> list[tuple[int, int | None, bool]]:
    return list(
        WebhookAttempt.objects.filter(delivery_id=delivery_id).values_list(
            "number", "response_status", "succeeded"
        )
    )


def _during_post(number: int, change) -> callable:
    """An `on_request` hook making `change()` (on a connection of its own) during that POST."""

    def hook(received: int) -> None:
        if received == number:
            try:
                change()
            finally:
                connection.close()

    return hook


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_an_endpoint_disabled_mid_batch_is_sent_nothing_more(receiver):
    endpoint = make_endpoint(AccountFactory(), url=receiver.url, events=["project.created"])
    owed = [owe_delivery(endpoint) for _ in range(OWED)]
    receiver.on_request = _during_post(
        CHANGED_DURING,
        lambda: services.endpoint_update(endpoint_id=endpoint.pk, changes={"status": "disabled"}),
    )

    result = drain(endpoint.pk, FAST)

    assert (result.sent, result.more) == (CHANGED_DURING, False)
    sent = [r.headers["webhook-id"] for r in receiver.requests]
    assert sent == [d.pk for d in owed[:CHANGED_DURING]]  # one batch, oldest first
    rows = {d.pk: d for d in WebhookDelivery.objects.filter(endpoint=endpoint)}
    for delivery_id in sent:
        # Disabling cancelled them before their answers were recorded (as for any attempt in
        # flight); the attempt is logged as what it was.
        assert (rows[delivery_id].status, rows[delivery_id].attempts) == ("cancelled", 1)
        assert rows[delivery_id].last_response_status == 200
        assert _log(delivery_id) == [(1, 200, True)]
    for delivery in owed[CHANGED_DURING:]:
        row = rows[delivery.pk]
        # Never sent. Its attempt was counted when the batch was claimed, and the disable
        # cancelled it under that claim, as it cancels any claimed row.
        assert (row.status, row.attempts, row.next_attempt_at) == ("cancelled", 1, None)
        assert _log(delivery.pk) == []


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_an_endpoint_unsubscribed_mid_batch_is_sent_nothing_more_of_that_type(receiver):
    endpoint = make_endpoint(AccountFactory(), url=receiver.url, events=["project.created"])
    owed = [owe_delivery(endpoint) for _ in range(OWED)]
    receiver.on_request = _during_post(
        CHANGED_DURING,
        lambda: services.endpoint_update(
            endpoint_id=endpoint.pk, changes={"events": ["invoice.paid"]}
        ),
    )

    result = drain(endpoint.pk, FAST)

    assert (result.sent, result.more) == (CHANGED_DURING, False)
    sent = [r.headers["webhook-id"] for r in receiver.requests]
    assert sent == [d.pk for d in owed[:CHANGED_DURING]]
    rows = {d.pk: d for d in WebhookDelivery.objects.filter(endpoint=endpoint)}
    for delivery_id in sent:
        assert (rows[delivery_id].status, rows[delivery_id].attempts) == ("succeeded", 1)
        assert _log(delivery_id) == [(1, 200, True)]
    for delivery in owed[CHANGED_DURING:]:
        row = rows[delivery.pk]
        assert (row.status, row.attempts, row.next_attempt_at) == ("cancelled", 0, None)
        assert _log(delivery.pk) == []
    assert WebhookEndpoint.objects.get(pk=endpoint.pk).status == "enabled"


@pytest.mark.django_db
def test_outcomes_recorded_together_end_as_if_recorded_one_by_one(account):
    endpoint = make_endpoint(account)
    failed, gone, landed_after = (owe_delivery(endpoint) for _ in range(3))
    WebhookDelivery.objects.filter(endpoint=endpoint).update(attempts=1)
    now = timezone.now()

    statuses = record_outcomes(
        endpoint.pk,
        [
            Outcome(failed.pk, now, 12, 500, ""),
            Outcome(gone.pk, now, 12, 410, ""),
            Outcome(landed_after.pk, now, 12, 200, ""),
        ],
    )

    # The 410 disabled the endpoint, which cancelled every pending delivery: the earlier one
    # awaiting its retry, and the later one whose answer landed after the cancel.
    assert statuses == {failed.pk: "cancelled", gone.pk: "cancelled", landed_after.pk: "cancelled"}
    rows = {d.pk: d for d in WebhookDelivery.objects.filter(endpoint=endpoint)}
    assert {(d.status, d.next_attempt_at) for d in rows.values()} == {("cancelled", None)}
    assert [rows[d.pk].last_response_status for d in (failed, gone, landed_after)] == [
        500,
        410,
        200,
    ]
    assert _log(failed.pk) == [(1, 500, False)]
    assert _log(gone.pk) == [(1, 410, False)]
    assert _log(landed_after.pk) == [(1, 200, True)]
    endpoint.refresh_from_db()
    assert (endpoint.status, endpoint.disabled_reason) == ("disabled", "gone")


@pytest.mark.django_db
def test_a_batch_of_attempts_that_got_no_response_is_recorded_whole(account):
    """Every column of the batch's one INSERT may be all nulls (no status code): the rows
    still land with their values (on PostgreSQL the values go as one typed array each)."""
    endpoint = make_endpoint(account)
    refused, timed_out = (owe_delivery(endpoint) for _ in range(2))
    WebhookDelivery.objects.filter(endpoint=endpoint).update(attempts=1)
    now = timezone.now()

    statuses = record_outcomes(
        endpoint.pk,
        [
            Outcome(refused.pk, now, 3, None, "ConnectError: connection refused"),
            Outcome(timed_out.pk, now, 10_000, None, "ReadTimeout: timed out"),
        ],
    )

    assert statuses == {refused.pk: "pending", timed_out.pk: "pending"}
    attempts = WebhookAttempt.objects.filter(delivery__endpoint=endpoint)
    assert sorted(
        attempts.values_list(
            "delivery_id",
            "number",
            "started_at",
            "duration_ms",
            "response_status",
            "error",
            "succeeded",
        )
    ) == sorted(
        [
            (refused.pk, 1, now, 3, None, "ConnectError: connection refused", False),
            (timed_out.pk, 1, now, 10_000, None, "ReadTimeout: timed out", False),
        ]
    )
    rows = WebhookDelivery.objects.filter(endpoint=endpoint)
    assert set(rows.values_list("status", "last_response_status")) == {("pending", None)}
    assert dict(rows.values_list("pk", "last_error")) == {
        refused.pk: "ConnectError: connection refused",
        timed_out.pk: "ReadTimeout: timed out",
    }


KILLED_DURING = 3
BURST = 10


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_batch_loses_nothing_and_resends_under_the_same_webhook_id(
    workers, receiver
):
    workers.start()
    holding, release = threading.Event(), threading.Event()

    def hold(number: int) -> None:
        if number == KILLED_DURING:
            holding.set()
            release.wait(30)

    receiver.on_request = hold
    account = AccountFactory()
    endpoint = make_endpoint(account, url=receiver.url, events=["project.created"])
    with transaction.atomic():  # one commit: one drain, which claims the burst as one batch
        for _ in range(BURST):
            ProjectFactory(account=account)
    assert holding.wait(30)
    workers.kill_main()
    release.set()

    owed = WebhookDelivery.objects.filter(endpoint=endpoint)
    # Two POSTs answered, one in flight, seven not yet sent: nothing was recorded, every row
    # is still owed, leased to the dead worker.
    assert set(owed.values_list("status", "attempts")) == {("pending", 1)}
    assert not WebhookAttempt.objects.filter(delivery__endpoint=endpoint).exists()
    before_restart = [r.headers["webhook-id"] for r in receiver.requests]
    assert len(before_restart) == KILLED_DURING

    owed.update(next_attempt_at=timezone.now())  # the 60 s lease runs out
    workers.add_main()
    sweep_due_deliveries()  # the beat's job, every 5 s in production
    until(
        lambda: set(owed.values_list("status", flat=True)) == {"succeeded"},
        timeout=60,
        what="every delivery of the burst succeeded",
    )

    ids = [r.headers["webhook-id"] for r in receiver.requests]
    assert set(ids) == set(owed.values_list("pk", flat=True))
    # At least once: the three POSTs the dead worker made went again, with the same
    # webhook-id (the receiver's key for dropping the duplicate).
    assert Counter(ids) == Counter({pk: 2 if pk in before_restart else 1 for pk in set(ids)})
    assert set(owed.values_list("attempts", flat=True)) == {2}
    assert {tuple(_log(pk)) for pk in set(ids)} == {((1, 200, True),)}


def _claimed_by_another_worker(delivery_id: str, lease_until) -> None:
    """What a second worker's claim does once the first one's lease has run out."""
    WebhookDelivery.objects.filter(pk=delivery_id).update(
        attempts=F("attempts") + 1, next_attempt_at=lease_until
    )


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("answer", "status", "moved"), [(500, "pending", False), (200, "succeeded", True)]
)
def test_an_outcome_recorded_after_another_worker_claimed_the_delivery(
    receiver, answer, status, moved
):
    """A worker whose attempt outlived its lease records it after another worker has claimed
    the delivery: the attempt is logged; a failure leaves the delivery to the worker that
    holds it now (its lease, its count and its last answer stand, no retry time cuts it
    short, the endpoint's failure clock does not start), a success still marks it
    succeeded."""
    receiver.statuses = [answer]
    endpoint = make_endpoint(AccountFactory(), url=receiver.url, events=["project.created"])
    delivery = owe_delivery(endpoint)
    other_lease = timezone.now() + 2 * LEASE
    receiver.on_request = _during_post(
        1, lambda: _claimed_by_another_worker(delivery.pk, other_lease)
    )

    assert attempt(delivery.pk) == status

    row = WebhookDelivery.objects.get(pk=delivery.pk)
    assert _log(delivery.pk) == [(1, answer, answer == 200)]
    # A late failure leaves even the delivery's last answer to the worker that holds it.
    assert (row.status, row.attempts) == (status, 2)
    assert row.last_response_status == (answer if moved else None)
    assert row.next_attempt_at == (None if moved else other_lease)
    assert WebhookEndpoint.objects.get(pk=endpoint.pk).failing_since is None
