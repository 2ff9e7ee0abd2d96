"""Webhook URLs (docs/resources.md, §10): `https://` only, loopback `http://` only with
WEBHOOKS_ALLOW_INSECURE_LOCALHOST, and never an address inside a private network (SSRF
guard) — checked at create, at PATCH and again at send time (test_delivery_rules.py).
Hosts are literal addresses or names the tests' own resolver answers (tests/webhooks/
resolvers.py): no DNS query, and the public address is one nobody serves from."""

from __future__ import annotations

import threading
import time

import pytest

from tests.conftest import error_of
from tests.webhooks.resolvers import PUBLIC_V4, PUBLIC_V6, offline
from tests.webhooks.support import PUBLIC_URL, make_endpoint, webhook_state
from webhooks import urlguard
from webhooks.models import WebhookEndpoint
from webhooks.urlguard import MAX_URL_LENGTH, UrlRefused, check_url, system_resolver

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
# A public host (its answer would be taken) in a URL refused for its scheme or its shape.
NOT_HTTPS = [
    "http://hooks.example.com/hooks",
    "ftp://hooks.example.com/hooks",
    "hooks.example.com/hooks",
    "https:///hooks",
    "https://user:pass@hooks.example.com/hooks",
]


@pytest.fixture
def production(settings):
    """Outside development: the insecure-localhost setting is off."""
    settings.WEBHOOKS_ALLOW_INSECURE_LOCALHOST = False


def _refused(response, before, code: str = "url_invalid") -> dict:
    assert response.status_code == 400, response.content
    error = error_of(response)
    assert (error["type"], error["code"], error["param"]) == ("invalid_request", code, "url")
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


