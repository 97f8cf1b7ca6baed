"""Cached reads in one Redis round trip (issue 17): the token, the rate limit and a view's cached entries.

A GET whose answer is in the cache (a Thing's body, say) needs, besides that entry, the caller's token row
and one count against the rate limit. Read one after the other they are three round trips and DRF's
dispatch around them: most of such a request. Here they are one script run by Redis:

    the token's cached row → if present, INCR + EXPIREAT of the caller's rate-limit window → MGET of the
    view's keys

The keys are known before anything is read: the rate-limit bucket and a viewer's own entries need the
token's user and application, which never change for a token, so a process remembers them for every
token it has authenticated (apps.oauth.selectors.token_owner_memo). A token this process has not seen
yet goes the usual way once.

`cached_read` answers:
- `Ready`: the token's cached row authenticates the request as the full path would (not expired, an
  active user, no last-use stamp due: apps.oauth.usage, apps.oauth.authentication), the request was
  counted, and the view's values are read. The view answers from them, or, on a miss, calls
  `fallback_counted(request, ready)` and goes through its DRF view, which then does not count again.
- `None`: nothing was counted; the DRF view does everything (no token, an app's token, a token this
  process has not seen, a cached row gone: expired from the cache, or dropped by a revocation; the
  cache off; a request the fast path does not shape: another method, a query string, JSON-P, an Accept
  that is not JSON).

Whatever is answered here, errors included, is what the DRF view would have answered: the same checks,
the same counting (once per request, apps.core.views.ApiView.check_rate_limit), the same headers
(apps.core.views.api_json_response). When Redis fails, the full path runs (it fails open by itself).
"""
import functools
import logging
from dataclasses import dataclass

import redis
from django.conf import settings
from django.core.cache import cache, caches
from django.core.cache.backends.redis import RedisCache
from django.utils import timezone

from apps.core import versions
from apps.core.authentication import token_from_request
from apps.core.views import RATE_LIMIT_COUNTED_ATTRIBUTE, api_json_response
from apps.core.ratelimit import RateLimitState, rate_limit_key, rate_limit_window
from apps.oauth.authentication import LAST_ACTIVE_RESOLUTION
from apps.oauth.selectors import TokenBrief, access_token_row_brief, token_cache_key, token_checksum, token_owner_memo
from apps.oauth.usage import RESOLUTION as USE_RESOLUTION

log = logging.getLogger(__name__)

# KEYS: the token row, the rate-limit window, then the view's keys. ARGV: the window's EXPIREAT.
# Counting only when the row is cached keeps a revoked token's requests out of the count, as the full
# path (401 before the rate limit) does.
_SCRIPT = """
local row = redis.call('GET', KEYS[1])
if not row then return {false, false, {}} end
local count = redis.call('INCR', KEYS[2])
redis.call('EXPIREAT', KEYS[2], ARGV[1])
if #KEYS < 3 then return {row, count, {}} end
return {row, count, redis.call('MGET', unpack(KEYS, 3))}
"""
_ACCEPTED = ("", "*/*", "application/json", "application/*")


@dataclass(frozen=True)
class Ready:
    user_id: int
    is_staff: bool
    rate_limit: RateLimitState
    rate_limit_key: str
    values: list  # the view's keys' values (None: absent), deserialised as Django's cache would


def cached_read(request, keys, *, params: tuple[str, ...] = ()) -> Ready | None:
    """One round trip for a GET that a cached entry may answer; `keys(user_id)` names the view's keys;
    `params`: query parameters the caller reads (besides `access_token`)."""
    if not _shaped(request, params):
        return None
    raw = token_from_request(request)
    if not raw:
        return None
    checksum = token_checksum(raw)
    owner = token_owner_memo(checksum)
    if owner is None or owner[0] is None:
        return None  # unseen by this process, or an app's token (the view's permissions answer 403)
    user_id: int = owner[0]
    application_id = owner[1]
    bucket = rate_limit_key(application_id=application_id, user_id=user_id)
    window_key, reset = rate_limit_window(bucket)
    view_keys = list(keys(user_id))
    try:
        client = cache._cache.get_client(write=True)  # type: ignore[attr-defined]  # Django's RedisCacheClient
        row, count, values = _script(client)(
            keys=[cache.make_key(token_cache_key(checksum)), window_key, *(cache.make_key(k) for k in view_keys)],
            args=[reset + 1],
        )
    except redis.RedisError as exc:
        log.debug("fast path skipped: %s", exc)
        return None
    if not row:
        return None
    limit = settings.RATE_LIMIT_REQUESTS
    state = RateLimitState(limit=limit, remaining=max(0, limit - count), reset=reset, allowed=count <= limit)
    brief = _authenticating(_loads(row), user_id, application_id)
    ready = Ready(
        user_id=user_id,
        is_staff=bool(brief and brief.user_is_staff),
        rate_limit=state,
        rate_limit_key=bucket,
        values=[_loads(v) for v in values],
    )
    if not state.allowed or brief is None or not _spec_wire(request, brief):
        # The full path answers (429, 401, a stamp to write, another wire version) without counting.
        fallback_counted(request, ready)
        return None
    return ready


