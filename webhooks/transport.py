"""The HTTP client webhooks are sent with: it connects only to addresses the SSRF guard checked
(docs/webhooks.md, "Managing endpoints" section).

Checking a URL and then letting the HTTP client resolve its host again leaves a gap: DNS can
answer a public address to the check and a private one to the connection (DNS rebinding).
Here the connection pool's network backend does both: for each new connection it resolves
the host once (`urlguard.resolved_addresses`, through the WEBHOOKS_RESOLVER seam), refuses
the connection if any answer is not allowed, and opens the socket to one of exactly those
addresses. The URL keeps its host name, so httpcore still sends it as TLS SNI, verifies the
certificate against it and sends it in the `Host` header; the pool still keys (and keeps
alive) connections per scheme, host and port. A kept-alive connection stays on the address
checked when it was opened.

httpx 0.28's `HTTPTransport` takes no network backend (encode/httpx#3180 asks for one), and a
webhook needs nothing httpx's client adds (cookies, redirects, auth): `post` sends through
httpcore's pool, with the URL parsed as httpx parses it and its failures named as httpx names
them.
"""

from __future__ import annotations

import contextvars
import functools
import ssl
import time

import httpcore
import httpx
from django.conf import settings

from webhooks.urlguard import LookupTimedOut, resolved_addresses

# The monotonic instant by which the attempt under way in this thread must end (`post`), or
# None: every connect, TLS handshake, read and write of a `GuardedBackend` stream waits at
# most until then, whatever its own timeout. httpcore bounds each of them by the timeout
# alone, so a receiver that sent its answer a byte at a time could hold an attempt, and its
# worker thread, for as long as it liked.
_ATTEMPT_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "webhook_attempt_deadline", default=None
)