# Not globally routable, in every form a URL can carry: each is refused by the guard and by the
# API. The getaddrinfo forms (`2130706433`, `0x7f.1`, `127.1`, …) go through the tests'
# resolver, which reads them with the system resolver's getaddrinfo, numeric only (and the
# production resolver reads them alike: test_the_system_resolver_reads_numeric_forms_alike).
NOT_GLOBAL = [
    ("https://0.0.0.0/", "unspecified"),
    ("https://0.1.2.3/", "this network 0/8"),
    ("https://10.0.0.5/", "private 10/8"),
    ("https://172.31.255.255/", "private 172.16/12"),
    ("https://192.168.1.20:8443/", "private 192.168/16"),
    ("https://127.0.0.1/", "loopback"),
    ("https://127.8.9.10/", "loopback 127/8"),
    ("https://169.254.169.254/latest/meta-data/", "link-local, cloud metadata"),
    ("https://100.64.0.1/", "shared address space"),
    ("https://100.100.100.200/", "shared address space, cloud metadata"),
    ("https://192.0.0.9/", "IETF protocol assignment (PCP anycast)"),
    ("https://192.0.0.10/", "IETF protocol assignment (TURN anycast)"),
    ("https://192.0.0.170/", "NAT64 discovery"),
    ("https://192.0.2.1/", "documentation"),
    ("https://192.88.99.1/", "6to4 relay anycast"),
    ("https://198.18.0.1/", "benchmarking"),
    ("https://198.51.100.7/", "documentation"),
    ("https://203.0.113.9/", "documentation"),
    ("https://224.0.0.1/", "multicast"),
    ("https://239.255.255.250/", "multicast (SSDP)"),
    ("https://240.0.0.1/", "reserved"),
    ("https://255.255.255.255/", "broadcast"),
    ("https://2130706433/", "decimal 127.0.0.1"),
    ("https://3232235777/", "decimal 192.168.1.1"),
    ("https://0x7f.1/", "hex and short 127.0.0.1"),
    ("https://0x7f000001/", "hex 127.0.0.1"),
    ("https://0x7f.0.0.1/", "hex first byte"),
    ("https://0177.0.0.1/", "octal first byte"),
    ("https://017700000001/", "octal 127.0.0.1"),
    ("https://127.1/", "short 127.0.0.1"),
    ("https://10.1/", "short 10.0.0.1"),
    ("https://0/", "0 is 0.0.0.0"),
    ("https://0xa9.0xfe.0xa9.0xfe/", "hex 169.254.169.254"),
    ("https://127.0.0.1./", "trailing dot"),
    ("https://localhost/", "localhost"),
    ("https://LOCALHOST./", "localhost, upper case, trailing dot"),
    ("https://[::1]/", "IPv6 loopback"),
    ("https://[::]/", "IPv6 unspecified"),
    ("https://[::ffff:127.0.0.1]/", "IPv4-mapped loopback"),
    ("https://[::ffff:7f00:1]/", "IPv4-mapped loopback, hex"),
    ("https://[::ffff:10.0.0.5]/", "IPv4-mapped private"),
    ("https://[::ffff:169.254.169.254]/", "IPv4-mapped metadata"),
    ("https://[::127.0.0.1]/", "IPv4-compatible (deprecated)"),
    (f"https://[::ffff:0:{PUBLIC_V4}]/", "IPv4-translated (SIIT)"),
    ("https://[2002:7f00:1::]/", "6to4 of 127.0.0.1"),
    ("https://[2002:a9fe:a9fe::]/", "6to4 of 169.254.169.254"),
    ("https://[2002:c01f:c401::1]/", "6to4 even of a public address (PUBLIC_V4)"),
    ("https://[2001:0:c000:201:8000:63bf:34ff:8ef6]/", "Teredo (server 192.0.2.1)"),
    ("https://[64:ff9b::7f00:1]/", "NAT64 of 127.0.0.1"),
    ("https://[64:ff9b::a9fe:a9fe]/", "NAT64 of 169.254.169.254"),
    ("https://[64:ff9b::10.0.0.5]/", "NAT64 of 10.0.0.5, dotted"),
    ("https://[64:ff9b:1::c01f:c401]/", "local-use NAT64 (of PUBLIC_V4)"),
    ("https://[2620:4f:8000::5efe:a9fe:a9fe]/", "ISATAP identifier of 169.254.169.254"),
    ("https://[2620:4f:8000::200:5efe:a00:5]/", "ISATAP identifier of 10.0.0.5"),
    ("https://[fec0::1]/", "site-local"),
    ("https://[fe80::1]/", "link-local"),
    ("https://[fe80::1%25eth0]/", "link-local with a zone"),
    ("https://[fd00:ec2::254]/", "unique local, cloud metadata"),
    ("https://[fc00::1]/", "unique local"),
    ("https://[ff02::1]/", "multicast"),
    ("https://[100::1]/", "discard-only"),
    ("https://[2001:db8::1]/", "documentation"),
    ("https://[3fff::1]/", "documentation (RFC 9637)"),
]
PUBLIC = [
    f"https://{PUBLIC_V4}/hooks",
    f"https://{PUBLIC_V4}:8443/hooks",
    f"https://[{PUBLIC_V6}]/hooks",
    "https://[64:ff9b::c01f:c401]/hooks",  # NAT64 of PUBLIC_V4
    f"https://[::ffff:{PUBLIC_V4}]/hooks",  # IPv4-mapped public address
    "https://hooks.example.com/hooks",  # names: the tests' resolver answers PUBLIC_V4,
    "https://hooks6.example.com:8443/hooks",  # and PUBLIC_V6
]
_ids = [why for _url, why in NOT_GLOBAL]


def test_the_table_has_at_least_fifty_forms():
    assert len({url for url, _why in NOT_GLOBAL}) >= 50


NUMERIC_FORMS = ["2130706433", "3232235777", "0x7f.1", "0177.0.0.1", "127.1", "10.1", "0", "::1"]


