"""The webhook HTTP client: one POST, resolved once, connected to the address that was checked.

DNS rebinding: a host name can resolve to a public address when checked and to 127.0.0.1 a moment
later. So the name is resolved exactly once, every address is checked (docs/decisions.md: non-public addresses
refused unless ALLOW_PRIVATE_WEBHOOK_URLS), and the connection pool is created for that IP literal;
the name only travels in the Host header and, for https, as SNI and the name the certificate must
match. Redirects are never followed (the Location could point anywhere, including inside).
No database access here: the caller holds no transaction while this runs.
"""
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import certifi
import urllib3

from apps.core import netcheck


@dataclass
class SendResult:
    status_code: int | None = None
    excerpt: str = ""
    error: str = ""
    duration_ms: int = 0
    address: str | None = None  # the IP connected to (or refused)


def _pick_address(addresses: list[str]) -> str:
    # IPv4 first: loopback-only receivers and many hosts have no working IPv6 route.
    return next((a for a in addresses if ":" not in a), addresses[0])


def _host_header(host: str, port: int, default_port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return shown if port == default_port else f"{shown}:{port}"


def _pool(scheme: str, host: str, address: str, port: int, timeout: float):
    # retries=False: one attempt per delivery attempt; the outbox schedule does the retrying.
    kwargs: dict[str, Any] = dict(host=address, port=port, maxsize=1, retries=False, timeout=urllib3.Timeout(connect=timeout, read=timeout))
    if scheme == "https":
        return urllib3.HTTPSConnectionPool(
            **kwargs,
            server_hostname=host,  # SNI
            assert_hostname=host,  # the certificate must name the host, not the IP connected to
            cert_reqs="CERT_REQUIRED",
            ca_certs=certifi.where(),
        )
    return urllib3.HTTPConnectionPool(**kwargs)


def post(*, url: str, body: bytes, headers: dict, timeout: float, allow_private: bool, excerpt_bytes: int = 2000) -> SendResult:
    """POST `body` to `url` once; never raises for network trouble, it is reported in the result."""
    started = time.monotonic()
    result = SendResult()

    def done(**fields) -> SendResult:
        for name, value in fields.items():
            setattr(result, name, value)
        result.duration_ms = int((time.monotonic() - started) * 1000)
        return result

    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return done(error="Refused: the webhook URL is not valid.")
    scheme, host = parts.scheme.lower(), parts.hostname
    if scheme not in netcheck.ALLOWED_SCHEMES or not host or parts.username or parts.password:
        return done(error="Refused: the webhook URL must be http(s)://host/… without credentials.")
    default_port = 443 if scheme == "https" else 80
    port = port or default_port
    try:
        addresses = netcheck.host_addresses(host, port)  # the only name lookup of this attempt
    except (OSError, UnicodeError) as exc:
        return done(error=f"DNS lookup of {host} failed: {exc}")
    if not addresses:
        return done(error=f"DNS lookup of {host} returned no address.")
    if not allow_private:
        private = [a for a in addresses if not netcheck.address_is_public(a)]
        if private:
            return done(address=private[0], error=f"Refused: {host} resolves to a non-public address ({private[0]}).")
    address = _pick_address(addresses)
    result.address = address
    target = parts.path or "/"
    if parts.query:
        target += "?" + parts.query
    remaining = max(0.001, timeout - (time.monotonic() - started))
    pool = _pool(scheme, host, address, port, remaining)
    response = None
    try:
        response = pool.urlopen(
            "POST",
            target,
            body=body,
            headers={**headers, "Host": _host_header(host, port, default_port)},
            redirect=False,
            retries=False,
            preload_content=False,
            assert_same_host=False,
        )
        excerpt = b""
        while len(excerpt) < excerpt_bytes and time.monotonic() - started < timeout:
            chunk = response.read(excerpt_bytes - len(excerpt))
            if not chunk:
                break
            excerpt += chunk
        text = excerpt.decode("utf-8", "replace")
        status = response.status
        if 300 <= status < 400:
            location = response.headers.get("Location", "")
            return done(status_code=status, excerpt=text, error=f"Redirect refused (Location: {location[:300]}).")
        if time.monotonic() - started > timeout:
            return done(status_code=status, excerpt=text, error=f"Timed out after {timeout:g} s.")
        return done(status_code=status, excerpt=text)
    except urllib3.exceptions.NewConnectionError as exc:  # a subclass of ConnectTimeoutError: first
        return done(error=f"Connection failed: {exc}")
    except (urllib3.exceptions.TimeoutError, TimeoutError):
        return done(error=f"Timed out after {timeout:g} s.")
    except urllib3.exceptions.SSLError as exc:
        return done(error=f"TLS error: {exc}")
    except (urllib3.exceptions.HTTPError, OSError) as exc:
        return done(error=f"Connection failed: {exc}")
    finally:
        if response is not None:
            response.release_conn()
        pool.close()
