"""Webhook URLs: HTTPS only (loopback http:// with WEBHOOKS_ALLOW_INSECURE_LOCALHOST), and
outside development never an address inside our network (SSRF guard, docs/webhooks.md;
docs/webhooks.md, "Managing endpoints" section): every address the host resolves to must be globally
routable
(`webhooks.addresses.is_public`).

`parse_url` refuses, as `UrlRefused`, anything that urlsplit, IDNA or httpx cannot handle or
that would mean something else to one of them: over `MAX_URL_LENGTH` characters, control or
whitespace characters, credentials, a bad port, a bad IPv6 literal, a host that is not valid
IDNA or too long. `check_url` adds the scheme and address rules; the API turns `UrlRefused`
into 400 `url_invalid` (docs/errors.md).

Names are resolved by one function, `resolve` (the resolver named by the WEBHOOKS_RESOLVER
setting), waited for at most a bound (`LOOKUP_TIMEOUT_SECONDS` when an endpoint is saved, the
attempt's connect time when a webhook is sent: `getaddrinfo` has no timeout of its own), and
the webhook transport (`webhooks.transport`) connects only to the addresses
`resolved_addresses` checked, so DNS cannot answer one address to the check and another to
the connection. Refusals never name a resolved address.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import unicodedata
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx
from django.conf import settings
from django.utils.module_loading import import_string

from webhooks.addresses import is_public

# The longest URL accepted (characters); the same bound as the `url` field (max_length).
MAX_URL_LENGTH = 2000
MAX_HOST_LENGTH = 253  # DNS: 253 characters, labels of 1 to 63 (RFC 1035)
MAX_LABEL_LENGTH = 63
# The longest an endpoint's create or update waits for its host's addresses (seconds).
LOOKUP_TIMEOUT_SECONDS = 5.0
# Bounded lookups in flight at once in a process (each in a thread of its own, which a
# resolver that never answers holds until it gives up); past this a lookup fails at once.
MAX_LOOKUPS_IN_FLIGHT = 32
_lookup_slots = threading.BoundedSemaphore(MAX_LOOKUPS_IN_FLIGHT)


class UrlRefused(ValueError):
    """The URL may not receive webhooks; the message says why (never a resolved address)."""


class LookupTimedOut(Exception):
    """The host's addresses did not come within the time allowed (`resolve`)."""


@dataclass(frozen=True)
class Target:
    """A parsed webhook URL: `scheme` (`http`/`https`), `host` as httpx sends it (ASCII,
    IDNA-encoded, lower case, IPv6 without brackets) and `port` (the scheme's default when
    the URL names none)."""

    scheme: str
    host: str
    port: int


def _refuse_characters(url: str) -> None:
    # Whitespace, and Unicode's "other" categories: controls (NUL included), invisible
    # format characters (zero-width, bidi overrides), surrogates, unassigned code points.
    if any(ch.isspace() or unicodedata.category(ch)[0] == "C" for ch in url):
        raise UrlRefused("The URL may not hold spaces or control characters.")


def parse_url(url: str) -> Target:
    """Parse `url` as the sender will; raise UrlRefused for anything it could not send to."""
    if len(url) > MAX_URL_LENGTH:
        raise UrlRefused(f"The URL may be at most {MAX_URL_LENGTH} characters long.")
    _refuse_characters(url)
    try:
        parts = urlsplit(url)
        port = parts.port
        parsed = httpx.URL(url)
        host = parsed.raw_host.decode("ascii").lower()
    except (ValueError, UnicodeError, httpx.InvalidURL) as exc:
        raise UrlRefused("The URL is not valid (check the host and the port).") from exc
    if parts.scheme not in ("http", "https"):
        raise UrlRefused("Webhook URLs must use https://.")
    if "@" in parts.netloc:
        raise UrlRefused("The URL needs a host and no credentials.")
    if not host or not parts.hostname:
        raise UrlRefused("The URL needs a host and no credentials.")
    if port is not None and not 1 <= port <= 65535:
        raise UrlRefused("The URL's port must be a number from 1 to 65535.")
    _check_host(host)
    return Target(parts.scheme, host, port or (443 if parts.scheme == "https" else 80))


def _check_host(host: str) -> None:
    if "%" in host:  # an IPv6 zone (`fe80::1%eth0`), or an escape httpx kept
        raise UrlRefused("The URL's host may not name a network interface.")
    if ":" in host:
        try:
            ipaddress.IPv6Address(host)
        except ValueError as exc:
            raise UrlRefused("The URL's IPv6 address is not valid.") from exc
        return
    labels = host.removesuffix(".").split(".")
    if len(host) > MAX_HOST_LENGTH or any(not 1 <= len(x) <= MAX_LABEL_LENGTH for x in labels):
        raise UrlRefused("The URL's host is not a valid host name.")
    try:
        host.encode("idna")  # what the system resolver will do with it
    except UnicodeError as exc:
        raise UrlRefused("The URL's host is not a valid host name.") from exc


