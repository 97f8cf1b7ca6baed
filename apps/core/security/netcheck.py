"""Outbound-URL safety: refuse URLs whose host resolves to a non-public address (docs/decisions.md: Webhooks).

Kept free of Django models so the webhook delivery code can call it again right before sending
(a name may resolve differently at delivery time than at registration: DNS rebinding).
"""
import ipaddress
import socket
from urllib.parse import urlsplit

ALLOWED_SCHEMES = ("http", "https")

# IPv6 ranges whose low 32 bits are an IPv4 address that a translator or the host itself reaches
# (docs/security.md, issue 14 finding 9): NAT64's well-known prefix (RFC 6052), IPv4-compatible
# addresses (RFC 4291 §2.5.5.1, deprecated but still routed to the IPv4 stack by some hosts), and
# SIIT's IPv4-translated addresses (RFC 2765). IPv4-mapped (::ffff:0:0/96), 6to4 (2002::/16) and Teredo
# (2001::/32) are read through ipaddress's own properties.
_LOW_32_BITS_EMBED_IPV4 = (
    ipaddress.IPv6Network("64:ff9b::/96"),
    ipaddress.IPv6Network("::/96"),
    ipaddress.IPv6Network("::ffff:0:0:0/96"),
)
# NAT64 for a local network (RFC 8215): the IPv4 address sits at a prefix-dependent offset, and
# whatever it names is the operator's own network; never public.
_LOCAL_NAT64 = ipaddress.IPv6Network("64:ff9b:1::/48")


def embedded_ipv4_addresses(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address leads to (mapped, 6to4, Teredo, NAT64, compatible, SIIT)."""
    found: list[ipaddress.IPv4Address] = []
    if ip.ipv4_mapped is not None:
        found.append(ip.ipv4_mapped)
    if ip.sixtofour is not None:
        found.append(ip.sixtofour)
    if ip.teredo is not None:
        found.extend(ip.teredo)  # (server, client): the client is de-obfuscated by ipaddress
    if any(ip in network for network in _LOW_32_BITS_EMBED_IPV4):
        found.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return found


def _ip_is_public(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return ip.is_global and not ip.is_multicast


def address_is_public(address: str) -> bool:
    """True when `address` (an IP literal) is globally routable and not multicast, and so is every IPv4
    address it embeds (`[64:ff9b::7f00:1]` and `[::127.0.0.1]` reach 127.0.0.1)."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])  # drop an IPv6 zone id
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address):
        if ip in _LOCAL_NAT64:
            return False
        embedded = embedded_ipv4_addresses(ip)
        if embedded:
            # What really gets reached is the IPv4 address (for Teredo, both the server and the client).
            return all(_ip_is_public(v4) for v4 in embedded)
    return _ip_is_public(ip)


def host_addresses(host: str, port: int | None = None) -> list[str]:
    """Every address `host` resolves to (an IP literal resolves to itself). Raises OSError on failure."""
    infos = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
    return sorted({str(info[4][0]) for info in infos})


def url_blockers(url: str, *, allow_private: bool = False) -> list[str]:
    """Reasons the service must not send requests to `url`; an empty list means it may."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return ["Enter a valid URL."]
    if parts.scheme.lower() not in ALLOWED_SCHEMES:
        return ["The URL must start with http:// or https://."]
    host = parts.hostname
    if not host:
        return ["The URL has no host name."]
    if parts.username or parts.password:
        return ["The URL must not contain a user name or password."]
    if allow_private:
        return []
    try:
        addresses = host_addresses(host, port)
    except (OSError, UnicodeError):
        return [f"The host name {host} could not be resolved."]
    if not addresses:
        return [f"The host name {host} could not be resolved."]
    if not all(address_is_public(a) for a in addresses):
        return [f"The host {host} resolves to a private or reserved address, which is not allowed."]
    return []
