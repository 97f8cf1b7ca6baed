"""Failed-credential throttling (docs/security.md, issue 14 findings 1 and 7; docs/decisions.md: Throttling).

A password or a client secret may be guessed only a few times: every failure counts against the
account (or client id) and against the caller's address, in a fixed window kept in the cache (Redis).
Once a count reaches its limit, that key is locked for `lock_seconds`: every attempt, with the right
credential too, is refused without hashing anything until the lock expires. A success clears the
account's count (not the address's: one right password must not reset an address that is guessing
many accounts).

The cache fails open (apps.core.cache): while Redis is down nothing is throttled, as for the API rate
limit. Keys hold a hash of the identity, never a user name or client id in clear.
"""
import hashlib
import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import caches


@dataclass(frozen=True)
class FailureLimit:
    scope: str  # what is counted: "login:account", "client:address", …
    limit: int  # failures allowed in one window; the limit-th failure locks
    window_seconds: int
    lock_seconds: int


def _state():
    # The counts and locks outlive a release: the `state` alias, whose keys carry no release (settings.cache_aliases).
    return caches["state"]


def _key(limit: FailureLimit, kind: str, ident: str) -> str:
    digest = hashlib.sha256(ident.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"throttle:{limit.scope}:{kind}:{digest}"


def locked_for(limit: FailureLimit, ident: str | None, *, now: float | None = None) -> int:
    """Seconds until `ident` may try again (0: not locked)."""
    if not ident:
        return 0
    until = _state().get(_key(limit, "lock", ident))
    if until is None:
        return 0
    remaining = float(until) - (time.time() if now is None else now)
    return max(0, math.ceil(remaining))


def failure_record(limit: FailureLimit, ident: str | None, *, now: float | None = None) -> int:
    """Count one failure of `ident`; the seconds it is now locked for (0: not locked)."""
    if not ident:
        return 0
    count_key = _key(limit, "count", ident)
    _state().add(count_key, 0, timeout=limit.window_seconds)
    try:
        count = _state().incr(count_key)
    except ValueError:  # the window expired between add and incr
        _state().add(count_key, 1, timeout=limit.window_seconds)
        count = 1
    if count < limit.limit:
        return 0
    until = (time.time() if now is None else now) + limit.lock_seconds
    _state().set(_key(limit, "lock", ident), until, timeout=limit.lock_seconds)
    _state().delete(count_key)  # a fresh count after the lock
    return limit.lock_seconds


def failures_clear(limit: FailureLimit, ident: str | None) -> None:
    """Forget `ident`'s failures (after a success); a lock in force stays."""
    if ident:
        _state().delete(_key(limit, "count", ident))


def client_address(meta) -> str:
    """The caller's address: REMOTE_ADDR, or behind a trusted proxy the last X-Forwarded-For entry
    (the one the proxy appended; settings THROTTLE_TRUST_X_FORWARDED_FOR)."""
    if getattr(settings, "THROTTLE_TRUST_X_FORWARDED_FOR", False):
        forwarded = [part.strip() for part in meta.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
        if forwarded:
            return forwarded[-1]
    return meta.get("REMOTE_ADDR", "") or ""


def wait_message(seconds: int) -> str:
    if seconds >= 120:
        return f"{math.ceil(seconds / 60)} minutes"
    return f"{seconds} seconds"