def _until_deadline(timeout: float | None, expired: type[Exception]) -> float | None:
    """`timeout` cut to the time left before the attempt's deadline; raises `expired` (an
    httpcore timeout) when none is left."""
    deadline = _ATTEMPT_DEADLINE.get()
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise expired("The attempt's time is up.")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    """A connection's stream whose every wait ends by the attempt's deadline
    (`_ATTEMPT_DEADLINE`); kept-alive connections serve later attempts, each with its own."""

    def __init__(self, stream: httpcore.NetworkStream) -> None:
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, _until_deadline(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, _until_deadline(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context, server_hostname=None, timeout=None) -> httpcore.NetworkStream:
        left = _until_deadline(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self._stream.start_tls(ssl_context, server_hostname, left))

    def get_extra_info(self, info: str):
        return self._stream.get_extra_info(info)


class GuardedBackend(httpcore.NetworkBackend):
    """A network backend that resolves once, checks every answer, then connects to a checked
    address (in the resolver's order, the next one if a connection fails; the lookup and the
    connections all within the connect timeout and the attempt's deadline). Raises
    `urlguard.UrlRefused` (not resolving, or an address that is not allowed), or httpcore's
    ConnectError / ConnectTimeout with a message that names no address. Unix sockets are
    refused."""

    def __init__(self) -> None:
        self._backend = httpcore.SyncBackend()

    def connect_tcp(
        self, host, port, timeout=None, local_address=None, socket_options=None
    ) -> httpcore.NetworkStream:
        timeout = _until_deadline(timeout, httpcore.ConnectTimeout)
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            addresses = resolved_addresses(host, port, timeout=timeout)
        except LookupTimedOut:
            raise httpcore.ConnectTimeout("Timed out looking up the host.") from None
        failure: Exception | None = None
        for address in addresses:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                break
            try:
                return _DeadlineStream(
                    self._backend.connect_tcp(
                        str(address), port, left, local_address, socket_options
                    )
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


class SendFailed(Exception):
    """A POST that got no response: the connection, the TLS handshake, a timeout or the
    HTTP exchange failed. Its text is `"<kind>: <detail>"` (`ConnectError: …`, `ReadTimeout:
    …`), the names httpx gives the same failures, and names no address."""


# httpcore's failures; each is reported by its own class name (`SendFailed`).
_FAILURES = (
    httpcore.TimeoutException,
    httpcore.NetworkError,
    httpcore.ProtocolError,
    httpcore.UnsupportedProtocol,
)


def new_pool(*, ssl_context: ssl.SSLContext) -> httpcore.ConnectionPool:
    """A connection pool for webhook POSTs over `GuardedBackend`: HTTP/1.1, no proxy, no
    cookies, no redirects followed, TLS verified with `ssl_context` (host name checked, as
    Python's default context does); httpx's default limits (100 connections, 20 kept alive
    for 5 s). Close it when done."""
    return httpcore.ConnectionPool(
        ssl_context=ssl_context,
        max_connections=100,
        max_keepalive_connections=20,
        keepalive_expiry=5.0,
        network_backend=GuardedBackend(),
    )


@functools.lru_cache(maxsize=1024)
def target(url: str) -> tuple[httpcore.URL, bytes]:
    """The URL as httpx parses it (IDNA host, percent-encoded path and query), in httpcore's
    form, and the `Host` header httpx sends for it (`[2001:db8::1]:8443`, the port only when
    it is not the scheme's): what `httpx.Client` hands httpcore for the same URL. httpcore's
    own `Host` would lose an IPv6 literal's brackets."""
    parsed = httpx.URL(url)
    address = httpcore.URL(
        scheme=parsed.raw_scheme, host=parsed.raw_host, port=parsed.port, target=parsed.raw_path
    )
    return address, parsed.netloc


# The most of an answer's body a POST reads: what a receiver says is never used, so only a
# small body is read to its end (which lets its connection serve the next POST); a larger one,
# or one still arriving when the attempt's time is up, is left and its connection closed.
BODY_READ_MAX = 64 * 1024


def post(
    pool: httpcore.ConnectionPool,
    url: str,
    *,
    content: bytes,
    headers: dict[str, str],
    timeout: float,
) -> int:
    """POST `content` to `url` through `pool` and return the response's status code. The
    body is read only while it stays under `BODY_READ_MAX` and arrives within `timeout` of
    the start, and is dropped: a receiver cannot hold a worker or fill its memory with what it
    sends back (the status counts however the body ends). `timeout` seconds also bound each
    phase (pool, connect with the lookup of the host's addresses, TLS, each write and read),
    and the whole attempt ends within twice `timeout` of its start, however its answer
    trickles in (`_ATTEMPT_DEADLINE`). Raises `urlguard.UrlRefused` when the guard refuses the
    host's addresses and `SendFailed` when no response came.

    httpcore is what httpx sends with; called directly it skips the client's request and
    response models, cookie jar and redirect loop, none of which a webhook uses: a POST to a
    loopback receiver costs about 220 µs of CPU here against 390 µs through `httpx.Client`
    (docs/benchmarks.md, "Webhook delivery")."""
    limits = {"connect": timeout, "read": timeout, "write": timeout, "pool": timeout}
    started = time.monotonic()
    deadline = started + timeout
    address, host = target(url)
    token = _ATTEMPT_DEADLINE.set(started + 2 * timeout)
    try:
        with pool.stream(
            "POST",
            address,
            headers=[(b"Host", host)]
            + [(name.encode(), value.encode()) for name, value in headers.items()],
            content=content,
            extensions={"timeout": limits},
        ) as response:
            _drop_body(response, deadline)
            return response.status
    except _FAILURES as exc:
        raise SendFailed(f"{exc.__class__.__name__}: {exc}") from exc
    finally:
        _ATTEMPT_DEADLINE.reset(token)


def _drop_body(response: httpcore.Response, deadline: float) -> None:
    """Read and drop the body while it stays small and on time (see `post`); a failure
    reading it is no failure of the POST, whose status has come."""
    read = 0
    try:
        for chunk in response.iter_stream():
            read += len(chunk)
            if read > BODY_READ_MAX or time.monotonic() > deadline:
                return
    except _FAILURES:
        return


def new_ssl_context() -> ssl.SSLContext:
    """The TLS context webhooks are verified with: WEBHOOKS_CA_BUNDLE's CAs, certifi's when
    empty. Building one loads the bundle (about 20 ms); one context serves many clients."""
    bundle = settings.WEBHOOKS_CA_BUNDLE
    if bundle:
        return ssl.create_default_context(cafile=bundle)
    return httpx.create_ssl_context(trust_env=False)  # certifi's CAs