@pytest.mark.parametrize("host", [*NUMERIC_FORMS, PUBLIC_V4, PUBLIC_V6])
def test_the_system_resolver_reads_numeric_forms_alike(host):
    """The production resolver (`getaddrinfo`, no DNS query for a literal) and the tests' one
    give the same addresses for every literal form the tables above use."""
    assert system_resolver(host, 443) == offline(host, 443)


@pytest.mark.parametrize(("url", "why"), NOT_GLOBAL, ids=_ids)
def test_the_guard_refuses_every_address_that_is_not_global(production, url, why):
    with pytest.raises(UrlRefused):
        check_url(url)


@pytest.mark.parametrize(("url", "why"), NOT_GLOBAL, ids=_ids)
def test_the_api_refuses_every_address_that_is_not_global(api, production, url, why):
    before = webhook_state()
    _refused(api.post("/v1/webhooks", {"url": url, "events": ["*"]}), before)


@pytest.mark.parametrize("url", PUBLIC)
def test_public_addresses_are_accepted_by_the_guard_and_the_api(api, production, url):
    check_url(url)
    created = api.post("/v1/webhooks", {"url": url, "events": ["*"]})
    assert (created.status_code, created.json()["url"]) == (201, url)


# URLs that urlsplit, IDNA or httpx cannot handle, or would read differently: 400, never 500.
MALFORMED = [
    (f"https://{PUBLIC_V4}:99999/", "port too large"),
    (f"https://{PUBLIC_V4}:65536/", "port just too large"),
    (f"https://{PUBLIC_V4}:-1/", "negative port"),
    (f"https://{PUBLIC_V4}:0/", "port zero"),
    (f"https://{PUBLIC_V4}:abc/", "port not a number"),
    (f"https://{PUBLIC_V4}:+443/", "port with a sign"),
    (f"https://{PUBLIC_V4}:\uff14\uff14\uff13/", "port in full-width digits"),
    ("https://[::1/", "unclosed IPv6 literal"),
    ("https://[zz::1]/", "bad IPv6 literal"),
    (f"https://[{PUBLIC_V4}]/", "IPv4 in brackets"),
    ("https://" + "a" * 64 + ".example.com/", "label over 63 characters"),
    ("https://" + "abcdefghi." * 26 + "com/", "host over 253 characters"),
    ("https://a..example.com/", "empty label"),
    ("https://\u0300a.example.com/", "IDNA error (leading combining mark)"),
    ("https://ex\u200bample.com/", "zero-width space"),
    (f"https://{PUBLIC_V4}/hooks\x00", "NUL"),
    (f"https://{PUBLIC_V4}/ho oks", "space in the path"),
    (f"https://{PUBLIC_V4} /hooks", "space after the host"),
    (f"\thttps://{PUBLIC_V4}/hooks", "leading tab"),
    (f"https://{PUBLIC_V4}/hooks\n", "trailing newline"),
    (f"https://user:pass@{PUBLIC_V4}/hooks", "credentials"),
    (f"https://user@{PUBLIC_V4}/hooks", "user name"),
    (f"https://@{PUBLIC_V4}/hooks", "empty userinfo"),
    (f"https://{PUBLIC_V4}\\@10.0.0.5/", "backslash before @"),
]
_malformed_ids = [why for _url, why in MALFORMED]


def _code_for(url: str) -> str:
    """Through the API a NUL never reaches the guard: the body parser refuses it anywhere in a
    body with `parameter_invalid` (docs/decisions.md, "Strings"); the rest is `url_invalid`."""
    return "parameter_invalid" if "\x00" in url else "url_invalid"


@pytest.mark.parametrize(("url", "why"), MALFORMED, ids=_malformed_ids)
def test_the_guard_refuses_malformed_urls(production, url, why):
    with pytest.raises(UrlRefused):
        check_url(url)


@pytest.mark.parametrize(("url", "why"), MALFORMED, ids=_malformed_ids)
def test_create_refuses_malformed_urls_with_url_invalid(api, production, url, why):
    before = webhook_state()
    _refused(api.post("/v1/webhooks", {"url": url, "events": ["*"]}), before, _code_for(url))