def cached_get_view(view_class, *, keys, answer, params: tuple[str, ...] = ()):
    """`view_class.as_view()`, with a GET answered from the cache when it can be (`cached_read`).

    `keys(request, user_id, **url_kwargs)`: the cache keys the answer needs; `answer(request, ready,
    **url_kwargs)`: the body from `ready.values` (data to render, or `Rendered` bytes and extra headers),
    or None on a miss (the DRF view then answers, the request already counted). `params`: the query
    parameters the answer reads itself (any other sends the request the full way). The wrapper carries
    the DRF view's attributes (`cls`, `initkwargs`, `csrf_exempt`), so URL resolution, the middleware
    and the OpenAPI document see the same view."""
    full = view_class.as_view()

    def view(request, *args, **kwargs):
        ready = cached_read(request, lambda user_id: keys(request, user_id, **kwargs), params=params)
        if ready is not None:
            data = answer(request, ready, **kwargs)
            if data is not None:
                return api_json_response(data, view_class=view_class, rate_limit=ready.rate_limit)
            fallback_counted(request, ready)
        return full(request, *args, **kwargs)

    return functools.update_wrapper(view, full)


def fallback_counted(request, ready: Ready) -> None:
    """This request was counted: the DRF view it goes on to must not count it again."""
    setattr(request, RATE_LIMIT_COUNTED_ATTRIBUTE, (ready.rate_limit_key, ready.rate_limit))


def enabled() -> bool:
    return bool(settings.REDIS_URL and settings.OAUTH_TOKEN_CACHE_SECONDS) and isinstance(caches["default"], RedisCache)


def _shaped(request, params: tuple[str, ...]) -> bool:
    if request.method != "GET" or not enabled():
        return False
    query = request.META.get("QUERY_STRING", "")
    if query and any(part.partition("=")[0] not in ("access_token", *params) for part in query.split("&")):
        return False  # JSON-P, a format, a filter: the full path reads them
    named = request.META.get("HTTP_THINGYARD_VERSION")
    if named is not None and named.strip().lower() != versions.SPEC:
        return False  # another version, or an unknown one (400 from the view): nothing counted here
    accept = request.META.get("HTTP_ACCEPT", "")
    return accept in _ACCEPTED or ("application/json" in accept and ";" not in accept)


def _spec_wire(request, brief: TokenBrief) -> bool:
    """Whether this request's wire version (apps.core.versions) is `spec`, the only one answered here:
    the cached entries the views read are `spec` bodies; another version's go through the DRF view,
    which keeps them under keys of their own."""
    named = request.META.get("HTTP_THINGYARD_VERSION")
    if named is not None:
        return named.strip().lower() == versions.SPEC
    return (brief.application_wire_version or versions.SPEC) == versions.SPEC


def _authenticating(row, user_id, application_id) -> TokenBrief | None:
    """What apps.oauth.authentication checks and writes, read from the cached row: the row's brief when
    the full path would authenticate this request without writing anything, else None."""
    if not isinstance(row, tuple):
        return None
    brief = access_token_row_brief(row)
    now = timezone.now()
    if brief.user_id != user_id or brief.application_id != application_id:
        return None
    if brief.expires <= now or not brief.user_is_active:
        return None
    if brief.user_last_active is None or now - brief.user_last_active >= LAST_ACTIVE_RESOLUTION:
        return None
    if application_id is not None and _due(brief.application_last_used_at, now):
        return None
    if brief.authorization_id is not None and _due(brief.authorization_last_used_at, now):
        return None
    return brief


def _due(stamp, now) -> bool:
    return stamp is None or now - stamp >= USE_RESOLUTION


_SCRIPTS: dict[int, object] = {}


def _script(client):
    script = _SCRIPTS.get(id(client))
    if script is None:
        script = _SCRIPTS.setdefault(id(client), client.register_script(_SCRIPT))
    return script


def _loads(value):
    if value is None:
        return None
    return cache._cache._serializer.loads(value)  # type: ignore[attr-defined]  # as Django's get() reads it

