"""The resolvers the tests put behind the WEBHOOKS_RESOLVER seam (`webhooks.urlguard.resolve`);
the production code path is unchanged: only the function the setting names is one of these.
Neither ever asks a DNS server.

- `offline`, the suite's default (tests/settings.py): literal addresses in every form the
  system resolver reads (`getaddrinfo` with AI_NUMERICHOST: parsed, never looked up),
  `localhost` and `*.localhost` as loopback (RFC 6761), and the public names below; any other
  name does not resolve.
- `scripted` (the `dns` fixture): each host answers from a list of answers, one per lookup,
  the last repeating; every lookup is recorded; names not scripted do not resolve; a stalled
  host's lookup waits until the script is released (a DNS server that never answers).
"""

from __future__ import annotations

import socket
import threading
from dataclasses import dataclass, field

# Addresses the guard must take for public. The documentation ranges (192.0.2.0/24,
# 198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32) cannot serve: the guard refuses them, as it
# must (webhooks/addresses.py), and the tests prove it does. These are AS112's (RFC 7534,
# RFC 7535: anycast sinks for stray traffic, no web site, no one's service), and no test ever
# connects to them: tests/network.py refuses every connection off loopback.
PUBLIC_V4 = "192.31.196.1"
PUBLIC_V6 = "2620:4f:8000::1"
# Names of public receivers the tests use, and their answers.
PUBLIC_NAMES = {
    "hooks.example.com": [PUBLIC_V4],
    "hooks6.example.com": [PUBLIC_V6],
}


def _numeric(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(
        host,
        port,
        type=socket.SOCK_STREAM,
        proto=socket.IPPROTO_TCP,
        flags=socket.AI_NUMERICHOST,
    )
    return list(dict.fromkeys(info[4][0] for info in infos))


def offline(host: str, port: int) -> list[str]:
    """The suite's WEBHOOKS_RESOLVER: answers as `webhooks.urlguard.system_resolver` would for
    literal addresses (the same `getaddrinfo`, numeric only) and loopback names, and from
    PUBLIC_NAMES for the tests' public names. Raises socket.gaierror for any other name."""
    try:
        return _numeric(host, port)
    except socket.gaierror:
        pass
    name = host.rstrip(".").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return ["127.0.0.1"]
    if name in PUBLIC_NAMES:
        return list(PUBLIC_NAMES[name])
    raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")


# The longest a stalled lookup waits for its release, so that no lookup thread outlives a
# test by more than this whatever happens to the test.
STALL_CAP_SECONDS = 30


@dataclass
class Script:
    answers: dict[str, list[list[str]]] = field(default_factory=dict)
    lookups: list[str] = field(default_factory=list)
    stalled: set[str] = field(default_factory=set)
    released: threading.Event = field(default_factory=threading.Event)

    def answer(self, host: str, *answers: list[str]) -> None:
        """`host` answers `answers[0]` to the first lookup, `answers[1]` to the second, …"""
        self.answers[host] = list(answers)

    def stall(self, host: str) -> None:
        """Lookups of `host` wait until `release()`, then do not resolve."""
        self.stalled.add(host)

    def release(self) -> None:
        self.released.set()


SCRIPT = Script()


def scripted(host: str, port: int) -> list[str]:
    script = SCRIPT
    script.lookups.append(host)
    if host in script.stalled:
        script.released.wait(STALL_CAP_SECONDS)
        raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
    queue = script.answers.get(host)
    if not queue:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    return queue.pop(0) if len(queue) > 1 else queue[0]