def is_loopback_host(host: str) -> bool:
    """`localhost`, a `*.localhost` name (loopback by RFC 6761) or a literal loopback address:
    the development exception. Even then only loopback addresses are connected to."""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def system_resolver(host: str, port: int) -> list[str]:
    """The addresses `getaddrinfo` gives for (host, port), in its order (the default
    WEBHOOKS_RESOLVER). Raises OSError when the name does not resolve."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def resolve(host: str, port: int, *, timeout: float | None = None) -> list[str]:
    """Resolve with the resolver the WEBHOOKS_RESOLVER setting names (a dotted path to a
    function `(host, port) -> list of address strings`, raising OSError when the name does
    not resolve). The one seam through which webhook hosts are looked up.

    With `timeout` (seconds), a host name's lookup runs in a thread of its own and is waited
    for at most that long, then `LookupTimedOut` is raised; the thread is left to end when the
    resolver gives up (a lookup cannot be interrupted), holding nothing of the caller's. At
    most `MAX_LOOKUPS_IN_FLIGHT` such threads live at once in a process: past that, while
    abandoned lookups still hang, `LookupTimedOut` at once. A literal address needs no lookup
    and no thread."""
    resolver = import_string(settings.WEBHOOKS_RESOLVER)
    if timeout is None or _is_literal(host):
        return resolver(host, port)
    slots = _lookup_slots  # the lookup's thread gives back the slot it took, from this one
    if not slots.acquire(blocking=False):
        raise LookupTimedOut(
            f"The host '{host}' could not be looked up now: too many lookups are waiting."
        )
    done = threading.Event()
    outcome: dict[str, object] = {}

    def look_up() -> None:
        try:
            outcome["addresses"] = resolver(host, port)
        except BaseException as exc:  # handed to the caller below
            outcome["error"] = exc
        finally:
            slots.release()
            done.set()

    try:
        threading.Thread(target=look_up, name="webhook-lookup", daemon=True).start()
    except BaseException:
        slots.release()
        raise
    if not done.wait(max(0.0, timeout)):
        raise LookupTimedOut(f"The host '{host}' did not resolve within {timeout:g} s.")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["addresses"]


def _is_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def resolved_addresses(
    host: str, port: int, *, timeout: float | None = None
) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    """Resolve `host` once, waiting at most `timeout` seconds (`resolve`), and return its
    addresses, all checked: loopback ones only for a loopback host with
    WEBHOOKS_ALLOW_INSECURE_LOCALHOST on, otherwise only public ones. Raises UrlRefused (not
    resolving, or any address refused: one bad answer refuses all) or `LookupTimedOut`."""
    loopback_ok = settings.WEBHOOKS_ALLOW_INSECURE_LOCALHOST and is_loopback_host(host)
    try:
        answers = [
            ipaddress.ip_address(a.split("%")[0]) for a in resolve(host, port, timeout=timeout)
        ]
    except (OSError, UnicodeError, ValueError) as exc:
        raise UrlRefused(f"The host '{host}' does not resolve.") from exc
    if not answers:
        raise UrlRefused(f"The host '{host}' does not resolve.")
    for address in answers:
        if not (is_public(address) or (loopback_ok and address.is_loopback)):
            raise UrlRefused(
                f"The host '{host}' resolves to an address inside a private network "
                "(not publicly routable)."
            )
    return answers


def check_url(url: str, *, resolve: bool = True) -> Target:
    """Raise UrlRefused unless `url` may receive webhooks; returns it parsed. With
    `resolve=False` only the URL itself is checked (the transport checks the addresses when
    it connects); a host whose addresses take over `LOOKUP_TIMEOUT_SECONDS` is refused."""
    target = parse_url(url)
    loopback = is_loopback_host(target.host)
    insecure_ok = settings.WEBHOOKS_ALLOW_INSECURE_LOCALHOST
    if target.scheme == "http" and not (insecure_ok and loopback):
        raise UrlRefused(
            "Webhook URLs must use https:// (http:// only to loopback in development)."
        )
    if resolve:
        try:
            resolved_addresses(target.host, target.port, timeout=LOOKUP_TIMEOUT_SECONDS)
        except LookupTimedOut as exc:
            raise UrlRefused(str(exc)) from exc
    return target
