"""DNS rebinding (docs/webhooks.md, "Managing endpoints"): a webhook is sent only to an address the
SSRF guard checked, looked up once per connection, with TLS SNI, certificate verification and the
`Host` header still for the URL's host name. Real HTTPS receivers on loopback addresses
(tests/webhooks/tls.py); host names resolve through the WEBHOOKS_RESOLVER seam from a script
(tests/webhooks/resolvers.py), so the production transport and guard are what run."""

from __future__ import annotations

import pytest

from tests.webhooks.resolvers import PUBLIC_V4
from tests.webhooks.support import owe_delivery
from tests.webhooks.tls import TlsReceiver, free_port_on, make_certificate
from webhooks.delivery import attempt
from webhooks.models import WebhookEndpoint

pytestmark = pytest.mark.django_db

NAME = "hooks.localhost"  # loopback by RFC 6761: allowed to loopback only in development


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    directory = tmp_path_factory.mktemp("certs")
    return {name: make_certificate(directory, name) for name in (NAME, "other.localhost")}


@pytest.fixture
def two_receivers(certs, settings):
    """The same port on 127.0.0.2 (the address the resolver answers first) and on 127.0.0.1
    (the address answered later, which must never be reached); the client trusts the
    certificate through the WEBHOOKS_CA_BUNDLE setting."""
    settings.WEBHOOKS_CA_BUNDLE = str(certs[NAME][0])
    port = free_port_on("127.0.0.2", "127.0.0.1")
    first = TlsReceiver("127.0.0.2", port, *certs[NAME])
    second = TlsReceiver("127.0.0.1", port, *certs[NAME])
    yield first, second
    first.close()
    second.close()


def _endpoint(api, url: str) -> WebhookEndpoint:
    created = api.post("/v1/webhooks", {"url": url, "events": ["project.created"]})
    assert created.status_code == 201, created.content
    return WebhookEndpoint.objects.get(pk=created.json()["id"])


def test_the_connection_goes_to_the_checked_address_with_sni_and_host_of_the_name(
    api, dns, two_receivers
):
    first, second = two_receivers
    dns.answer(NAME, ["127.0.0.2"])
    endpoint = _endpoint(api, f"https://{NAME}:{first.port}/hooks")
    # From now on the first lookup answers 127.0.0.2, every later one 127.0.0.1.
    dns.answer(NAME, ["127.0.0.2"], ["127.0.0.1"])
    dns.lookups.clear()
    delivery = owe_delivery(endpoint)
    assert attempt(delivery.pk) == "succeeded", delivery.attempt_log.last().error
    [seen] = first.seen
    assert (seen.server_name, seen.host, seen.path) == (NAME, f"{NAME}:{first.port}", "/hooks")
    assert second.seen == []
    assert dns.lookups == [NAME]  # one lookup, the one the connection used


def test_every_new_connection_is_checked_again(api, dns, two_receivers):
    first, second = two_receivers
    # The receiver answers HTTP/1.0 and closes: the second attempt opens a new connection.
    dns.answer(NAME, ["127.0.0.2"])
    endpoint = _endpoint(api, f"https://{NAME}:{first.port}/hooks")
    dns.answer(NAME, ["127.0.0.2"], ["10.0.0.5"])
    dns.lookups.clear()
    assert attempt(owe_delivery(endpoint).pk) == "succeeded"
    delivery = owe_delivery(endpoint)
    assert attempt(delivery.pk) == "pending"
    delivery.refresh_from_db()
    assert delivery.last_error == (
        f"url_refused: The host '{NAME}' resolves to an address inside a private network "
        "(not publicly routable)."
    )
    assert len(first.seen) == 1 and second.seen == []
    assert dns.lookups == [NAME, NAME]


