"""The webhook HTTP client: one POST, resolved once, connected to the address that was checked.

DNS rebinding: a host name can resolve to a public address when checked and to 127.0.0.1 a moment
later. So the name is resolved exactly once, every address is checked (docs/decisions.md: non-public addresses
refused unless ALLOW_PRIVATE_WEBHOOK_URLS), and the connection pool is created for that IP literal;
the name only travels in the Host header and, for https, as SNI and the name the certificate must
match. Redirects are never followed (the Location could point anywhere, including inside).
No database access here: the caller holds no transaction while this runs.
"""
import errno
import socket
import ssl
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import certifi
import urllib3

from apps.core.security import netcheck


@dataclass
class SendResult:
    status_code: int | None = None
    excerpt: str = ""
    error: str = ""  # in plain words, for the developer (docs/decisions.md: Webhooks, the delivery log)
    detail: str = ""  # the raw exception text, for staff only (the admin)
    duration_ms: int = 0
    address: str | None = None  # the IP connected to (or refused)
    response_headers: dict = field(default_factory=dict)


# Response headers kept with an attempt: at most this many, each value cut to VALUE_CHARS.
RESPONSE_HEADERS_KEPT = 30
RESPONSE_HEADER_VALUE_CHARS = 300


def _causes(exc: BaseException):
    """`exc` and the exceptions it wraps (urllib3 wraps socket and ssl errors, sometimes as an arg)."""
    seen: set[int] = set()
    todo: list[object] = [exc]
    while todo:
        current = todo.pop(0)
        if not isinstance(current, BaseException) or id(current) in seen:
            continue  # None, or a `reason` that is only a string (ssl.SSLError has one)
        seen.add(id(current))
        yield current
        todo += [current.__cause__, current.__context__, getattr(current, "reason", None)]
        todo += [arg for arg in getattr(current, "args", ()) if isinstance(arg, BaseException)]


def describe_failure(exc: BaseException, *, host: str, port: int, timeout: float) -> str:
    """What went wrong with an attempt, in plain words, from the exception the client raised."""
    where = f"{host}:{port}"
    causes = list(_causes(exc))
    for cause in causes:
        if isinstance(cause, ssl.SSLCertVerificationError):
            reason = getattr(cause, "verify_message", "") or "it could not be verified"
            return f"TLS certificate invalid: {reason} ({host})."
    for cause in causes:
        if isinstance(cause, socket.gaierror):
            return f"Name not found: {host} does not resolve to an address."
        if isinstance(cause, ConnectionRefusedError) or getattr(cause, "errno", None) == errno.ECONNREFUSED:
            return f"Connection refused: nothing accepts connections at {where}."
        if isinstance(cause, ConnectionResetError):
            return "Connection reset by the endpoint before it answered."
        if getattr(cause, "errno", None) in (errno.ENETUNREACH, errno.EHOSTUNREACH):
            return f"Network unreachable: {where} cannot be reached from here."
    for cause in causes:
        # NewConnectionError derives from urllib3's ConnectTimeoutError without being a timeout.
        if isinstance(cause, urllib3.exceptions.NewConnectionError):
            continue
        if isinstance(cause, (TimeoutError, socket.timeout, urllib3.exceptions.TimeoutError)):
            return f"Timed out after {timeout:g} s."
    for cause in causes:
        if isinstance(cause, (ssl.SSLError, urllib3.exceptions.SSLError)):
            return f"TLS handshake with {host} failed."
        if type(cause).__name__ == "RemoteDisconnected":
            return "The endpoint closed the connection without answering."
    return f"Could not connect to {where}."


def describe_status(status_code: int) -> str:
    """A non-2xx answer, in plain words."""
    if 300 <= status_code < 400:
        return f"HTTP {status_code} from the endpoint: redirects are not followed."
    return f"HTTP {status_code} from the endpoint."


def _kept_headers(headers) -> dict:
    kept = {}
    for name, value in list(headers.items())[:RESPONSE_HEADERS_KEPT]:
        kept[str(name)] = str(value)[:RESPONSE_HEADER_VALUE_CHARS]
    return kept


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
        return done(error=f"Name not found: {host} does not resolve to an address.", detail=f"{type(exc).__name__}: {exc}")
    if not addresses:
        return done(error=f"Name not found: {host} does not resolve to an address.")
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
        kept = _kept_headers(response.headers)
        if 300 <= status < 400:
            location = response.headers.get("Location", "")
            return done(
                status_code=status,
                excerpt=text,
                response_headers=kept,
                error=f"Redirect refused: HTTP {status} from the endpoint (Location: {location[:300]}).",
            )
        if time.monotonic() - started > timeout:
            return done(status_code=status, excerpt=text, response_headers=kept, error=f"Timed out after {timeout:g} s.")
        return done(status_code=status, excerpt=text, response_headers=kept)
    except (urllib3.exceptions.HTTPError, OSError) as exc:
        # Plain words for the developer's log; the exception's own text (addresses, errno) for staff.
        return done(
            error=describe_failure(exc, host=host, port=port, timeout=timeout),
            detail=f"{type(exc).__name__}: {exc}"[:2000],
        )
    finally:
        if response is not None:
            response.release_conn()
        pool.close()
