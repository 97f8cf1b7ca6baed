"""The authentication's cache lookup: the token's row, the rate-limit count and the view's entries in one
Redis round trip (issues 17, 24).

This is no longer a path beside DRF (issue 24): every API request goes through apps.core.pipeline.views.ApiView,
and its authentication (apps.oauth.authentication) calls `prefetch` for a GET. A GET needs, besides the
entries a view may be answered from (ApiView.cache_keys: a Thing's body, a kept page), the caller's
token row and one count against the rate limit. Read one after the other they are three round trips;
here they are one script run by Redis:

    the token's cached row → if present, INCR + EXPIREAT of the caller's rate-limit window → MGET of the
    view's keys

The keys are known before anything is read: the rate-limit bucket needs the token's user and
application, which never change for a token, so a process remembers them for every token it has
authenticated (apps.oauth.selectors.token_owner_memo). A token this process has not seen yet goes the
usual way once (its row read with GET, counted by ApiView.check_rate_limit).

What `prefetch` read is only handed on: the row to the one authentication (access_token_get_active, which
checks expiry, the user's state and the due stamps exactly as for a row read any other way), the count
to ApiView.check_rate_limit (RATE_LIMIT_COUNTED_ATTRIBUTE: counted once), the values to the view
(ApiView.cached_values). When Redis fails, nothing is prefetched and the usual reads run (they fail open).
"""
import logging

import redis
from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache

from apps.core.cache.scripts import cached_value, registered_script
from apps.core.pipeline.ratelimit import RATE_LIMIT_COUNTED_ATTRIBUTE, RateLimitState, rate_limit_key, rate_limit_window
from apps.oauth.selectors import token_cache, token_cache_key, token_checksum, token_owner_memo

log = logging.getLogger(__name__)

# KEYS: the token row, the rate-limit window, then the view's keys. ARGV: the window's EXPIREAT.
# Counting only when the row is cached keeps a revoked token's requests out of the count, as the usual
# order (401 before the rate limit) does.
_SCRIPT = """
local row = redis.call('GET', KEYS[1])
if not row then return {false, false, {}} end
local count = redis.call('INCR', KEYS[2])
redis.call('EXPIREAT', KEYS[2], ARGV[1])
if #KEYS < 3 then return {row, count, {}} end
return {row, count, redis.call('MGET', unpack(KEYS, 3))}
"""


def prefetch(request, raw: str):
    """The token's cached row (as Django's cache would return it) read in one round trip with the
    rate-limit count and the view's cache entries, or None (nothing counted, nothing handed on).

    `request`: DRF's Request of a GET (its parser context names the view and the URL's arguments)."""
    if request.method != "GET" or not raw or not enabled():
        return None
    context = getattr(request, "parser_context", None) or {}
    view = context.get("view")
    checksum = token_checksum(raw)
    owner = token_owner_memo(checksum)
    if owner is None or view is None:
        return None  # a token this process has not seen: its owner (the rate-limit bucket) is unknown
    user_id, application_id = owner
    bucket = rate_limit_key(application_id=application_id, user_id=user_id)
    window_key, reset = rate_limit_window(bucket)
    keys_of = getattr(view, "cache_keys", None)
    view_keys = list((keys_of(request, **context.get("kwargs", {})) if keys_of else None) or [])
    backend = caches["default"]  # once: `cache` looks it up again on every attribute read
    try:
        client = backend._cache.get_client(write=True)  # type: ignore[attr-defined]  # Django's RedisCacheClient
        row, count, values = registered_script(client, _SCRIPT)(
            keys=[token_cache().make_key(token_cache_key(checksum)), window_key, *(backend.make_key(k) for k in view_keys)],
            args=[reset + 1],
        )
    except redis.RedisError as exc:
        log.debug("prefetch skipped: %s", exc)
        return None
    if not row:
        return None
    state = RateLimitState.counted(count, reset)
    setattr(request._request, RATE_LIMIT_COUNTED_ATTRIBUTE, (bucket, state))
    if view_keys:
        view.prefetched = dict(zip(view_keys, (cached_value(v, backend) for v in values)))
    return cached_value(row, backend)


def enabled() -> bool:
    return bool(settings.REDIS_URL and settings.OAUTH_TOKEN_CACHE_SECONDS) and isinstance(caches["default"], RedisCache)