def test_a_kept_alive_connection_stays_on_the_checked_address(api, dns, certs, settings):
    """The shared client keeps connections per endpoint alive: the second attempt reuses the
    connection opened to the checked address, and never looks the name up again."""
    settings.WEBHOOKS_CA_BUNDLE = str(certs[NAME][0])
    receiver = TlsReceiver("127.0.0.2", 0, *certs[NAME], keep_alive=True)
    try:
        dns.answer(NAME, ["127.0.0.2"])
        endpoint = _endpoint(api, f"https://{NAME}:{receiver.port}/hooks")
        dns.answer(NAME, ["127.0.0.2"], ["10.0.0.5"])
        dns.lookups.clear()
        assert attempt(owe_delivery(endpoint).pk) == "succeeded"
        assert attempt(owe_delivery(endpoint).pk) == "succeeded"
    finally:
        receiver.close()
    assert (len(receiver.seen), receiver.connections, dns.lookups) == (2, 1, [NAME])


def test_a_name_rebound_to_loopback_after_the_check_is_never_sent_to(api, settings, dns, certs):
    """Outside development: public when the endpoint was saved, loopback when sending."""
    settings.WEBHOOKS_ALLOW_INSECURE_LOCALHOST = False
    settings.WEBHOOKS_CA_BUNDLE = str(certs[NAME][0])
    target = TlsReceiver("127.0.0.1", 0, *certs[NAME])
    try:
        dns.answer("hooks.example.com", [PUBLIC_V4], ["127.0.0.1"])
        endpoint = _endpoint(api, f"https://hooks.example.com:{target.port}/hooks")
        delivery = owe_delivery(endpoint)
        assert attempt(delivery.pk) == "pending"
    finally:
        target.close()
    assert target.seen == []
    delivery.refresh_from_db()
    assert delivery.last_error.startswith("url_refused: The host 'hooks.example.com' resolves")
    assert "127.0.0.1" not in delivery.last_error
    listed = api.get(f"/v1/webhooks/{endpoint.pk}/deliveries").json()["data"][0]
    assert "127.0.0.1" not in listed["last_error"]
    assert "127.0.0.1" not in listed["attempt_log"][0]["error"]
    assert dns.lookups == ["hooks.example.com", "hooks.example.com"]


def test_one_private_answer_among_public_ones_refuses_the_send(api, settings, dns):
    settings.WEBHOOKS_ALLOW_INSECURE_LOCALHOST = False
    dns.answer("hooks.example.com", [PUBLIC_V4], [PUBLIC_V4, "127.0.0.1"])
    endpoint = _endpoint(api, "https://hooks.example.com/hooks")
    delivery = owe_delivery(endpoint)
    assert attempt(delivery.pk) == "pending"
    delivery.refresh_from_db()
    assert delivery.last_error.startswith("url_refused: ")
    assert "127.0.0.1" not in delivery.last_error and PUBLIC_V4 not in delivery.last_error


def test_the_certificate_is_verified_for_the_host_name(api, dns, certs, settings):
    """A receiver whose certificate is for another name gets no request, though its address
    is the checked one: verification is against the URL's host name, not the address."""
    settings.WEBHOOKS_CA_BUNDLE = str(certs["other.localhost"][0])
    impostor = TlsReceiver("127.0.0.2", 0, *certs["other.localhost"])
    try:
        dns.answer(NAME, ["127.0.0.2"])
        endpoint = _endpoint(api, f"https://{NAME}:{impostor.port}/hooks")
        delivery = owe_delivery(endpoint)
        assert attempt(delivery.pk) == "pending"
    finally:
        impostor.close()
    assert impostor.seen == []
    delivery.refresh_from_db()
    assert delivery.last_error.startswith("ConnectError: ")
    assert "certificate verify failed" in delivery.last_error
    assert "127.0.0.2" not in delivery.last_error


def test_by_default_only_public_certificate_authorities_are_trusted(api, dns, certs):
    """WEBHOOKS_CA_BUNDLE empty: certifi's CAs, so a self-signed receiver gets nothing."""
    receiver = TlsReceiver("127.0.0.2", 0, *certs[NAME])
    try:
        dns.answer(NAME, ["127.0.0.2"])
        endpoint = _endpoint(api, f"https://{NAME}:{receiver.port}/hooks")
        delivery = owe_delivery(endpoint)
        assert attempt(delivery.pk) == "pending"
    finally:
        receiver.close()
    assert receiver.seen == []
    delivery.refresh_from_db()
    assert "certificate verify failed: self-signed certificate" in delivery.last_error
