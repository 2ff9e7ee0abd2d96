"""The HTTP client webhooks are sent with: it connects only to addresses the SSRF guard checked
(the README's "Managing endpoints" section).

Checking a URL and then letting the HTTP client resolve its host again leaves a gap: DNS can
answer a public address to the check and a private one to the connection (DNS rebinding).
Here the connection pool's network backend does both: for each new connection it resolves
the host once (`urlguard.resolved_addresses`, through the WEBHOOKS_RESOLVER seam), refuses
the connection if any answer is not allowed, and opens the socket to one of exactly those
addresses. The URL keeps its host name, so httpcore still sends it as TLS SNI, verifies the
certificate against it and httpx sends it in the `Host` header; the pool still keys (and keeps
alive) connections per scheme, host and port. A kept-alive connection stays on the address
checked when it was opened.

httpx 0.28's `HTTPTransport` takes no network backend (encode/httpx#3180 asks for one), so
`GuardedTransport` builds the same httpcore pool with one and reuses the rest of
`HTTPTransport` (request and response mapping, exception mapping) unchanged.
"""

from __future__ import annotations

import ssl
import time

import httpcore
import httpx
from django.conf import settings

from webhooks.urlguard import resolved_addresses


class GuardedBackend(httpcore.NetworkBackend):
    """A network backend that resolves once, checks every answer, then connects to a checked
    address (in the resolver's order, the next one if a connection fails, all within the
    connect timeout). Raises `urlguard.UrlRefused` (not resolving, or an address that is not
    allowed), or httpcore's ConnectError / ConnectTimeout with a message that names no
    address. Unix sockets are refused."""

    def __init__(self) -> None:
        self._backend = httpcore.SyncBackend()

    def connect_tcp(
        self, host, port, timeout=None, local_address=None, socket_options=None
    ) -> httpcore.NetworkStream:
        addresses = resolved_addresses(host, port)
        deadline = None if timeout is None else time.monotonic() + timeout
        failure: Exception | None = None
        for address in addresses:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                break
            try:
                return self._backend.connect_tcp(
                    str(address), port, left, local_address, socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc
        if isinstance(failure, httpcore.ConnectError):
            reason = getattr(failure.__cause__, "strerror", None) or "connection failed"
            raise httpcore.ConnectError(f"Could not connect to the host: {reason}.")
        raise httpcore.ConnectTimeout("Timed out connecting to the host.")

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        raise httpcore.ConnectError("Webhooks are never sent over a Unix socket.")

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


class GuardedTransport(httpx.HTTPTransport):
    """`httpx.HTTPTransport` over `GuardedBackend`: HTTP/1.1, no proxy, TLS verified with
    `ssl_context` (host name checked, as Python's default context does)."""

    def __init__(self, *, ssl_context: ssl.SSLContext) -> None:
        # httpx's default limits: 100 connections, 20 kept alive for 5 s.
        self._pool = httpcore.ConnectionPool(
            ssl_context=ssl_context,
            max_connections=100,
            max_keepalive_connections=20,
            keepalive_expiry=5.0,
            network_backend=GuardedBackend(),
        )


def new_ssl_context() -> ssl.SSLContext:
    """The TLS context webhooks are verified with: WEBHOOKS_CA_BUNDLE's CAs, certifi's when
    empty. Building one loads the bundle (about 20 ms); one context serves many clients."""
    bundle = settings.WEBHOOKS_CA_BUNDLE
    if bundle:
        return ssl.create_default_context(cafile=bundle)
    return httpx.create_ssl_context(trust_env=False)  # certifi's CAs


def new_client(*, timeout: float, ssl_context: ssl.SSLContext | None = None) -> httpx.Client:
    """A client for webhook POSTs: guarded transport, certificates checked with `ssl_context`
    (`new_ssl_context()` when None), no redirects, no proxy or .netrc from the environment,
    `timeout` seconds for each phase of a request."""
    transport = GuardedTransport(ssl_context=ssl_context or new_ssl_context())
    return httpx.Client(
        transport=transport, timeout=timeout, follow_redirects=False, trust_env=False
    )
