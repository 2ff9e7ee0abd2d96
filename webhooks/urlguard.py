"""Webhook URLs: HTTPS only (loopback http:// with WEBHOOKS_ALLOW_INSECURE_LOCALHOST), and
outside development never an address inside our network (SSRF guard, SPEC §10): loopback,
private, link-local (including the 169.254.169.254 metadata service), shared (100.64.0.0/10),
multicast, reserved: anything not globally routable.
Checked when an endpoint is saved and again right before every send, since DNS can change.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from django.conf import settings


class UrlRefused(ValueError):
    """The URL may not receive webhooks; the message says why."""


def _is_loopback_host(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_url(url: str, *, resolve: bool = True) -> None:
    """Raise UrlRefused unless `url` may receive webhooks."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if not host or parts.username or parts.password:
        raise UrlRefused("The URL needs a host and no credentials.")
    insecure_ok = settings.WEBHOOKS_ALLOW_INSECURE_LOCALHOST
    if parts.scheme == "http":
        if not (insecure_ok and _is_loopback_host(host)):
            raise UrlRefused(
                "Webhook URLs must use https:// (http:// only to loopback in development)."
            )
    elif parts.scheme != "https":
        raise UrlRefused("Webhook URLs must use https://.")
    if insecure_ok and _is_loopback_host(host):
        return
    if not resolve:
        return
    try:
        infos = socket.getaddrinfo(host, parts.port or 443, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError) as exc:
        raise UrlRefused(f"The host '{host}' does not resolve.") from exc
    for info in infos:
        address = ipaddress.ip_address(info[4][0])
        # `not is_global` also covers the shared address space 100.64.0.0/10, where some
        # clouds serve instance metadata (100.100.100.200), which is_private does not.
        if (
            address.is_loopback
            or address.is_private
            or address.is_link_local
            or address.is_multicast
            or address.is_reserved
            or address.is_unspecified
            or not address.is_global
        ):
            raise UrlRefused(f"The host '{host}' resolves to {address}, inside a private network.")
