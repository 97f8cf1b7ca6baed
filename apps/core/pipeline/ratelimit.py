"""The API rate limit (spec §8, docs/decisions.md: Rate limit): a fixed window counted atomically in Redis.

300 requests per 5-minute window per (application, user) pair. The counter key carries the window's
start, so a window's count dies with its key and no reset job is needed. When Redis is unreachable the
API keeps serving (fails open); without REDIS_URL (local quick start) Django's cache counts instead.
"""
import logging
import time
from dataclasses import dataclass
from functools import lru_cache

import redis
from django.conf import settings
from django.core.cache import cache, caches
from django.core.cache.backends.redis import RedisCache

from apps.core.cache.scripts import cached_value, registered_script

log = logging.getLogger(__name__)

# Redis is on every request's path: a slow Redis must not become a slow API.
_REDIS_TIMEOUT_SECONDS = 0.25
_FAILURE_LOG_INTERVAL_SECONDS = 60
_last_failure_logged = 0.0


@dataclass(frozen=True)
class RateLimitState:
    limit: int
    remaining: int
    reset: int  # epoch seconds when the window ends
    allowed: bool

    def headers(self) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(self.reset),
        }

    def retry_after(self, now: float | None = None) -> int:
        return max(1, self.reset - int(now if now is not None else time.time()))

    @classmethod
    def counted(cls, count: int | None, reset: int) -> "RateLimitState":
        """The state after `count` requests in the window ending at `reset`; None: not counted (Redis
        failed), which fails open with the whole limit left."""
        limit = settings.RATE_LIMIT_REQUESTS
        if count is None:
            return cls(limit=limit, remaining=limit, reset=reset, allowed=True)
        return cls(limit=limit, remaining=max(0, limit - count), reset=reset, allowed=count <= limit)


def rate_limit_key(*, application_id, user_id) -> str:
    # An application's read-only token has no user; it gets one bucket of its own (docs/decisions.md: OAuth).
    # The instance's cache prefix (settings.CACHE_KEY_PREFIX): instances sharing a Redis count apart.
    return f"{settings.CACHE_KEY_PREFIX}:ratelimit:{application_id or 'none'}:{user_id or 'app'}"


def rate_limit_window(key: str, *, now: float | None = None) -> tuple[str, int]:
    """(the counter's key in the current window, the epoch second the window ends)."""
    window = settings.RATE_LIMIT_WINDOW_SECONDS
    window_start = int(time.time() if now is None else now) // window * window
    return f"{key}:{window_start}", window_start + window


def rate_limit_hit(key: str, *, now: float | None = None) -> RateLimitState:
    """Count one request against `key` in the current window and say whether it is within the limit."""
    window = settings.RATE_LIMIT_WINDOW_SECONDS
    window_key, reset = rate_limit_window(key, now=now)
    try:
        count = _incr_redis(window_key, reset) if settings.REDIS_URL else _incr_cache(window_key, window)
    except redis.RedisError as exc:
        _log_failure(exc)
        return RateLimitState.counted(None, reset)
    return RateLimitState.counted(count, reset)


# INCR and EXPIREAT as one script, which Redis runs atomically: concurrent requests never lose a count,
# and a key never outlives its window (a crash between the two commands cannot leave an immortal
# counter). One command (EVALSHA) instead of MULTI, INCR, EXPIREAT and EXEC: the same round trip with a
# quarter of the client's work (issue 24: 61 → 43 µs of CPU per count).
_INCR_SCRIPT = "local n = redis.call('INCR', KEYS[1]) redis.call('EXPIREAT', KEYS[1], ARGV[1]) return n"


def _incr_redis(window_key: str, reset: int) -> int:
    # EVALSHA on the thread's kept connection, loading the script again when the server answers NOSCRIPT.
    return registered_script(_redis_client(settings.REDIS_URL), _INCR_SCRIPT)(keys=[window_key], args=[reset + 1])


# The count and the view's cache entries in one round trip (rate_limit_hit_reading): INCR and EXPIREAT as
# above, then MGET of the entries.
_INCR_READ_SCRIPT = (
    "local n = redis.call('INCR', KEYS[1]) redis.call('EXPIREAT', KEYS[1], ARGV[1]) "
    "return {n, redis.call('MGET', unpack(KEYS, 2))}"
)


def rate_limit_hit_reading(key: str, cache_keys: list[str]) -> tuple[RateLimitState, dict | None]:
    """rate_limit_hit(key), and the values of these Django cache keys read in the same round trip (issue
    24, first reads: a GET whose token row was not cached pays one round trip to Redis, not two).

    The values are what `cache.get_many` would answer (key → value, None: absent); None when they were not
    read (no Redis cache, Redis failing: the count then fails open as rate_limit_hit's does, and the view
    reads its entries the usual way, which fail open too)."""
    if not cache_keys or not settings.REDIS_URL or not isinstance(caches["default"], RedisCache):
        return rate_limit_hit(key), None
    window_key, reset = rate_limit_window(key)
    try:
        client = cache._cache.get_client(write=True)  # type: ignore[attr-defined]  # Django's RedisCacheClient
        count, values = registered_script(client, _INCR_READ_SCRIPT)(
            keys=[window_key, *(cache.make_key(k) for k in cache_keys)], args=[reset + 1]
        )
    except redis.RedisError as exc:
        _log_failure(exc)
        return RateLimitState.counted(None, reset), None
    return RateLimitState.counted(count, reset), {k: cached_value(v) for k, v in zip(cache_keys, values)}


def _incr_cache(window_key: str, window: int) -> int:
    # add() only creates the key when missing, so incr() after it is atomic in every Django cache backend.
    cache.add(window_key, 0, timeout=window + 1)
    return cache.incr(window_key)


@lru_cache(maxsize=4)
def _redis_client(url: str) -> redis.Redis:
    # One connection pool per URL for the process (keyed by URL so a settings override gets its own).
    return redis.Redis.from_url(
        url, socket_timeout=_REDIS_TIMEOUT_SECONDS, socket_connect_timeout=_REDIS_TIMEOUT_SECONDS
    )


def _log_failure(exc: Exception) -> None:
    # docs/decisions.md: fail open and say so, but at most once a minute, not once per request.
    global _last_failure_logged
    now = time.monotonic()
    if now - _last_failure_logged >= _FAILURE_LOG_INTERVAL_SECONDS:
        _last_failure_logged = now
        log.warning("Rate limiter cannot reach Redis (%s); serving without a limit", exc)


# Set on the Django request by the authentication (apps.oauth.fastpath) when it counted the request in the
# round trip that read the token's cached row: ApiView.check_rate_limit does not count it twice.
RATE_LIMIT_COUNTED_ATTRIBUTE = "thingyard_rate_limit_counted"
