"""Delivery rules (docs/events.md), one attempt at a time: `webhooks.delivery.attempt` — the
body of the `deliver` task — called directly against a real loopback receiver. The real-worker path
is in test_worker_delivery.py."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from audit.models import AuditEntry
from tests.factories import AccountFactory
from tests.waiting import until
from tests.webhooks.receiver import Receiver
from tests.webhooks.resolvers import PUBLIC_V4
from tests.webhooks.support import make_due, make_endpoint, owe_delivery
from webhooks import delivery as delivery_module
from webhooks.delivery import attempt
from webhooks.models import WebhookDelivery, WebhookEndpoint
from webhooks.tasks import deliver

pytestmark = pytest.mark.django_db

# docs/events.md: retries after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; the 8th failure is
# final.
SCHEDULE = [
    timedelta(seconds=5),
    timedelta(minutes=5),
    timedelta(minutes=30),
    timedelta(hours=2),
    timedelta(hours=5),
    timedelta(hours=10),
    timedelta(hours=10),
]


@pytest.fixture
def endpoint(receiver):
    return make_endpoint(AccountFactory(), url=receiver.url, events=["project.created"])


def _statuses(delivery):
    return [(a.number, a.response_status, a.succeeded) for a in delivery.attempt_log.all()]


def test_a_2xx_succeeds_on_the_first_attempt(endpoint, receiver):
    receiver.statuses = [204]
    delivery = owe_delivery(endpoint)
    assert attempt(delivery.pk) == "succeeded"
    delivery.refresh_from_db()
    assert (delivery.attempts, delivery.last_response_status) == (1, 204)
    assert delivery.next_attempt_at is None
    assert _statuses(delivery) == [(1, 204, True)]
    assert [r.path for r in receiver.requests] == ["/hooks"]
    # Done: a second run of the task (a duplicate queue entry) sends nothing.
    make_due(delivery)
    assert attempt(delivery.pk) is None
    assert len(receiver.requests) == 1


def test_the_deliver_task_makes_one_attempt(endpoint, receiver):
    delivery = owe_delivery(endpoint)
    assert deliver(delivery.pk) == "succeeded"
    assert deliver(delivery.pk) is None  # safe to run twice
    assert len(receiver.requests) == 1


def test_retries_follow_the_schedule_and_the_eighth_failure_is_final(endpoint, receiver):
    receiver.statuses = [500]
    delivery = owe_delivery(endpoint)
    for number, wait in enumerate(SCHEDULE, start=1):
        before = timezone.now()
        assert attempt(delivery.pk) == "pending"
        after = timezone.now()
        delivery.refresh_from_db()
        assert delivery.attempts == number
        assert before + wait <= delivery.next_attempt_at <= after + wait, number
        # Not due yet: the task runs again (a duplicate, or the sweep) and sends nothing.
        assert attempt(delivery.pk) is None
        make_due(delivery)
    assert attempt(delivery.pk) == "failed"
    delivery.refresh_from_db()
    assert (delivery.attempts, delivery.next_attempt_at) == (8, None)
    assert _statuses(delivery) == [(n, 500, False) for n in range(1, 9)]
    assert len(receiver.requests) == 8
    assert {r.headers["webhook-id"] for r in receiver.requests} == {delivery.pk}
    endpoint.refresh_from_db()
    assert endpoint.status == "enabled"  # 27 h of retries is not three days of failures


def test_every_attempt_records_status_duration_and_error(endpoint, receiver):
    receiver.statuses = [503, 200]
    delivery = owe_delivery(endpoint)
    attempt(delivery.pk)
    make_due(delivery)
    attempt(delivery.pk)
    first, second = delivery.attempt_log.all()
    assert [(a.number, a.response_status, a.error, a.succeeded) for a in (first, second)] == [
        (1, 503, "", False),
        (2, 200, "", True),
    ]
    assert first.duration_ms >= 0 and first.started_at <= second.started_at


def test_a_410_disables_the_endpoint_at_once_and_cancels_what_it_was_owed(endpoint, receiver):
    receiver.statuses = [410]
    gone, waiting = owe_delivery(endpoint), owe_delivery(endpoint)
    assert attempt(gone.pk) == "cancelled"
    endpoint.refresh_from_db()
    assert (endpoint.status, endpoint.disabled_reason) == ("disabled", "gone")
    gone.refresh_from_db()
    assert (gone.last_response_status, gone.next_attempt_at) == (410, None)
    assert WebhookDelivery.objects.get(pk=waiting.pk).status == "cancelled"
    entry = AuditEntry.objects.filter(target_id=endpoint.pk, action="disabled").get()
    assert (entry.actor_type, entry.note) == ("system", "Disabled: gone.")
    assert entry.changes["status"] == {"before": "enabled", "after": "disabled"}
    assert attempt(waiting.pk) is None
    assert len(receiver.requests) == 1


def test_three_days_of_nothing_but_failures_disables_the_endpoint(endpoint, receiver):
    receiver.statuses = [500]
    failing, waiting = owe_delivery(endpoint), owe_delivery(endpoint)
    since = timezone.now() - timedelta(days=3, minutes=1)
    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(failing_since=since)
    assert attempt(failing.pk) == "failed"
    endpoint.refresh_from_db()
    assert (endpoint.status, endpoint.disabled_reason) == ("disabled", "failing")
    assert WebhookDelivery.objects.get(pk=waiting.pk).status == "cancelled"
    entry = AuditEntry.objects.filter(target_id=endpoint.pk, action="disabled").get()
    assert entry.note == "Disabled: failing."


def test_failures_for_less_than_three_days_keep_the_endpoint_enabled(endpoint, receiver):
    receiver.statuses = [500]
    delivery = owe_delivery(endpoint)
    since = timezone.now() - timedelta(days=3) + timedelta(minutes=5)
    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(failing_since=since)
    assert attempt(delivery.pk) == "pending"
    endpoint.refresh_from_db()
    assert (endpoint.status, endpoint.failing_since) == ("enabled", since)


def test_a_failure_starts_the_failure_clock_and_a_success_clears_it(endpoint, receiver):
    receiver.statuses = [500, 200]
    first, second = owe_delivery(endpoint), owe_delivery(endpoint)
    before = timezone.now()
    attempt(first.pk)
    endpoint.refresh_from_db()
    assert before <= endpoint.failing_since <= timezone.now()
    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(
        failing_since=timezone.now() - timedelta(days=2)
    )
    assert attempt(second.pk) == "succeeded"
    endpoint.refresh_from_db()
    assert endpoint.failing_since is None and endpoint.status == "enabled"


def test_redirects_are_not_followed_and_count_as_failures(endpoint, receiver):
    receiver.statuses = [302]
    receiver.location = receiver.base + "/elsewhere"
    delivery = owe_delivery(endpoint)
    assert attempt(delivery.pk) == "pending"
    delivery.refresh_from_db()
    assert (delivery.attempts, delivery.last_response_status) == (1, 302)
    assert [r.path for r in receiver.requests] == ["/hooks"]


def test_a_receiver_slower_than_the_timeout_is_a_failed_attempt(endpoint, receiver, monkeypatch):
    monkeypatch.setattr(delivery_module, "TIMEOUT_SECONDS", 0.2)
    receiver.delay = 1.0
    delivery = owe_delivery(endpoint)
    assert attempt(delivery.pk) == "pending"
    [logged] = delivery.attempt_log.all()
    assert logged.response_status is None and not logged.succeeded
    assert logged.error.startswith("ReadTimeout")
    assert logged.duration_ms < 1000  # it gave up, it did not wait for the answer
    delivery.refresh_from_db()
    assert delivery.last_error == logged.error and delivery.last_response_status is None


@pytest.mark.parametrize(
    "change", [{"status": "disabled"}, {"deleted_at": "now"}], ids=["disabled", "deleted"]
)
def test_the_worker_rechecks_the_endpoint_right_before_sending(endpoint, receiver, change):
    delivery = owe_delivery(endpoint)
    # Changed behind the service's back (as by a concurrent request after the task was
    # queued): the delivery is still pending, and the worker must notice.
    values = {k: timezone.now() if v == "now" else v for k, v in change.items()}
    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(**values)
    assert attempt(delivery.pk) is None
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.next_attempt_at) == ("cancelled", 0, None)
    assert not delivery.attempt_log.exists()
    assert receiver.requests == []


@pytest.mark.parametrize(
    "url",
    ["https://10.0.0.5/hooks", "https://169.254.169.254/latest/meta-data", "https://[fd00::1]/"],
)
def test_an_address_that_became_private_is_refused_at_send_time(endpoint, receiver, url):
    delivery = owe_delivery(endpoint)
    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(url=url)
    assert attempt(delivery.pk) == "pending"
    [logged] = delivery.attempt_log.all()
    assert logged.error.startswith("url_refused: ")
    assert logged.response_status is None and not logged.succeeded
    assert receiver.requests == []


def test_loopback_http_is_refused_at_send_time_outside_development(endpoint, receiver, settings):
    delivery = owe_delivery(endpoint)
    settings.WEBHOOKS_ALLOW_INSECURE_LOCALHOST = False
    assert attempt(delivery.pk) == "pending"
    assert delivery.attempt_log.get().error.startswith("url_refused: ")
    assert receiver.requests == []


def test_an_ipv6_literal_url_is_sent_with_its_host_in_brackets():
    receiver = Receiver(host="::1")
    try:
        endpoint = make_endpoint(AccountFactory(), url=receiver.url)
        delivery = owe_delivery(endpoint)
        assert attempt(delivery.pk) == "succeeded"
        [received] = receiver.requests
        port = receiver.server.server_address[1]
        assert received.headers["host"] == f"[::1]:{port}"
        assert received.headers["webhook-id"] == delivery.pk
    finally:
        receiver.close()


def test_any_2xx_succeeds_whatever_its_body_claims_to_be():
    """The answer's body is never read for anything: a 2xx whose body is not what its
    Content-Encoding says is still a success (an HTTP client that decodes bodies failed it)."""
    receiver = Receiver(headers={"Content-Encoding": "gzip"})
    try:
        delivery = owe_delivery(make_endpoint(AccountFactory(), url=receiver.url))
        assert attempt(delivery.pk) == "succeeded"
        assert delivery.attempt_log.get().response_status == 200
    finally:
        receiver.close()


def test_a_large_answer_is_not_read_to_its_end(endpoint, receiver):
    """What a receiver answers is never used: 8 MiB of it are not read (the connection is
    dropped instead), and the 2xx counts."""
    receiver.body = b"x" * (8 * 1024 * 1024)
    delivery = owe_delivery(endpoint)
    assert attempt(delivery.pk) == "succeeded"
    assert delivery.attempt_log.get().response_status == 200
    until(lambda: receiver.cut_off == 1, timeout=10, what="the receiver's write cut off")


def test_an_answer_that_drips_is_left_when_the_attempts_time_is_up(endpoint, receiver, monkeypatch):
    """A 2xx whose body arrives slower than the timeout ends the attempt on time, a success:
    a receiver cannot hold a worker by dribbling its answer."""
    monkeypatch.setattr(delivery_module, "TIMEOUT_SECONDS", 0.3)
    receiver.body = b"x" * (40 * 1024)
    receiver.drip = 0.05  # 40 pieces: 2 s in all
    delivery = owe_delivery(endpoint)
    assert attempt(delivery.pk) == "succeeded"
    logged = delivery.attempt_log.get()
    assert logged.response_status == 200
    assert logged.duration_ms < 2 * 300 + 200  # within about twice the timeout, not 2 s


def test_an_answer_whose_head_trickles_in_ends_the_attempt_on_time(endpoint, receiver, monkeypatch):
    """A receiver that sends its status line and headers a byte at a time, each byte well
    within the timeout, still cannot hold the attempt (and its worker thread) past twice the
    timeout: it is a failed attempt, a timeout, not a success 2 s later."""
    monkeypatch.setattr(delivery_module, "TIMEOUT_SECONDS", 0.3)
    receiver.head_drip = 0.05  # about 40 bytes: 2 s in all
    delivery = owe_delivery(endpoint)
    assert attempt(delivery.pk) == "pending"  # failed, a retry scheduled
    logged = delivery.attempt_log.get()
    assert logged.response_status is None
    assert logged.error.startswith("ReadTimeout"), logged.error
    assert logged.duration_ms < 2 * 300 + 200, logged.duration_ms


def test_a_lookup_that_never_answers_ends_the_attempt_on_time(dns, monkeypatch):
    """The lookup of the host's addresses shares the connect phase's timeout: a DNS server
    that stops answering after the endpoint was saved makes the attempt a connect timeout
    within the attempt's bound, not a worker thread held as long as the resolver retries."""
    monkeypatch.setattr(delivery_module, "TIMEOUT_SECONDS", 0.3)
    dns.answer("hooks.example.com", [PUBLIC_V4])
    endpoint = make_endpoint(
        AccountFactory(), url="https://hooks.example.com/hooks", events=["project.created"]
    )
    dns.stall("hooks.example.com")
    delivery = owe_delivery(endpoint)
    assert attempt(delivery.pk) == "pending"  # failed, a retry scheduled
    logged = delivery.attempt_log.get()
    assert logged.response_status is None
    assert logged.error == "ConnectTimeout: Timed out looking up the host.", logged.error
    assert 300 <= logged.duration_ms < 2 * 300 + 200, logged.duration_ms
    assert dns.lookups == ["hooks.example.com", "hooks.example.com"]
