"""Which IP addresses a webhook may be sent to: only globally routable unicast ones (the SSRF
guard of docs/webhooks.md, "Managing endpoints" section).

The decision is a table, not Python's `ipaddress` flags alone: those differ between Python
versions and let through 6to4 (`2002::/16`, whose relay reaches the embedded IPv4 address),
site-local `fec0::/10`, `192.0.0.9` and multicast. IPv6 is allowed only inside global unicast
`2000::/3`; forms that carry an IPv4 address (IPv4-mapped, NAT64 `64:ff9b::/96`, ISATAP
interface identifiers) are judged by the IPv4 address they reach.
"""

from __future__ import annotations

import ipaddress

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# IPv4 ranges that are not globally routable unicast (IANA special-purpose registry, RFC 6890).
REFUSED_V4 = tuple(
    ipaddress.IPv4Network(n)
    for n in (
        "0.0.0.0/8",  # "this network", 0.0.0.0
        "10.0.0.0/8",  # private (RFC 1918)
        "100.64.0.0/10",  # shared / carrier-grade NAT; cloud metadata 100.100.100.200
        "127.0.0.0/8",  # loopback
        "169.254.0.0/16",  # link-local; cloud metadata 169.254.169.254
        "172.16.0.0/12",  # private
        "192.0.0.0/24",  # IETF protocol assignments (192.0.0.9 and .10 included)
        "192.0.2.0/24",  # documentation
        "192.88.99.0/24",  # deprecated 6to4 relay anycast
        "192.168.0.0/16",  # private
        "198.18.0.0/15",  # benchmarking
        "198.51.100.0/24",  # documentation
        "203.0.113.0/24",  # documentation
        "224.0.0.0/4",  # multicast
        "240.0.0.0/4",  # reserved, and the broadcast 255.255.255.255
    )
)
GLOBAL_UNICAST_V6 = ipaddress.IPv6Network("2000::/3")
# Inside 2000::/3 but not a real destination (IANA IPv6 special-purpose registry).
REFUSED_V6 = tuple(
    ipaddress.IPv6Network(n)
    for n in (
        "2001::/23",  # IETF protocol assignments: Teredo 2001::/32, benchmarking, ORCHID
        "2001:db8::/32",  # documentation
        "2002::/16",  # 6to4: the embedded IPv4 address is reached through a relay
        "3ffe::/16",  # the former 6bone test network
        "3fff::/20",  # documentation (RFC 9637)
    )
)
# NAT64 well-known prefix (RFC 6052): the gateway forwards to the last 32 bits. The local-use
# prefix 64:ff9b:1::/48 (RFC 8215) lies outside 2000::/3 and is refused with the rest.
NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
# ISATAP interface identifiers (RFC 5214): 0000:5efe or 0200:5efe, then an IPv4 address.
ISATAP_MARKERS = (0x00005EFE, 0x02005EFE)


def _public_v4(address: ipaddress.IPv4Address) -> bool:
    return address.is_global and not any(address in network for network in REFUSED_V4)


def embedded_v4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address leads to (IPv4-mapped, NAT64, 6to4, Teredo server and
    client, ISATAP), or None."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if (int(address) >> 32) & 0xFFFFFFFF in ISATAP_MARKERS:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def is_public(address: IPAddress) -> bool:
    """True when `address` is globally routable unicast (IPv4 or IPv6) and, for an IPv6 form
    that carries an IPv4 address, when that IPv4 address is too. Scoped IPv6 addresses
    (`fe80::1%eth0`) are never public."""
    if isinstance(address, ipaddress.IPv4Address):
        return _public_v4(address)
    if address.scope_id:
        return False
    inner = embedded_v4(address)
    if address.ipv4_mapped is not None or address in NAT64:
        return inner is not None and _public_v4(inner)
    if address not in GLOBAL_UNICAST_V6 or any(address in n for n in REFUSED_V6):
        return False
    if inner is not None and not _public_v4(inner):
        return False
    return not address.is_multicast and not address.is_site_local