@pytest.mark.parametrize(("url", "why"), MALFORMED, ids=_malformed_ids)
def test_patch_refuses_malformed_urls_with_url_invalid(api, production, url, why):
    endpoint = make_endpoint(api.key.account)
    before = webhook_state()
    _refused(api.patch(f"/v1/webhooks/{endpoint.pk}", {"url": url}), before, _code_for(url))
    assert WebhookEndpoint.objects.get(pk=endpoint.pk).url == PUBLIC_URL


def test_the_url_length_is_bounded(api, production):
    prefix = f"https://{PUBLIC_V4}/"
    url = prefix + "a" * (MAX_URL_LENGTH - len(prefix))
    assert len(url) == MAX_URL_LENGTH
    check_url(url)
    with pytest.raises(UrlRefused, match="at most 2000 characters"):
        check_url(url + "a")
    before = webhook_state()
    response = api.post("/v1/webhooks", {"url": url + "a", "events": ["*"]})
    assert response.status_code == 400
    assert (error_of(response)["code"], error_of(response)["param"]) == (
        "parameter_invalid",
        "url",
    )
    assert webhook_state() == before
    assert api.post("/v1/webhooks", {"url": url, "events": ["*"]}).status_code == 201


def test_a_refusal_names_the_host_but_never_the_address_it_resolved_to(api, production, dns):
    dns.answer("hooks.example.com", [PUBLIC_V4, "10.20.30.40"])
    with pytest.raises(UrlRefused) as refused:
        check_url("https://hooks.example.com/hooks")
    assert "hooks.example.com" in str(refused.value)
    assert "10.20.30.40" not in str(refused.value)
    before = webhook_state()
    response = api.post("/v1/webhooks", {"url": "https://hooks.example.com/", "events": ["*"]})
    error = _refused(response, before)
    assert "10.20" not in error["message"] and PUBLIC_V4 not in error["message"]


def test_a_host_whose_lookup_never_answers_is_refused_within_the_bound(
    api, production, dns, monkeypatch
):
    """A DNS server that never answers holds an endpoint's create for the lookup bound, not
    for as long as the system resolver keeps trying: then 400 `url_invalid`, nothing saved."""
    monkeypatch.setattr(urlguard, "LOOKUP_TIMEOUT_SECONDS", 0.3)
    dns.stall("hooks.example.com")
    before = webhook_state()
    started = time.monotonic()
    response = api.post("/v1/webhooks", {"url": "https://hooks.example.com/", "events": ["*"]})
    elapsed = time.monotonic() - started
    error = _refused(response, before)
    assert error["message"] == "The host 'hooks.example.com' did not resolve within 0.3 s."
    assert 0.3 <= elapsed < 2.0, elapsed
    assert dns.lookups == ["hooks.example.com"]


def test_lookups_left_hanging_are_bounded_per_process(api, production, dns, monkeypatch):
    """Each bounded lookup waits in a thread of its own, which a name server that never
    answers holds; past the bound (1 here) a lookup fails at once instead of starting another
    thread, so repeated creates cannot pile threads up in a web process."""
    monkeypatch.setattr(urlguard, "LOOKUP_TIMEOUT_SECONDS", 0.3)
    monkeypatch.setattr(urlguard, "_lookup_slots", threading.BoundedSemaphore(1))
    dns.stall("hooks.example.com")
    body = {"url": "https://hooks.example.com/", "events": ["*"]}
    before = webhook_state()
    first = _refused(api.post("/v1/webhooks", body), before)
    assert first["message"] == "The host 'hooks.example.com' did not resolve within 0.3 s."
    second = _refused(api.post("/v1/webhooks", body), before)
    assert second["message"] == (
        "The host 'hooks.example.com' could not be looked up now: too many lookups are waiting."
    )
    assert dns.lookups == ["hooks.example.com"]  # the second started no lookup
