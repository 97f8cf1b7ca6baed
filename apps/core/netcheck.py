"""Outbound-URL safety: refuse URLs whose host resolves to a non-public address (docs/decisions.md: Webhooks).

Kept free of Django models so the webhook delivery code can call it again right before sending
(a name may resolve differently at delivery time than at registration: DNS rebinding).
"""
import ipaddress
import socket
from urllib.parse import urlsplit

ALLOWED_SCHEMES = ("http", "https")


def address_is_public(address: str) -> bool:
    """True when `address` (an IP literal) is globally routable and not multicast."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])  # drop an IPv6 zone id
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address):
        # ::ffff:127.0.0.1 and 2002::/16 (6to4) embed an IPv4 address that is what really gets reached.
        embedded = ip.ipv4_mapped or ip.sixtofour
        if embedded is not None:
            ip = embedded
    return ip.is_global and not ip.is_multicast


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
