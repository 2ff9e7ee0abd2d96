"""Webhook URLs (SPEC §8, §10): `https://` only, loopback `http://` only with
WEBHOOKS_ALLOW_INSECURE_LOCALHOST, and never an address inside a private network (SSRF
guard) — checked at create, at PATCH and again at send time (test_delivery_rules.py).
Literal IP addresses keep these tests free of DNS."""

from __future__ import annotations

import pytest

from tests.conftest import error_of
from tests.webhooks.support import PUBLIC_URL, make_endpoint, webhook_state
from webhooks.models import WebhookEndpoint
from webhooks.urlguard import UrlRefused, check_url

PRIVATE = [
    "https://10.0.0.5/hooks",
    "https://172.16.3.4/hooks",
    "https://192.168.1.20:8443/hooks",
    "https://169.254.169.254/latest/meta-data/",  # cloud metadata (link-local)
    "https://100.100.100.200/latest/meta-data/",  # cloud metadata (shared address space)
    "https://[fd00:ec2::254]/",  # cloud metadata over IPv6 (unique local)
    "https://[fe80::1]/",
    "https://[::ffff:10.0.0.5]/",  # IPv4-mapped IPv6
    "https://0.0.0.0/",
    "https://224.0.0.1/",
]
LOOPBACK = ["https://127.0.0.1/hooks", "https://127.8.9.10/", "https://[::1]/"]
NOT_HTTPS = [
    "http://93.184.216.34/hooks",
    "ftp://93.184.216.34/hooks",
    "93.184.216.34/hooks",
    "https:///hooks",
    "https://user:pass@93.184.216.34/hooks",
]


@pytest.fixture
def production(settings):
    """Outside development: the insecure-localhost setting is off."""
    settings.WEBHOOKS_ALLOW_INSECURE_LOCALHOST = False


def _refused(response, before) -> dict:
    assert response.status_code == 400, response.content
    error = error_of(response)
    assert (error["type"], error["code"], error["param"]) == (
        "invalid_request",
        "url_invalid",
        "url",
    )
    assert webhook_state() == before
    return error


@pytest.mark.parametrize("url", NOT_HTTPS + PRIVATE + LOOPBACK)
def test_create_refuses_urls_that_are_not_public_https(api, production, url):
    before = webhook_state()
    _refused(api.post("/v1/webhooks", {"url": url, "events": ["*"]}), before)


@pytest.mark.parametrize("url", NOT_HTTPS + PRIVATE + LOOPBACK)
def test_patch_refuses_urls_that_are_not_public_https(api, production, url):
    endpoint = make_endpoint(api.key.account)
    before = webhook_state()
    _refused(api.patch(f"/v1/webhooks/{endpoint.pk}", {"url": url}), before)
    assert WebhookEndpoint.objects.get(pk=endpoint.pk).url == PUBLIC_URL


def test_a_public_https_url_is_accepted(api, production):
    created = api.post("/v1/webhooks", {"url": PUBLIC_URL, "events": ["*"]})
    assert created.status_code == 201
    assert created.json()["url"] == PUBLIC_URL


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:8765/hooks", "http://localhost:8765/hooks", "http://[::1]:8765/"]
)
def test_loopback_http_only_with_the_development_setting(api, settings, url):
    settings.WEBHOOKS_ALLOW_INSECURE_LOCALHOST = False
    before = webhook_state()
    error = _refused(api.post("/v1/webhooks", {"url": url, "events": ["*"]}), before)
    assert "https://" in error["message"]
    settings.WEBHOOKS_ALLOW_INSECURE_LOCALHOST = True
    created = api.post("/v1/webhooks", {"url": url, "events": ["*"]})
    assert (created.status_code, created.json()["url"]) == (201, url)


@pytest.mark.parametrize("url", ["http://10.0.0.5/hooks", "https://10.0.0.5/hooks"])
def test_the_development_setting_still_refuses_private_addresses(api, settings, url):
    settings.WEBHOOKS_ALLOW_INSECURE_LOCALHOST = True
    before = webhook_state()
    _refused(api.post("/v1/webhooks", {"url": url, "events": ["*"]}), before)


@pytest.mark.parametrize("url", PRIVATE + LOOPBACK)
def test_the_guard_names_the_address_it_refused(production, url):
    with pytest.raises(UrlRefused, match="inside a private network"):
        check_url(url)
